package verify

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
)

// pins are the repository's pinned inputs a run is checked against: manifests, threshold files
// (with golden/thresholds.sha256), datasets, reference transcripts and golden images.
type pins struct {
	root      string
	trtmcRoot string // the TRTMC checkout the run used ("" unknown)
}

// manifest resolves a profile's manifest among the reference target's pinned manifests
// (native/families/*/manifests/<profile>.json under the repository root), as a slash path
// relative to the root; ok is false when the profile has none (not a reference profile, or a
// name no manifest file can have).
func (p pins) manifest(profile string) (rel string, ok bool, err error) {
	if profile == "" || profile != filepath.Base(profile) || !filepath.IsLocal(profile) || strings.ContainsAny(profile, `*?[\`) {
		return "", false, nil // not a manifest's name (a gap row "gap:org/model", say): not pinned here
	}
	matches, err := filepath.Glob(filepath.Join(p.root, "native", "families", "*", "manifests", profile+".json"))
	if err != nil {
		return "", false, fmt.Errorf("pinned manifests: %w", err)
	}
	switch len(matches) {
	case 0:
		return "", false, nil
	case 1:
		rel, err := filepath.Rel(p.root, matches[0])
		if err != nil {
			return "", false, err
		}
		return filepath.ToSlash(rel), true, nil
	}
	return "", false, fmt.Errorf("profile %s has %d pinned manifests %v", profile, len(matches), matches)
}

// rowManifest is the manifest a row was run from, read where the run read it (the source of its
// clip limits and its dataset): for a trtmc stage the row's inventory manifest, a path relative
// to the TRTMC checkout, under QUAL_TRTMC_ROOT; for any other stage the profile's pinned manifest
// in the repository (ok false when it has none). A TRTMC profile may share a reference profile's
// name, never its manifest. named is the manifest as messages name it.
func (p pins) rowManifest(s evidence.Stage, profile string) (path, named string, ok bool, err error) {
	if !kindOf(s.TargetKind).InCheckout() {
		rel, ok, err := p.manifest(profile)
		if err != nil || !ok {
			return "", "", false, err
		}
		return filepath.Join(p.root, rel), "pinned manifest " + rel, true, nil
	}
	row, ok := inventoryRow(s, profile)
	if !ok {
		return "", "", false, fmt.Errorf("the stage's inventory has no row for profile %s: its manifest in the TRTMC checkout is unknown", profile)
	}
	rel := filepath.ToSlash(row.Manifest)
	root, rootName, err := p.manifestRoot(s, "manifest "+rel)
	if err != nil {
		return "", "", false, err
	}
	if path, err = local(root, "manifest", rel); err != nil {
		return "", "", false, err
	}
	return path, "manifest " + rel + " in " + rootName, true, nil
}

// manifestRoot is where a stage's manifests were read: the repository, or for a trtmc stage the
// TRTMC checkout the run used, QUAL_TRTMC_ROOT (what names the evidence that needs it when unset).
func (p pins) manifestRoot(s evidence.Stage, what string) (root, name string, err error) {
	if !kindOf(s.TargetKind).InCheckout() {
		return p.root, "the repository", nil
	}
	if root = p.trtmcRoot; root == "" {
		return "", "", fmt.Errorf("%s is in the TRTMC checkout the run used: set QUAL_TRTMC_ROOT (make verify TRTMC_ROOT=) to check it", what)
	}
	return root, "QUAL_TRTMC_ROOT", nil
}

// inventoryRow is the stage's inventory row of a profile.
func inventoryRow(s evidence.Stage, profile string) (inventory.Row, bool) {
	i := slices.IndexFunc(s.Inventory, func(row inventory.Row) bool { return row.Profile == profile })
	if i < 0 {
		return inventory.Row{}, false
	}
	return s.Inventory[i], true
}

// testcase reads the row's manifest and the gate's testcase from the repository: the manifest is
// the profile's pinned one, and the inventory row must name that file.
func (p pins) testcase(row inventory.Row, name string) (manifest.Manifest, manifest.Testcase, error) {
	rel, ok, err := p.manifest(row.Profile)
	if err != nil {
		return manifest.Manifest{}, manifest.Testcase{}, err
	}
	if !ok {
		return manifest.Manifest{}, manifest.Testcase{}, fmt.Errorf("profile %s has no pinned manifest under native/families/*/manifests", row.Profile)
	}
	if filepath.ToSlash(row.Manifest) != rel {
		return manifest.Manifest{}, manifest.Testcase{}, fmt.Errorf("inventory manifest %q is not profile %s's pinned manifest %s", row.Manifest, row.Profile, rel)
	}
	m, err := manifest.Read(filepath.Join(p.root, rel))
	if err != nil {
		return m, manifest.Testcase{}, fmt.Errorf("pinned manifest: %w", err)
	}
	i := slices.IndexFunc(m.Testcases, func(tc manifest.Testcase) bool { return tc.Name == name })
	if i < 0 {
		return m, manifest.Testcase{}, fmt.Errorf("manifest %s has no testcase %q", rel, name)
	}
	return m, m.Testcases[i], nil
}

// pinnedDataset requires a row's recorded dataset to be the dataset of its manifest's testcase
// (the gate's, or any testcase's when the row has no gate): a reference profile's pinned
// manifest, a trtmc row's manifest in the TRTMC checkout (rowManifest); the file's sha256 is then
// checked against the repository's copy, where the run read it (workload.DatasetOf).
func (p pins) pinnedDataset(s evidence.Stage, r evidence.Result) error {
	path, named, ok, err := p.rowManifest(s, r.Profile)
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

// thresholds reads the testcase's threshold file and checks it against its pin and the sha256
// the evidence recorded.
func (p pins) thresholds(m manifest.Manifest, tc manifest.Testcase, recorded string) (manifest.Thresholds, string, error) {
	path := manifest.ThresholdsPath(m, tc.Name)
	rel, err := filepath.Rel(p.root, path)
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
	pinned, err := p.pin(rel)
	if err != nil {
		return th, rel, err
	}
	if got != pinned || got != recorded {
		return th, rel, fmt.Errorf("threshold file sha256 %s, pinned %s in golden/thresholds.sha256, evidence records %s", got, pinned, recorded)
	}
	return th, rel, nil
}

func (p pins) pin(rel string) (string, error) {
	data, err := os.ReadFile(filepath.Join(p.root, "golden", "thresholds.sha256"))
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

// checkGate recomputes the gate's figures from what the run stored and the pinned inputs, and
// its verdict from those figures and the pinned thresholds.
func checkGate(p pins, where, stage string, row inventory.Row, r evidence.Result, pairs []join.Pair, report reporter) {
	if r.Gate == nil {
		return
	}
	g := r.Gate
	m, tc, err := p.testcase(row, g.Testcase)
	if err != nil {
		report(where, "gate not recomputable: %v", err)
		return
	}
	th, thPath, err := p.thresholds(m, tc, r.ThresholdPin)
	if err != nil {
		report(thPath, "%v", err)
		return
	}
	if !sameFloats(th.Overrides, g.Thresholds) {
		report(where, "gate thresholds %v differ from the pinned %s %v", sortedFloats(g.Thresholds), thPath, sortedFloats(th.Overrides))
	}
	w, err := workload.Get(stage)
	recheck, ok := w.(workload.GateRechecker)
	if err != nil || !ok {
		return // no recomputation defined for this stage's gate yet: thresholds checked above
	}
	fails, found := recheck.RecheckGate(workload.GateRecheck{Root: p.root, Where: where, Testcase: tc, Thresholds: th, Result: r, Pairs: pairs})
	reportFindings(found, report)
	if g.Passed != (len(fails) == 0) {
		report(where, "gate recorded as passed=%v; recomputed figures against the pinned thresholds say %v", g.Passed, orNone(fails))
	}
}

func sameFloats(a, b map[string]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func sortedNames(m map[string]float64) []string { return slices.Sorted(maps.Keys(m)) }

func sortedFloats(m map[string]float64) string {
	var parts []string
	for _, k := range sortedNames(m) {
		parts = append(parts, fmt.Sprintf("%s=%v", k, m[k]))
	}
	return "{" + strings.Join(parts, " ") + "}"
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "pass"
	}
	return "fail: " + strings.Join(s, "; ")
}

// checkStored re-hashes the stored bundle and input files against the sha256 the evidence and
// the pinned dataset record (a TRTMC testcase's own clip: the sha256 the evidence records for
// it), and runs the stage's admission recheck on the same inputs.
func checkStored(runDir string, p pins, where string, s evidence.Stage, r evidence.Result, report reporter) {
	if r.Bundle.Path != "" && r.Bundle.SHA256Built != "" {
		path, err := local(runDir, "bundle.path", r.Bundle.Path)
		got := ""
		if err == nil {
			got, err = bundle.FileSHA256(path)
		}
		if err != nil || got != r.Bundle.SHA256Built {
			report(r.Bundle.Path, "stored bundle sha256 %s, evidence records %s (%v)", got, r.Bundle.SHA256Built, err)
		}
	}
	if r.Dataset.Path == "" {
		return
	}
	src, ok := storedSource(p, where, s, r, report)
	if !ok {
		return
	}
	w, err := workload.Get(s.Stage)
	if err != nil {
		return // checkServed reports an unknown stage
	}
	stored := workload.StoredInputs{RunDir: runDir, Root: p.root, Where: where, Source: src, Result: r}
	checkAdmission(p, stored, s, report)
	if c, ok := w.(workload.StoredInputChecker); ok && r.AIPerf != nil {
		reportFindings(c.CheckStoredInputs(stored), report)
	}
}

// storedSource is what the row's stored inputs are checked against. A dataset file must be the
// pinned one and hash to what the evidence records. A testcase's own clip is its testcase's
// name and the recorded sha256 (checkInlineDataset checks the rest: the manifest, the testcase,
// that sha256 against the checkout's clip). Its own prompt stores nothing: it is read from the
// manifest, for AIPerf's inputs.json (ok false when it cannot be: checkInlineDataset says why).
func storedSource(p pins, where string, s evidence.Stage, r evidence.Result, report reporter) (src workload.InputSource, ok bool) {
	if _, name, field, inline := workload.InlineSource(r.Dataset.Path); inline {
		if field != audioField {
			prompt, ok := inlinePrompt(p, s, r)
			return workload.InputSource{OwnPrompt: &prompt}, ok
		}
		if name != filepath.Base(name) || !filepath.IsLocal(name) {
			report(where, "dataset.path %q: testcase %q is not a file name its stored clip can have", r.Dataset.Path, name)
			return workload.InputSource{}, false
		}
		return workload.InputSource{OwnClip: &dataset.ASRClip{ID: name, SHA256: r.Dataset.SHA256}}, true
	}
	if err := p.pinnedDataset(s, r); err != nil {
		report(where, "%v", err)
		return workload.InputSource{}, false
	}
	datasetPath, err := local(p.root, "dataset.path", r.Dataset.Path)
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

// reportFindings passes on what a workload's re-check found.
func reportFindings(found []workload.Finding, report reporter) {
	for _, f := range found {
		report(f.Where, "%s", f.What)
	}
}
