package verify

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/metrics"
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
	recheck := rechecks[workload.Stage(stage)].gate
	if recheck == nil {
		return // no recomputation defined for this stage's gate yet: thresholds checked above
	}
	fails := recheck(p, where, tc, th, r, pairs, report)
	if g.Passed != (len(fails) == 0) {
		report(where, "gate recorded as passed=%v; recomputed figures against the pinned thresholds say %v", g.Passed, orNone(fails))
	}
}

// recheck is how verify re-checks one workload's gate and stored inputs offline, registered by
// the workload registry's stage (no decision by stage name: a stage without an entry gets its
// thresholds checked and nothing recomputed).
type recheck struct {
	gate         func(p pins, where string, tc manifest.Testcase, th manifest.Thresholds, r evidence.Result, pairs []join.Pair, report reporter) []string
	storedInputs func(runDir string, p pins, src inputSource, where string, r evidence.Result, report reporter)                   // the stored inputs and AIPerf's inputs.json (sent.go)
	admission    func(runDir string, p pins, src inputSource, where string, s evidence.Stage, r evidence.Result, report reporter) // #12 clip limits (skipped.go)
	inputSHA     func(runDir string, r evidence.Result) (deriveSHA, error)                                                        // how a row's requests' input_sha256 follow from their payloads (inputhash.go)
}

// inputSource is what a row's stored inputs are checked against: its pinned dataset file (the
// path in the repository, re-hashed by checkStored), or the one clip a TRTMC testcase carries
// itself (test_input_audio), sent under the testcase's name, with the sha256 the evidence records
// for it (checkInputAudio ties that sha256 to the clip in the checkout), or the one prompt a
// TRTMC testcase carries itself (test_prompt or prompt), read from its manifest in the checkout.
type inputSource struct {
	datasetPath string
	ownClip     *dataset.ASRClip
	ownPrompt   *dataset.Prompt
}

// asr is the source's clips: the pinned dataset's, or the testcase's own clip alone.
func (s inputSource) asr() (dataset.ASRSet, error) {
	if s.ownClip != nil {
		return dataset.ASRSet{Clips: []dataset.ASRClip{*s.ownClip}}, nil
	}
	if s.ownPrompt != nil {
		return dataset.ASRSet{}, fmt.Errorf("the row's input is its testcase's prompt %s, not audio clips", s.ownPrompt.ID)
	}
	return dataset.ReadASR(s.datasetPath)
}

// prompts is the source's text-to-image prompts: the pinned dataset's, or the testcase's own.
func (s inputSource) prompts() ([]dataset.Prompt, error) {
	if s.ownPrompt != nil {
		return []dataset.Prompt{*s.ownPrompt}, nil
	}
	if s.ownClip != nil {
		return nil, fmt.Errorf("the row's input is its testcase's clip %s, not prompts", s.ownClip.ID)
	}
	return dataset.ReadPrompts(s.datasetPath)
}

// qaPairs is the source's audio questions: the pinned QA pairs file's (a testcase carries none).
func (s inputSource) qaPairs() ([]dataset.QAPair, error) {
	if s.ownClip != nil || s.ownPrompt != nil {
		return nil, fmt.Errorf("the row's input is its testcase's own, not a pinned QA pairs file")
	}
	return dataset.ReadQAPairs(s.datasetPath)
}

var rechecks = map[workload.Stage]recheck{
	workload.ASR: {
		gate: func(p pins, where string, tc manifest.Testcase, th manifest.Thresholds, r evidence.Result, _ []join.Pair, report reporter) []string {
			return checkASRGate(p, where, tc, th, r, report)
		},
		storedInputs: checkASRInputs,
		admission:    checkAdmission,
		inputSHA:     fromPayload(workload.UploadedClipSHA),
	},
	workload.T2I:     {gate: checkT2IGate, storedInputs: checkT2ISent, inputSHA: imageInputSHA},
	workload.AudioQA: {gate: checkAudioQAGate, storedInputs: checkAudioQAInputs, inputSHA: fromPayload(qaInputSHA)},
}

// referenceNormalizer is how a family compares its transcript with the upstream reference
// (sphinx after TRTMC's family normalizer, whisper exactly); unknown families get only the
// gold-text figures recomputed.
func referenceNormalizer(family string) (metrics.Normalizer, bool) {
	switch family {
	case "sphinx":
		return metrics.TRTMCFamily(), true
	case "whisper":
		return metrics.Identity(), true
	}
	return metrics.Normalizer{}, false
}

// checkASRGate recomputes NED to the upstream reference and WER/CER to the gold text from the
// gate's stored transcripts, requires those references to be the pinned ones, and ties every
// served transcript to the gate's transcript of the same clip.
func checkASRGate(p pins, where string, tc manifest.Testcase, th manifest.Thresholds, r evidence.Result, report reporter) []string {
	g := r.Gate
	set, err := dataset.ReadASR(filepath.Join(p.root, tc.Dataset))
	if err != nil {
		report(where, "gate not recomputable: %v", err)
		return []string{"dataset unreadable"}
	}
	refs, err := readReferences(filepath.Join(p.root, tc.Reference))
	if err != nil {
		report(tc.Reference, "%v", err)
		return []string{"references unreadable"}
	}
	gold := map[string]string{}
	for _, c := range set.Clips {
		gold[c.ID] = c.Gold
	}
	native := map[string]string{}
	var vsRef, vsGold []metrics.Pair
	for _, it := range g.Items {
		if refs[it.ID] != it.Reference || gold[it.ID] != it.Gold {
			report(where, "gate clip %s: stored reference %q / gold %q are not the pinned %s %q / %s %q", it.ID, it.Reference, it.Gold, tc.Reference, refs[it.ID], tc.Dataset, gold[it.ID])
		}
		native[it.ID] = it.Output
		vsRef = append(vsRef, metrics.Pair{ID: it.ID, Reference: refs[it.ID], Hyp: it.Output})
		vsGold = append(vsGold, metrics.Pair{ID: it.ID, Reference: gold[it.ID], Hyp: it.Output})
	}
	if len(g.Items) != len(set.Clips) {
		report(where, "gate has %d clips, the pinned dataset %s has %d", len(g.Items), tc.Dataset, len(set.Clips))
	}
	var fails []string
	got := map[string]float64{"clips": float64(len(set.Clips))}
	uncomputable := map[string]bool{}
	figure := func(name string, v float64, err error) {
		if err != nil {
			report(where, "gate figure %s not computable from the stored transcripts: %v", name, err)
			fails = append(fails, name+" not computable")
			uncomputable[name] = true
			return
		}
		got[name] = v
	}
	goldScore := metrics.Score(vsGold, metrics.GoldWER(), metrics.UnitCosts())
	goldWER, err := goldScore.WER()
	figure("gold_wer", goldWER, err)
	goldCER, err := goldScore.CER()
	figure("gold_cer", goldCER, err)
	if norm, ok := referenceNormalizer(g.Family); ok {
		refScore := metrics.Score(vsRef, norm, metrics.UnitCosts())
		got["ned_max"] = refScore.MaxNED()
		refWER, err := refScore.WER()
		figure("wer_vs_reference", refWER, err)
	}
	compareGateFigures(where, got, g.Figures, report)
	// Every ASR bound is an upper bound on a figure ("ned" bounds ned_max); a figure this
	// package cannot recompute (a family's own normalizer) is taken as recorded, and a pinned
	// bound on a figure neither recomputed nor recorded fails.
	for _, k := range sortedNames(th.Overrides) {
		fig := k
		if k == "ned" {
			fig = "ned_max"
		}
		if uncomputable[fig] {
			continue // failed above
		}
		v, ok := got[fig]
		if !ok {
			v, ok = g.Figures[fig]
		}
		switch {
		case !ok:
			report(where, "pinned bound %s (%v): gate figure %s neither recomputed nor recorded", k, th.Overrides[k], fig)
			fails = append(fails, fmt.Sprintf("%s missing", fig))
		case v > th.Overrides[k]:
			fails = append(fails, fmt.Sprintf("%s %.4f > %v", fig, v, th.Overrides[k]))
		}
	}
	for _, o := range r.Outputs {
		want, ok := native[o.InputID]
		if !ok || o.HTTPOutput != want || o.Gold != gold[o.InputID] {
			report(where, "request %s (clip %s): served transcript %q with gold %q; the gate's transcript of that clip is %q and the pinned gold %q",
				o.RequestID, o.InputID, o.HTTPOutput, o.Gold, want, gold[o.InputID])
		}
	}
	return fails
}

// checkT2IGate recomputes PSNR and SSIM of every served image against the pinned golden PNG of
// its prompt (the served requests use the gate's settings, so each served image is the gate's
// image of that prompt, which the item's pixel hash confirms).
func checkT2IGate(p pins, where string, tc manifest.Testcase, th manifest.Thresholds, r evidence.Result, pairs []join.Pair, report reporter) []string {
	g := r.Gate
	itemSHA := map[string]string{}
	for _, it := range g.Items {
		itemSHA[it.ID] = it.Output
	}
	byID := map[string]join.Pair{}
	for _, pr := range pairs {
		byID[pr.ID] = pr
	}
	worstPSNR, worstSSIM := math.Inf(1), 1.0
	covered := map[string]bool{}
	var fails []string
	prompts, err := dataset.ReadPrompts(filepath.Join(p.root, tc.Dataset))
	if err != nil {
		report(where, "gate not recomputable: pinned prompts %s: %v", tc.Dataset, err)
		return []string{"prompts unreadable"}
	}
	pinned := map[string]bool{}
	for _, pr := range prompts {
		pinned[pr.ID] = true
	}
	for _, o := range r.Outputs {
		if !pinned[o.InputID] {
			report(where, "request %s: input_id %q is not a prompt id pinned in %s", o.RequestID, o.InputID, tc.Dataset)
			fails = append(fails, fmt.Sprintf("input_id %q not pinned", o.InputID))
			continue
		}
		if itemSHA[o.InputID] != o.HTTPOutput {
			report(where, "request %s (prompt %s): served image %s is not the gate's image %s of that prompt", o.RequestID, o.InputID, o.HTTPOutput, itemSHA[o.InputID])
			continue
		}
		golden := filepath.Join(tc.Reference, o.InputID+".png")
		img, ref, err := imageAndGolden(byID[o.RequestID], filepath.Join(p.root, golden))
		var psnr, ssim float64
		if err == nil {
			if psnr, err = metrics.PSNR(img, ref); err == nil {
				ssim, err = metrics.SSIM(img, ref)
			}
		}
		if err != nil {
			report(where, "request %s: %v", o.RequestID, err)
			continue
		}
		covered[o.InputID] = true
		worstPSNR, worstSSIM = math.Min(worstPSNR, psnr), math.Min(worstSSIM, ssim)
		fails = append(fails, imageFails(golden, psnr, ssim, img, ref, th.Overrides)...)
	}
	if len(covered) == 0 && r.Status == evidence.StatusQualified {
		// An aiperf-qualified row claims its served images met the gate; with none recomputed,
		// nothing would. (A family-validated reduced or variant row serves nothing by design.)
		report(where, "gate not recomputed: no served images")
		fails = append(fails, "no served images")
	}
	if math.IsInf(worstPSNR, 1) && len(covered) > 0 {
		worstPSNR = math.MaxFloat64 // as the gate stores "identical"
	}
	// The gate's figures are minima over every prompt; the served prompts are a subset, so their
	// minima bound the gate's from above, and equal them when every prompt was served.
	for _, f := range []struct {
		name string
		got  float64
	}{{"psnr_min_db", worstPSNR}, {"ssim_min", worstSSIM}} {
		rec, ok := g.Figures[f.name]
		switch {
		case len(covered) == 0:
		case !ok:
			report(where, "gate figure %s missing", f.name)
		case len(covered) == len(g.Items) && !closeTo(rec, f.got):
			report(where, "gate figure %s recomputed %v from the served images vs the golden PNGs, evidence says %v", f.name, f.got, rec)
		case rec > f.got*(1+1e-12):
			report(where, "gate figure %s = %v, but served images reach only %v against the golden PNGs", f.name, rec, f.got)
		}
	}
	return fails
}

// imageAndGolden decodes a served image from the stored response and the golden PNG.
func imageAndGolden(pr join.Pair, golden string) (metrics.Planes, metrics.Planes, error) {
	var resp struct {
		Data []struct {
			B64 string `json:"b64_json"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(pr.Client.ResponseBody()), &resp); err != nil || len(resp.Data) != 1 {
		return metrics.Planes{}, metrics.Planes{}, fmt.Errorf("no single image in the stored response (%v)", err)
	}
	raw, err := base64.StdEncoding.DecodeString(resp.Data[0].B64)
	if err != nil {
		return metrics.Planes{}, metrics.Planes{}, err
	}
	img, err := metrics.DecodePNG(raw)
	if err != nil {
		return metrics.Planes{}, metrics.Planes{}, err
	}
	data, err := os.ReadFile(golden)
	if err != nil {
		return metrics.Planes{}, metrics.Planes{}, fmt.Errorf("golden image: %w", err)
	}
	ref, err := metrics.DecodePNG(data)
	if err != nil {
		return metrics.Planes{}, metrics.Planes{}, fmt.Errorf("golden image %s: %w", golden, err)
	}
	return img, ref, nil
}

// imageFails applies the procdiff gate's bounds that are present in the thresholds: PSNR and
// SSIM to the golden image, then TRTMC's diffusion sanity bounds.
func imageFails(golden string, psnr, ssim float64, img, ref metrics.Planes, lim map[string]float64) []string {
	var fails []string
	bound := func(k string) (float64, bool) { v, ok := lim[k]; return v, ok }
	if v, ok := bound("psnr_min_db"); ok && psnr < v {
		fails = append(fails, fmt.Sprintf("%s PSNR %s < %v dB", golden, metrics.FormatPSNR(psnr), v))
	}
	if v, ok := bound("ssim_min"); ok && ssim < v {
		fails = append(fails, fmt.Sprintf("%s SSIM %.6f < %v", golden, ssim, v))
	}
	st, refSt := metrics.PixelStats(img), metrics.PixelStats(ref)
	if v, ok := bound("pixel_mean_min"); ok && st.Mean < v {
		fails = append(fails, fmt.Sprintf("%s pixel mean %.3f < %v", golden, st.Mean, v))
	}
	if v, ok := bound("pixel_mean_max"); ok && st.Mean > v {
		fails = append(fails, fmt.Sprintf("%s pixel mean %.3f > %v", golden, st.Mean, v))
	}
	if v, ok := bound("pixel_std_min"); ok && st.Std < v {
		fails = append(fails, fmt.Sprintf("%s pixel std %.3f < %v", golden, st.Std, v))
	}
	if v, ok := bound("std_ratio_min"); ok && refSt.Std >= lim["std_ratio_applies_above"] && metrics.StdRatio(img, ref) < v {
		fails = append(fails, fmt.Sprintf("%s std ratio %.3f < %v", golden, metrics.StdRatio(img, ref), v))
	}
	return fails
}

// readReferences reads the upstream reference transcripts by clip id (the sphinx family's
// reference file; read here rather than through the family, which needs cgo).
func readReferences(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("pinned references: %w", err)
	}
	var refs struct {
		Transcripts []struct {
			ID   string `json:"id"`
			Text string `json:"text"`
		} `json:"transcripts"`
	}
	if err := json.Unmarshal(data, &refs); err != nil {
		return nil, fmt.Errorf("pinned references %s: %w", path, err)
	}
	out := map[string]string{}
	for _, t := range refs.Transcripts {
		out[t.ID] = t.Text
	}
	return out, nil
}

func compareGateFigures(where string, got, rec map[string]float64, report reporter) {
	for _, name := range sortedNames(got) {
		if v, ok := rec[name]; !ok || !closeTo(v, got[name]) {
			report(where, "gate figure %s recomputed %v from the stored outputs and pinned references, evidence says %v", name, got[name], v)
		}
	}
}

func closeTo(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

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
	if admission := rechecks[workload.Stage(s.Stage)].admission; admission != nil {
		admission(runDir, p, src, where, s, r, report)
	}
	if inputs := rechecks[workload.Stage(s.Stage)].storedInputs; inputs != nil && r.AIPerf != nil {
		inputs(runDir, p, src, where, r, report)
	}
}

// storedSource is what the row's stored inputs are checked against. A dataset file must be the
// pinned one and hash to what the evidence records. A testcase's own clip is its testcase's
// name and the recorded sha256 (checkInlineDataset checks the rest: the manifest, the testcase,
// that sha256 against the checkout's clip). Its own prompt stores nothing: it is read from the
// manifest, for AIPerf's inputs.json (ok false when it cannot be: checkInlineDataset says why).
func storedSource(p pins, where string, s evidence.Stage, r evidence.Result, report reporter) (src inputSource, ok bool) {
	if _, name, field, inline := workload.InlineSource(r.Dataset.Path); inline {
		if field != audioField {
			prompt, ok := inlinePrompt(p, s, r)
			return inputSource{ownPrompt: &prompt}, ok
		}
		if name != filepath.Base(name) || !filepath.IsLocal(name) {
			report(where, "dataset.path %q: testcase %q is not a file name its stored clip can have", r.Dataset.Path, name)
			return inputSource{}, false
		}
		return inputSource{ownClip: &dataset.ASRClip{ID: name, SHA256: r.Dataset.SHA256}}, true
	}
	if err := p.pinnedDataset(s, r); err != nil {
		report(where, "%v", err)
		return inputSource{}, false
	}
	datasetPath, err := local(p.root, "dataset.path", r.Dataset.Path)
	if err != nil {
		report(where, "%v", err)
		return inputSource{}, false
	}
	got, err := bundle.FileSHA256(datasetPath)
	if err != nil || got != r.Dataset.SHA256 {
		report(r.Dataset.Path, "pinned dataset sha256 %s, evidence records %s (%v)", got, r.Dataset.SHA256, err)
		return inputSource{}, false
	}
	return inputSource{datasetPath: datasetPath}, true
}

// storedInputsDir is the row's inputs/ directory beside its server records, where the run keeps
// the inputs it sent; false (reported) when the records path is not inside the run.
func storedInputsDir(runDir, where string, r evidence.Result, report reporter) (string, bool) {
	recordsPath, err := local(runDir, "records", r.Records)
	if err != nil {
		report(where, "%v", err)
		return "", false
	}
	return filepath.Join(filepath.Dir(recordsPath), "inputs"), true
}

// checkASRInputs re-hashes the stored WAV inputs beside the server records against the pinned
// dataset's clips (or the testcase's own clip, against the sha256 the evidence records for it).
func checkASRInputs(runDir string, _ pins, src inputSource, where string, r evidence.Result, report reporter) {
	set, err := src.asr()
	if err != nil {
		report(r.Dataset.Path, "%v", err)
		return
	}
	dir, ok := storedInputsDir(runDir, where, r, report)
	if !ok {
		return
	}
	for _, c := range set.Clips {
		rel, _ := filepath.Rel(runDir, filepath.Join(dir, c.ID+".wav"))
		got, err := bundle.FileSHA256(filepath.Join(dir, c.ID+".wav"))
		switch {
		case err != nil:
			report(filepath.ToSlash(rel), "stored input pinned in %s cannot be read: %v", r.Dataset.Path, err)
		case got != c.SHA256:
			report(filepath.ToSlash(rel), "stored input sha256 %s, pinned %s in %s", got, c.SHA256, r.Dataset.Path)
		}
	}
}
