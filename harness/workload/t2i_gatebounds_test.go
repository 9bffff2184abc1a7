package workload

import (
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// A passed image gate's own figures, items and failures must not contradict it: every way one of
// them says fail (each worst figure under its pinned bound, or NaN; an item failed; a failure
// listed) or the worst SSIM is not its items' worst is named, and an honest gate (figures at or above the bounds, "identical" at the
// JSON stand-in for +Inf) is not.
func TestImageGateFailsReadsTheGatesOwnVerdicts(t *testing.T) {
	bounds := map[string]float64{"psnr_min_db": 50, "ssim_min": 0.999, "pixel_std_min": 0.05}
	honest := func() evidence.GateResult {
		return evidence.GateResult{Passed: true, Figures: map[string]float64{"psnr_min_db": 70.5, "ssim_min": 0.9999, "prompts": 2},
			Items: []evidence.GateItem{{ID: "p01", Passed: true, Distance: 0.99995}, {ID: "p02", Passed: true, Distance: 0.9999}}}
	}
	for _, g := range []evidence.GateResult{honest(), func() evidence.GateResult {
		g := honest()
		g.Figures["psnr_min_db"], g.Figures["ssim_min"] = 1.7976931348623157e308, 1
		g.Items[0].Distance, g.Items[1].Distance = 1, 1
		return g
	}(), func() evidence.GateResult { g := honest(); g.Figures["psnr_min_db"] = 50; return g }()} {
		if got := imageGateFails(g.Figures, g, bounds); len(got) != 0 {
			t.Errorf("honest gate %v: %v", g.Figures, got)
		}
	}
	nan := 0.0
	for name, c := range map[string]struct {
		edit func(*evidence.GateResult)
		want string
	}{
		"PSNR under its bound":   {func(g *evidence.GateResult) { g.Figures["psnr_min_db"] = 20.5 }, "psnr_min_db 20.5 is below its pinned bound 50"},
		"SSIM under its bound":   {func(g *evidence.GateResult) { g.Figures["ssim_min"], g.Items[1].Distance = 0.99, 0.99 }, "ssim_min 0.99 is below"},
		"SSIM raised alone":      {func(g *evidence.GateResult) { g.Figures["ssim_min"] = 0.99999 }, "ssim_min 0.99999 is not its items' worst SSIM (distance) 0.9999"},
		"an item's SSIM lowered": {func(g *evidence.GateResult) { g.Items[0].Distance = 0.9995 }, "is not its items' worst SSIM"},
		"PSNR not a number":      {func(g *evidence.GateResult) { g.Figures["psnr_min_db"] = nan / nan }, "psnr_min_db NaN is below"},
		"an item failed":         {func(g *evidence.GateResult) { g.Items[1].Passed, g.Items[1].Detail = false, "PSNR 20.50 dB" }, "gate item p02 did not pass (PSNR 20.50 dB)"},
		"a failure listed":       {func(g *evidence.GateResult) { g.Failures = []string{"prompt p02: PSNR 20.50 dB < 50 dB"} }, "the gate lists 1 failures"},
	} {
		g := honest()
		c.edit(&g)
		got := imageGateFails(g.Figures, g, bounds)
		if len(got) != 1 || !strings.Contains(got[0], c.want) {
			t.Errorf("%s: %v", name, got)
		}
	}
}
