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
	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
)

// pins are the repository's pinned inputs a run is checked against: manifests, threshold files
// (with golden/thresholds.sha256), datasets, reference transcripts and golden images.
type pins struct {
	root string
}

// testcase reads the row's manifest and the gate's testcase from the repository.
func (p pins) testcase(row inventory.Row, name string) (manifest.Manifest, manifest.Testcase, error) {
	path := row.Manifest
	if !filepath.IsAbs(path) {
		path = filepath.Join(p.root, path)
	}
	m, err := manifest.Read(path)
	if err != nil {
		return m, manifest.Testcase{}, fmt.Errorf("pinned manifest: %w", err)
	}
	i := slices.IndexFunc(m.Testcases, func(tc manifest.Testcase) bool { return tc.Name == name })
	if i < 0 {
		return m, manifest.Testcase{}, fmt.Errorf("manifest %s has no testcase %q", m.Path, name)
	}
	return m, m.Testcases[i], nil
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
	var fails []string
	switch stage {
	case inventory.StageASR:
		fails = checkASRGate(p, where, tc, th, r, report)
	case inventory.StageT2I:
		fails = checkT2IGate(p, where, tc, th, r, pairs, report)
	}
	if g.Passed != (len(fails) == 0) {
		report(where, "gate recorded as passed=%v; recomputed figures against the pinned thresholds say %v", g.Passed, orNone(fails))
	}
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
	refScore := metrics.Score(vsRef, metrics.TRTMCFamily(), metrics.UnitCosts())
	goldScore := metrics.Score(vsGold, metrics.GoldWER(), metrics.UnitCosts())
	goldWER, _ := goldScore.WER()
	goldCER, _ := goldScore.CER()
	werRef, _ := refScore.WER()
	got := map[string]float64{"ned_max": refScore.MaxNED(), "gold_wer": goldWER, "gold_cer": goldCER, "wer_vs_reference": werRef, "clips": float64(len(set.Clips))}
	compareGateFigures(where, got, g.Figures, report)
	var fails []string
	if lim, ok := th.Overrides["ned"]; ok && got["ned_max"] > lim {
		fails = append(fails, fmt.Sprintf("ned_max %.4f > %v", got["ned_max"], lim))
	}
	if lim, ok := th.Overrides["gold_wer"]; ok && got["gold_wer"] > lim {
		fails = append(fails, fmt.Sprintf("gold_wer %.4f > %v", got["gold_wer"], lim))
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
	for _, o := range r.Outputs {
		if itemSHA[o.InputID] != o.HTTPOutput {
			report(where, "request %s (prompt %s): served image %s is not the gate's image %s of that prompt", o.RequestID, o.InputID, o.HTTPOutput, itemSHA[o.InputID])
			continue
		}
		golden := filepath.Join(tc.Reference, o.InputID+".png")
		psnr, ssim, err := imageVsGolden(byID[o.RequestID], filepath.Join(p.root, golden))
		if err != nil {
			report(where, "request %s: %v", o.RequestID, err)
			continue
		}
		covered[o.InputID] = true
		worstPSNR, worstSSIM = math.Min(worstPSNR, psnr), math.Min(worstSSIM, ssim)
		if lim := th.Overrides["psnr_min_db"]; psnr < lim {
			fails = append(fails, fmt.Sprintf("%s PSNR %s < %v dB", golden, metrics.FormatPSNR(psnr), lim))
		}
		if lim := th.Overrides["ssim_min"]; ssim < lim {
			fails = append(fails, fmt.Sprintf("%s SSIM %.6f < %v", golden, ssim, lim))
		}
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

// imageVsGolden decodes a served image from the stored response and compares it with a golden
// PNG.
func imageVsGolden(pr join.Pair, golden string) (float64, float64, error) {
	var resp struct {
		Data []struct {
			B64 string `json:"b64_json"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(pr.Client.ResponseBody()), &resp); err != nil || len(resp.Data) != 1 {
		return 0, 0, fmt.Errorf("no single image in the stored response (%v)", err)
	}
	raw, err := base64.StdEncoding.DecodeString(resp.Data[0].B64)
	if err != nil {
		return 0, 0, err
	}
	got, err := metrics.DecodePNG(raw)
	if err != nil {
		return 0, 0, err
	}
	data, err := os.ReadFile(golden)
	if err != nil {
		return 0, 0, fmt.Errorf("golden image: %w", err)
	}
	ref, err := metrics.DecodePNG(data)
	if err != nil {
		return 0, 0, fmt.Errorf("golden image %s: %w", golden, err)
	}
	psnr, err := metrics.PSNR(got, ref)
	if err != nil {
		return 0, 0, err
	}
	ssim, err := metrics.SSIM(got, ref)
	return psnr, ssim, err
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
// the pinned dataset record.
func checkStored(runDir string, p pins, where, stage string, r evidence.Result, report reporter) {
	if r.Bundle.Path != "" && r.Bundle.SHA256Built != "" {
		got, err := bundle.FileSHA256(filepath.Join(runDir, r.Bundle.Path))
		if err != nil || got != r.Bundle.SHA256Built {
			report(r.Bundle.Path, "stored bundle sha256 %s, evidence records %s (%v)", got, r.Bundle.SHA256Built, err)
		}
	}
	if r.Dataset.Path == "" {
		return
	}
	got, err := bundle.FileSHA256(filepath.Join(p.root, r.Dataset.Path))
	if err != nil || got != r.Dataset.SHA256 {
		report(r.Dataset.Path, "pinned dataset sha256 %s, evidence records %s (%v)", got, r.Dataset.SHA256, err)
		return
	}
	if stage != inventory.StageASR || r.AIPerf == nil {
		return
	}
	set, err := dataset.ReadASR(filepath.Join(p.root, r.Dataset.Path))
	if err != nil {
		report(r.Dataset.Path, "%v", err)
		return
	}
	dir := filepath.Join(filepath.Dir(filepath.Join(runDir, r.Records)), "inputs")
	for _, c := range set.Clips {
		rel, _ := filepath.Rel(runDir, filepath.Join(dir, c.ID+".wav"))
		got, err := bundle.FileSHA256(filepath.Join(dir, c.ID+".wav"))
		if err != nil || got != c.SHA256 {
			report(filepath.ToSlash(rel), "stored input sha256 %s, pinned %s in %s (%v)", got, c.SHA256, r.Dataset.Path, err)
		}
	}
}
