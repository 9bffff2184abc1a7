package compare

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"

	"github.com/trtmc-qual/trtmc-qual/harness/internal/runfixture"
)

// TestCompareDecidesOnTheShiftItComputes: one run a side leaves the light white (no interval of
// run medians), but the per-request Task times establish the shift. A new side whose shift's
// whole interval is past the red bound is a regression, not "inconclusive" nor "no regression";
// a shift inside the bound, or over different work, leaves the light's word.
func TestCompareDecidesOnTheShiftItComputes(t *testing.T) {
	for _, c := range []struct {
		name    string
		newMS   float64
		steps   int // the new side's image steps (work) when not 0
		want    error
		verdict string
	}{
		{"30% slower by every request", 130, 0, ErrRegression, "REGRESSION"},
		{"2% slower", 102, 0, ErrInconclusive, "INCONCLUSIVE"},
		{"30% slower over different work", 130, 50, ErrInconclusive, "INCONCLUSIVE"},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := runWithTaskTimes(t, "base", 100, 0)
			cand := runWithTaskTimes(t, "new", c.newMS, c.steps)
			var stdout bytes.Buffer
			err := runCompare(context.Background(), []string{base, cand}, &stdout)
			if !errors.Is(err, c.want) || !strings.Contains(stdout.String(), "Verdict: **"+c.verdict) {
				t.Fatalf("got %v, want %v and verdict %s:\n%s", err, c.want, c.verdict, stdout.String())
			}
		})
	}
}

// runWithTaskTimes writes a one-row run whose measured requests took about ms of Task time each
// (a small spread, so the shift's interval is exact), with its server records.
func runWithTaskTimes(t *testing.T, id string, ms float64, steps int, requests ...int) string {
	t.Helper()
	r := runfixture.ASRRow("sphinx-en-us", golds, ms)
	if len(requests) == 1 {
		r.Outputs = r.Outputs[:requests[0]]
	}
	r.Records = "asr/sphinx-en-us/server-records.jsonl"
	if steps != 0 {
		r.Settings = map[string]any{"extra_inputs": map[string]any{"num_inference_steps": steps}}
	}
	dir := runfixture.WriteRun(t, id, r)
	var lines []string
	for i, o := range r.Outputs {
		v := ms + 0.37*float64(i)
		lines = append(lines, fmt.Sprintf(`{"request_id":%q,"route":"/v1/audio/transcriptions","status":200,"trtmc_timing":{"queue_ms":0,"model_call_ms":%v,"handler_ms":%v}}`, o.RequestID, v, v+1))
	}
	path := filepath.Join(dir, r.Records)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestCompareNeverDecidesOnTooFewRequests: a shift over one measured request a side (a smoke)
// has no interval at the level, whatever its size: it is never a regression by itself.
func TestCompareNeverDecidesOnTooFewRequests(t *testing.T) {
	for _, newMS := range []float64{130, 1000} {
		base := runWithTaskTimes(t, "base", 100, 0, 1)
		cand := runWithTaskTimes(t, "new", newMS, 0, 1)
		var stdout bytes.Buffer
		err := runCompare(context.Background(), []string{base, cand}, &stdout)
		if !errors.Is(err, ErrInconclusive) || !strings.Contains(stdout.String(), "too few for an interval") {
			t.Fatalf("%v ms against 100 ms over one request a side: got %v, want inconclusive:\n%s", newMS, err, stdout.String())
		}
	}
}

// TestCompareDoesNotWaitForRowsNeitherSideTimes: a row that neither run timed (a reduced or
// variant row) has no light to wait for; a row timed on one side only is still undecided.
func TestCompareDoesNotWaitForRowsNeitherSideTimes(t *testing.T) {
	both := func(r evidence.Result) evidence.Result { r.Timing, r.Repeated = nil, nil; return r }
	c := Comparison{Rows: []RowComparison{{Untimed: true}}}
	if v, err := outcome(c); err == nil || !strings.Contains(v, "0 of 0 timed") {
		t.Errorf("no timed row at all: %q, %v; want inconclusive", v, err)
	}
	r := runfixture.ASRRow("sphinx-en-us", golds, 100)
	if !untimed(both(r)) || untimed(r) {
		t.Errorf("untimed: a row without timing is untimed, one with timing is not")
	}
	row := compareRow(rowKey{"asr", "x"}, both(r), both(r))
	one := compareRow(rowKey{"asr", "y"}, r, both(r))
	if !row.Untimed || one.Untimed {
		t.Errorf("untimed on both sides: %v; on one side: %v", row.Untimed, one.Untimed)
	}
}
