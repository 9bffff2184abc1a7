// Package pinned reads what the offline verifier checks a run against: the repository's pinned
// manifests, threshold files and their pins (golden/thresholds.sha256), datasets and their
// speaker groups, a TRTMC testcase's own input (from its manifest in the checkout), what a stored
// bundle says of itself, and the inventory the pinned manifests give. It holds the native
// packages' knowledge of those files, so harness/verify itself stays a table of checks.
package pinned

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
)

// Pins are the repository's pinned inputs a run is checked against: manifests, threshold files
// (with golden/thresholds.sha256), datasets, upstream transcripts and golden images.
type Pins struct {
	Root      string
	TRTMCRoot string // the TRTMC checkout the run used ("" unknown)
}

// Manifest resolves a profile's manifest among the reference target's pinned manifests
// (native/families/*/manifests/<profile>.json under the repository root), as a slash path
// relative to the root; ok is false when the profile has none (not a reference profile, or a
// name no manifest file can have).
func (p Pins) Manifest(profile string) (rel string, ok bool, err error) {
	if profile == "" || profile != filepath.Base(profile) || !filepath.IsLocal(profile) || strings.ContainsAny(profile, `*?[\`) {
		return "", false, nil // not a manifest's name (a gap row "gap:org/model", say): not pinned here
	}
	matches, err := filepath.Glob(filepath.Join(p.Root, "native", "families", "*", "manifests", profile+".json"))
	if err != nil {
		return "", false, fmt.Errorf("pinned manifests: %w", err)
	}
	switch len(matches) {
	case 0:
		return "", false, nil
	case 1:
		rel, err := filepath.Rel(p.Root, matches[0])
		if err != nil {
			return "", false, err
		}
		return filepath.ToSlash(rel), true, nil
	}
	return "", false, fmt.Errorf("profile %s has %d pinned manifests %v", profile, len(matches), matches)
}

// RowManifest is the manifest a row was run from, read where the run read it (the source of its
// clip limits and its dataset): for a trtmc stage the row's inventory manifest, a path relative
// to the TRTMC checkout, under QUAL_TRTMC_ROOT; for any other stage the profile's pinned manifest
// in the repository (ok false when it has none). A TRTMC profile may share a reference profile's
// name, never its manifest. named is the manifest as messages name it.
func (p Pins) RowManifest(s evidence.Stage, profile string) (path, named string, ok bool, err error) {
	if !target.TraitsOf(s.TargetKind).InCheckout() {
		rel, ok, err := p.Manifest(profile)
		if err != nil || !ok {
			return "", "", false, err
		}
		return filepath.Join(p.Root, rel), "pinned manifest " + rel, true, nil
	}
	row, ok := InventoryRow(s, profile)
	if !ok {
		return "", "", false, fmt.Errorf("the stage's inventory has no row for profile %s: its manifest in the TRTMC checkout is unknown", profile)
	}
	rel := filepath.ToSlash(row.Manifest)
	root, rootName, err := p.ManifestRoot(s, "manifest "+rel)
	if err != nil {
		return "", "", false, err
	}
	if path, err = workload.InsideDir(root, "manifest", rel); err != nil {
		return "", "", false, err
	}
	return path, "manifest " + rel + " in " + rootName, true, nil
}

// ManifestRoot is where a stage's manifests were read: the repository, or for a trtmc stage the
// TRTMC checkout the run used, QUAL_TRTMC_ROOT (what names the evidence that needs it when unset).
func (p Pins) ManifestRoot(s evidence.Stage, what string) (root, name string, err error) {
	if !target.TraitsOf(s.TargetKind).InCheckout() {
		return p.Root, "the repository", nil
	}
	if root = p.TRTMCRoot; root == "" {
		return "", "", fmt.Errorf("%s is in the TRTMC checkout the run used: set QUAL_TRTMC_ROOT (make verify TRTMC_ROOT=) to check it", what)
	}
	return root, "QUAL_TRTMC_ROOT", nil
}

// InventoryRow is the stage's inventory row of a profile.
func InventoryRow(s evidence.Stage, profile string) (evidence.InventoryRow, bool) {
	i := slices.IndexFunc(s.Inventory, func(row evidence.InventoryRow) bool { return row.Profile == profile })
	if i < 0 {
		return evidence.InventoryRow{}, false
	}
	return s.Inventory[i], true
}

// Testcase reads the row's manifest and the gate's testcase from the repository: the manifest is
// the profile's pinned one, and the inventory row must name that file.
func (p Pins) Testcase(row evidence.InventoryRow, name string) (manifest.Manifest, manifest.Testcase, error) {
	rel, ok, err := p.Manifest(row.Profile)
	if err != nil {
		return manifest.Manifest{}, manifest.Testcase{}, err
	}
	if !ok {
		return manifest.Manifest{}, manifest.Testcase{}, fmt.Errorf("profile %s has no pinned manifest under native/families/*/manifests", row.Profile)
	}
	if filepath.ToSlash(row.Manifest) != rel {
		return manifest.Manifest{}, manifest.Testcase{}, fmt.Errorf("inventory manifest %q is not profile %s's pinned manifest %s", row.Manifest, row.Profile, rel)
	}
	m, err := manifest.Read(filepath.Join(p.Root, rel))
	if err != nil {
		return m, manifest.Testcase{}, fmt.Errorf("pinned manifest: %w", err)
	}
	i := slices.IndexFunc(m.Testcases, func(tc manifest.Testcase) bool { return tc.Name == name })
	if i < 0 {
		return m, manifest.Testcase{}, fmt.Errorf("manifest %s has no testcase %q", rel, name)
	}
	return m, m.Testcases[i], nil
}

// PinnedDataset requires a row's recorded dataset to be the dataset of its manifest's testcase
// (the gate's, or any testcase's when the row has no gate): a reference profile's pinned
// manifest, a trtmc row's manifest in the TRTMC checkout (rowManifest); the file's sha256 is then
// checked against the repository's copy, where the run read it (workload.DatasetOf).
func (p Pins) PinnedDataset(s evidence.Stage, r evidence.Result) error {
	path, named, ok, err := p.RowManifest(s, r.Profile)
	if err != nil || !ok {
		return err
	}
	m, err := manifest.Read(path)
	if err != nil {
		return fmt.Errorf("%s: %w", named, err)
	}
	var want []string
	for _, tc := range m.Testcases {
		if r.Gate == nil || tc.Name == r.Gate.Testcase {
			want = append(want, tc.Dataset)
		}
	}
	if !slices.Contains(want, filepath.ToSlash(r.Dataset.Path)) {
		return fmt.Errorf("dataset.path %q is not the dataset %v of the %s", r.Dataset.Path, want, named)
	}
	return nil
}

// Thresholds reads the testcase's threshold file and checks it against its pin and the sha256
// the evidence recorded.
func (p Pins) Thresholds(m manifest.Manifest, tc manifest.Testcase, recorded string) (manifest.Thresholds, string, error) {
	path := manifest.ThresholdsPath(m, tc.Name)
	rel, err := filepath.Rel(p.Root, path)
	if err != nil {
		rel = path
	}
	th, err := manifest.ReadThresholds(path)
	if err != nil {
		return th, rel, err
	}
	got, err := bundle.FileSHA256(path)
	if err != nil {
		return th, rel, err
	}
	pinned, err := p.Pin(rel)
	if err != nil {
		return th, rel, err
	}
	if got != pinned || got != recorded {
		return th, rel, fmt.Errorf("threshold file sha256 %s, pinned %s in golden/thresholds.sha256, evidence records %s", got, pinned, recorded)
	}
	return th, rel, nil
}

// DeclaredThresholds reads the thresholds the first testcase of the manifest a row was run from
// declares (RowManifest), as the suite read them for its meaning rule.
func (p Pins) DeclaredThresholds(s evidence.Stage, r evidence.Result) workload.ThresholdsReader {
	return func() (manifest.Thresholds, error) {
		path, named, ok, err := p.RowManifest(s, r.Profile)
		if err != nil || !ok {
			return manifest.Thresholds{}, fmt.Errorf("the row's manifest is not pinned (%v)", err)
		}
		m, err := manifest.Read(path)
		if err != nil || len(m.Testcases) == 0 {
			return manifest.Thresholds{}, fmt.Errorf("%s has no testcase (%v)", named, err)
		}
		return workload.DeclaredThresholds(path, m.Testcases[0].Name)()
	}
}

// Pin is the sha256 golden/thresholds.sha256 pins for the repository file rel.
func (p Pins) Pin(rel string) (string, error) {
	data, err := os.ReadFile(filepath.Join(p.Root, "golden", "thresholds.sha256"))
	if err != nil {
		return "", fmt.Errorf("threshold pins: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[1] == filepath.ToSlash(rel) {
			return f[0], nil
		}
	}
	return "", fmt.Errorf("%s has no pin in golden/thresholds.sha256", rel)
}

// GateGroups are the speaker/recording groups of the gate's dataset: the dataset of the gate
// testcase in the manifest the row was run from (rowManifest: a trtmc row's own in the TRTMC
// checkout, never a reference manifest of the same name; a variant row serves nothing, so it
// records no dataset.path), else the row's recorded dataset; nil when there is none.
func (p Pins) GateGroups(s evidence.Stage, r evidence.Result) (map[string]string, error) {
	rel := r.Dataset.Path
	if r.Gate != nil {
		if path, named, ok, err := p.RowManifest(s, r.Profile); err != nil {
			return nil, err
		} else if ok {
			m, err := manifest.Read(path)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", named, err)
			}
			for _, tc := range m.Testcases {
				if tc.Name == r.Gate.Testcase {
					rel = tc.Dataset
				}
			}
		}
	}
	if _, _, _, inline := workload.InlineSource(rel); rel == "" || inline {
		return nil, nil // no dataset file (a testcase's own prompt): no groups
	}
	path, err := workload.InsideDir(p.Root, "dataset.path", rel)
	if err != nil {
		return nil, err
	}
	return dataset.Groups(path)
}

// StoredSource is what the row's stored inputs are checked against. A dataset file must be the
// pinned one and hash to what the evidence records. A testcase's own clip is its testcase's
// name and the recorded sha256 (checkInlineDataset checks the rest: the manifest, the testcase,
// that sha256 against the checkout's clip). Its own prompt stores nothing: it is read from the
// manifest, for AIPerf's inputs.json (ok false when it cannot be: checkInlineDataset says why).
func (p Pins) StoredSource(where string, s evidence.Stage, r evidence.Result, report func(where, format string, args ...any)) (src workload.InputSource, ok bool) {
	if _, name, field, inline := workload.InlineSource(r.Dataset.Path); inline {
		if field != audioField {
			prompt, ok := p.inlinePrompt(s, r)
			return workload.InputSource{OwnPrompt: &prompt}, ok
		}
		if name != filepath.Base(name) || !filepath.IsLocal(name) {
			report(where, "dataset.path %q: testcase %q is not a file name its stored clip can have", r.Dataset.Path, name)
			return workload.InputSource{}, false
		}
		return workload.InputSource{OwnClip: &dataset.ASRClip{ID: name, SHA256: r.Dataset.SHA256}}, true
	}
	if err := p.PinnedDataset(s, r); err != nil {
		report(where, "%v", err)
		return workload.InputSource{}, false
	}
	datasetPath, err := workload.InsideDir(p.Root, "dataset.path", r.Dataset.Path)
	if err != nil {
		report(where, "%v", err)
		return workload.InputSource{}, false
	}
	got, err := bundle.FileSHA256(datasetPath)
	if err != nil || got != r.Dataset.SHA256 {
		report(r.Dataset.Path, "pinned dataset sha256 %s, evidence records %s (%v)", got, r.Dataset.SHA256, err)
		return workload.InputSource{}, false
	}
	return workload.InputSource{DatasetPath: datasetPath}, true
}
