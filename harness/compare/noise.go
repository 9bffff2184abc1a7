package compare

import (
	"fmt"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/stats/schema"
)

// NoiseFloor is, for one checkpoint, the speedup a same-build A/A comparison shows: what two
// runs of one build differ by on the machine that ran them, printed beside the light it puts in
// proportion (a light inside the noise floor says little, whatever its colour).
type NoiseFloor struct {
	Runs  string         `json:"runs"` // the A/A pair's run ids
	S     float64        `json:"speedup,omitempty"`
	CI    *schema.Bounds `json:"ci,omitempty"`
	Error string         `json:"error,omitempty"`
}

const noiseFloorRule = "the same speedup (base/new, 90% Welch interval of run medians) between two runs of one build (--noise-floor A1,A2, ideally on an idle machine); a light whose interval lies inside it is within this machine's noise"

// addNoiseFloor compares the A/A pair given as "A1,A2" ("" for none) and puts each row's A/A
// speedup beside its light. The pair must be one build: otherwise it measures a change, not noise.
func addNoiseFloor(c *Comparison, pair string) error {
	if pair == "" {
		c.Rules["noise floor"] = "not measured: give two runs of one build with --noise-floor A1,A2"
		return nil
	}
	dirs := strings.Split(pair, ",")
	if len(dirs) != 2 {
		return fmt.Errorf("%w: --noise-floor %q: want two runs of one build, A1,A2", ErrUsage, pair)
	}
	a, err := evidence.Read(dirs[0])
	if err != nil {
		return fmt.Errorf("%w: noise floor: %w", ErrUsage, err)
	}
	b, err := evidence.Read(dirs[1])
	if err != nil {
		return fmt.Errorf("%w: noise floor: %w", ErrUsage, err)
	}
	if buildOf(a) != buildOf(b) {
		return fmt.Errorf("%w: --noise-floor runs %s and %s are different builds (%+v, %+v): an A/A pair is one build", ErrUsage, a.RunID, b.RunID, buildOf(a), buildOf(b))
	}
	aa := map[string]RowComparison{}
	for _, r := range compareRuns(a, b).Rows {
		aa[r.Stage+"/"+r.Profile] = r
	}
	runs := a.RunID + " vs " + b.RunID
	for i := range c.Rows {
		r := &c.Rows[i]
		nf := &NoiseFloor{Runs: runs}
		switch x, ok := aa[r.Stage+"/"+r.Profile]; {
		case !ok:
			nf.Error = "not in the A/A runs"
		case x.Performance == nil:
			nf.Error = x.PerfError
		default:
			nf.S, nf.CI = x.Performance.S, x.Performance.CI
		}
		r.NoiseFloor = nf
	}
	c.Rules["noise floor"] = noiseFloorRule
	return nil
}

func noiseCell(r RowComparison) string {
	nf := r.NoiseFloor
	switch {
	case nf == nil:
		return "–"
	case nf.Error != "":
		return "– (" + nf.Error + ")"
	case nf.CI == nil:
		return fmt.Sprintf("%.3f (no interval)", nf.S)
	}
	return fmt.Sprintf("%.3f [%.3f, %.3f]", nf.S, nf.CI.Lower, nf.CI.Upper)
}
