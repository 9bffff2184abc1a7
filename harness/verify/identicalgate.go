package verify

import (
	"math"
	"path/filepath"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
	"github.com/trtmc-qual/trtmc-qual/harness/verify/pinned"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// identicalGateCheck: a gate that says its images are identical to the pinned golden images has
// stored items whose images are those images (checkIdenticalGate).
func identicalGateCheck(r *Run) []Problem {
	return r.eachRow(func(row *Row, report reporter) {
		if g := row.Result.Gate; g != nil && claimsIdentical(g) {
			checkIdenticalGate(r.Pins, row, report)
		}
	})
}

// identicalMark is how an image gate item spells a PSNR of +Inf (metrics.FormatPSNR).
const identicalMark = "(identical)"

// claimsIdentical says whether a gate claims an image identical to its golden one anywhere: the
// figure "identical", a worst PSNR at the JSON stand-in for +Inf, or an item's detail.
func claimsIdentical(g *evidence.GateResult) bool {
	if g.Figures["identical"] != 0 || g.Figures["psnr_min_db"] == math.MaxFloat64 {
		return true
	}
	for _, it := range g.Items {
		if strings.Contains(it.Detail, identicalMark) {
			return true
		}
	}
	return false
}

// checkIdenticalGate compares each stored item's image (its pixel sha256, the item's output)
// with the pinned golden PNG of its prompt (<testcase expected>/<id>.png in the repository): an
// item that says identical, or a gate whose figures say every image is, must hold exactly those
// pixels. The figures are otherwise re-derived only from served images (a variant row serves
// none), so without this a variant's gate could be relabelled identical with its items left.
func checkIdenticalGate(p pins, row *Row, report reporter) {
	g := row.Result.Gate
	inv, ok := pinned.InventoryRow(row.Stage, row.Result.Profile)
	if !ok {
		return // inventoryCheck names a row missing from the inventory
	}
	_, tc, err := p.Testcase(inv, g.Testcase)
	if err != nil || tc.Expected == "" {
		report(row.Where, "gate says its images are identical to the golden ones, which cannot be checked: %v", err)
		return
	}
	allSaid := g.Figures["identical"] != 0 || g.Figures["psnr_min_db"] == math.MaxFloat64
	for _, it := range g.Items {
		if !allSaid && !strings.Contains(it.Detail, identicalMark) {
			continue
		}
		golden := filepath.Join(p.Root, filepath.FromSlash(tc.Expected), it.ID+".png")
		sha, err := goldenSHA(golden)
		switch {
		case err != nil:
			report(row.Where, "gate item %s: golden image %s: %v", it.ID, tc.Expected+"/"+it.ID+".png", err)
		case sha != it.Output:
			report(row.Where, "gate says item %s is identical to its golden image, but its image %s is not the golden image %s (%s)", it.ID, it.Output, sha, evidence.RelPath(p.Root, golden))
		}
	}
}

// goldenSHA is the pixel sha256 of a pinned golden PNG (task.ImageSHA256Of, as an item's output).
func goldenSHA(path string) (string, error) {
	data, err := runfile.ReadFile(path)
	if err != nil {
		return "", err
	}
	img, err := runfile.DecodePNG(data)
	if err != nil {
		return "", err
	}
	return task.ImageSHA256Of(img), nil
}
