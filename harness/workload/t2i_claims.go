package workload

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/metrics"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
)

// GateFigures derives PSNR and SSIM of the served images (checkT2IGate).
func (t2i) GateFigures(in GateInputs) (map[string]float64, []string, []Finding) {
	var found findings
	figures, fails := checkT2IGate(in.Root, in.Where, in.Testcase, in.Thresholds, in.Result, in.Pairs, found.add)
	if g := in.Result.Gate; g != nil {
		fails = append(fails, imageGateFails(figures, *g, in.Thresholds.Overrides)...)
	}
	return figures, fails, found
}

// imageGateFails applies the pinned bounds to the gate's worst figures, which are its items'
// worst (ssim_min is the least item distance), and reads its own verdicts: the family passes a gate only when every item passed and it lists no failure
// (native/families/procdiff gate.go). The served images re-derive the figures of the prompts
// a row served; a figure of prompts it did not serve (a variant row serves none) is the
// gate's, and a gate that says it passed must at least not contradict it.
func imageGateFails(figures map[string]float64, g evidence.GateResult, bounds map[string]float64) []string {
	var fails []string
	for _, k := range []string{"psnr_min_db", "ssim_min"} { // worst figures, each with the pinned lower bound of its name
		v, have := figures[k]
		bound, pinned := bounds[k]
		if have && pinned && !(v >= bound) {
			fails = append(fails, fmt.Sprintf("gate figure %s %v is below its pinned bound %v", k, v, bound))
		}
	}
	worstItem := math.Inf(1)
	for _, it := range g.Items {
		if !it.Passed {
			fails = append(fails, fmt.Sprintf("gate item %s did not pass (%s)", it.ID, it.Detail))
		}
		worstItem = math.Min(worstItem, it.Distance) // the family's item distance is its SSIM
	}
	if v, ok := figures["ssim_min"]; ok && len(g.Items) > 0 && v != worstItem {
		fails = append(fails, fmt.Sprintf("gate figure ssim_min %v is not its items' worst SSIM (distance) %v", v, worstItem))
	}
	if len(g.Failures) > 0 {
		fails = append(fails, fmt.Sprintf("the gate lists %d failures: %s", len(g.Failures), strings.Join(g.Failures, "; ")))
	}
	return fails
}

// CheckStoredInputs ties AIPerf's inputs.json to the prompts (checkT2ISent).
func (t2i) CheckStoredInputs(in StoredInputs) []Finding {
	var found findings
	checkT2ISent(in.RunDir, in.Source, in.Where, in.Result, found.add)
	return found
}

// InputSHA derives an image request's identity as the server did: its payload completed with
// the defaults of the family that served it.
func (t2i) InputSHA(defaults ImageDefaults) (func(map[string]any) (string, error), error) {
	spec, err := defaults()
	if err != nil {
		return nil, err
	}
	return func(payload map[string]any) (string, error) { return ImagePayloadSHA(payload, spec) }, nil
}

// checkT2IGate recomputes PSNR and SSIM of every served image against the pinned golden PNG of
// its prompt (the served requests use the gate's settings, so each served image is the gate's
// image of that prompt, which the item's pixel hash confirms).
func checkT2IGate(root string, where string, tc manifest.Testcase, th manifest.Thresholds, r evidence.Result, pairs []join.Pair, report reporter) (map[string]float64, []string) {
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
	prompts, err := dataset.ReadPrompts(filepath.Join(root, tc.Dataset))
	if err != nil {
		report(where, "gate not recomputable: pinned prompts %s: %v", tc.Dataset, err)
		return g.Figures, []string{"prompts unreadable"}
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
		golden := filepath.Join(tc.Expected, o.InputID+".png")
		img, ref, err := imageAndGolden(byID[o.RequestID], filepath.Join(root, golden))
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
	// minima bound the gate's from above, and equal them when every prompt was served: a recorded
	// figure the served images bound is kept, any other is the served images' minimum.
	figures := maps.Clone(g.Figures)
	for _, f := range []struct {
		name string
		got  float64
	}{{"psnr_min_db", worstPSNR}, {"ssim_min", worstSSIM}} {
		rec, ok := g.Figures[f.name]
		switch {
		case len(covered) == 0:
		case !ok, len(covered) == len(g.Items) && !closeTo(rec, f.got), rec > f.got*(1+1e-12):
			if figures == nil {
				figures = map[string]float64{}
			}
			figures[f.name] = f.got
		}
	}
	return figures, fails
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

// checkT2ISent ties a T2I row's AIPerf inputs.json to its prompts: the pinned prompts file's, or
// the one its TRTMC testcase carries.
func checkT2ISent(runDir string, src InputSource, where string, r evidence.Result, report reporter) {
	prompts, err := src.prompts()
	if err != nil {
		report(r.Dataset.Path, "%v", err)
		return
	}
	want := map[string]payloadCheck{}
	for _, p := range prompts {
		want[p.ID] = promptPayload(p)
	}
	checkSessions(runDir, where, r, want, "prompt", report)
}

// promptPayload: an images request carries its prompt's text, seed and negative prompt (none when
// the prompt has none), as workload's t2i AIPerf rows give them.
func promptPayload(p dataset.Prompt) payloadCheck {
	return func(payload map[string]any) string {
		var diffs []string
		if got := payloadText(payload["prompt"]); got != p.Prompt {
			diffs = append(diffs, fmt.Sprintf("prompt %q, pinned %q", got, p.Prompt))
		}
		if got := payloadText(payload["seed"]); got != strconv.FormatInt(p.Seed, 10) {
			diffs = append(diffs, fmt.Sprintf("seed %s, pinned %d", orNoValue(got), p.Seed))
		}
		if got := payloadText(payload["negative_prompt"]); got != p.NegativePrompt {
			diffs = append(diffs, fmt.Sprintf("negative_prompt %q, pinned %q", got, p.NegativePrompt))
		}
		return strings.Join(diffs, "; ")
	}
}
