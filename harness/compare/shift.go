package compare

import (
	"fmt"
	"math"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
	"github.com/trtmc-qual/trtmc-qual/harness/stats"
)

// minRuns is benchstat's minimum of runs a side before it trusts a comparison.
const minRuns = 6

// addTaskShifts adds to each compared row the stratified shift of its per-request Task time on a
// log scale (ln of the server's model_call_ms of every measured request, read from each run's
// server records), each request compared only with requests of the same input: a slowdown
// scales each input's cost, and the spread between inputs is not noise.
func addTaskShifts(c *Comparison, baseDir, newDir string, base, cand evidence.Evidence) {
	b, n := rowsByKey(base), rowsByKey(cand)
	for i := range c.Rows {
		row := &c.Rows[i]
		k := rowKey{row.Stage, row.Profile}
		bt, bErr := taskTimes(baseDir, b[k])
		nt, nErr := taskTimes(newDir, n[k])
		if bErr != nil || nErr != nil {
			row.TaskShiftError = sideErrors(bErr, nErr)
			continue
		}
		sh, inputs, err := stats.StratifiedShift(bt, nt, stats.SpeedupLevel)
		if err != nil {
			row.TaskShiftError = err.Error()
			continue
		}
		row.TaskShift, row.TaskInputs, row.TaskShiftDetectable = &sh, inputs, shiftDetectable(sh)
	}
}

// shiftDetectable is the smallest slowdown the shift's spread lets it establish (0 without an
// interval): its interval of ln(new/base) moves with the shift and keeps its half-width h, so
// an interval centred on the shift clears ln(1/RedBelow) once the slowdown passes e^h/RedBelow − 1.
func shiftDetectable(sh stats.Shift) float64 {
	if sh.TooFew {
		return 0
	}
	return math.Exp((sh.CI.Upper-sh.CI.Lower)/2)/stats.RedBelow - 1
}

// taskShiftDecidesRule states, beside the shift's estimator, what it is taken of, when it makes
// a row slower and what "detectable slowdown by the Task shift" means: the Why lines use all three.
func taskShiftDecidesRule() string {
	bound := 100 * (1/stats.RedBelow - 1)
	return fmt.Sprintf("the shift is of ln Task time (the server's model_call_ms of every measured request), shown as new/base − 1; "+
		"the row is slower (REGRESSION) when the work is the same and its whole interval lies above +%.1f%% (ln(1/%.3f), the red light's bound), whatever its light; "+
		"detectable slowdown by the Task shift: e^h/%.3f − 1, h the half-width of its interval of ln(new/base); none with too few requests for an interval",
		bound, stats.RedBelow, stats.RedBelow)
}

// slowerByShift says whether a row's Task shift alone establishes a slowdown past the red light's
// own bound: the whole interval of ln(new/base) above ln(1/RedBelow), the same work on both
// sides. Its interval is over every measured request of every run, so it decides where the
// interval of a few run medians cannot. Samples too small for the level (a smoke's one request a
// side) decide nothing.
func slowerByShift(r RowComparison) bool {
	sh := r.TaskShift
	return sh != nil && !sh.TooFew && len(r.WorkDiffers) == 0 && sh.CI.Lower > -math.Log(stats.RedBelow)
}

// taskTimes are ln of the Task times (ms) of a row's measured requests, each with the input it
// sent: the records of the request ids its outputs list in the profiling phase.
func taskTimes(runDir string, r evidence.Result) ([]stats.Blocked, error) {
	if r.Records == "" {
		return nil, fmt.Errorf("no server records (status %s)", r.Status)
	}
	data, err := runfile.ReadIn(runDir, r.Records)
	if err != nil {
		return nil, fmt.Errorf("server records: %w", err)
	}
	records, err := contract.ParseRecords(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.Records, err)
	}
	byID := make(map[string]contract.Record, len(records))
	for _, rec := range records {
		byID[rec.RequestID] = rec
	}
	var out []stats.Blocked
	for _, o := range r.Outputs {
		if o.Phase != "profiling" {
			continue
		}
		rec, ok := byID[o.RequestID]
		if !ok {
			return nil, fmt.Errorf("request %s has no server record in %s", o.RequestID, r.Records)
		}
		ms := rec.Timing.ModelCallMS
		if !(ms > 0) {
			return nil, fmt.Errorf("request %s has a Task time of %v ms, which has no ratio to compare", o.RequestID, ms)
		}
		out = append(out, stats.Blocked{Block: o.InputID, Value: math.Log(ms)})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no measured request")
	}
	return out, nil
}
