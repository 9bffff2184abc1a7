package compare

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/claim"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/internal/runfixture"
	"github.com/trtmc-qual/trtmc-qual/harness/stats"
	"github.com/trtmc-qual/trtmc-qual/harness/stats/schema"
	"github.com/trtmc-qual/trtmc-qual/harness/timing"
)

// repeatedRow is an ASR row whose runs had these Task p50s (a test double of evidence, as above).
func repeatedRow(t *testing.T, p50s ...float64) evidence.Result {
	t.Helper()
	r := runfixture.ASRRow("sphinx-en-us", golds, p50s[0])
	var runs []schema.Run
	for i, v := range p50s {
		runs = append(runs, stats.RunOf(i+1, timing.Summary{Requests: 12, Figures: []timing.Figure{{Name: perfFigure, Value: v}}}))
	}
	rep, err := stats.Summarize(runs, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Repeated = claim.RepeatedRecord(rep)
	return r
}

func TestCompareShowsTheAANoiseFloorBesideEachLight(t *testing.T) {
	base := runfixture.WriteRun(t, "base", repeatedRow(t, 100, 101, 99, 100.5, 99.8, 100.1))
	cand := runfixture.WriteRun(t, "new", repeatedRow(t, 100.3, 99.6, 100.9, 99.4, 100.2, 100))
	a1 := runfixture.WriteRun(t, "a1", repeatedRow(t, 100, 104, 96, 102, 98, 100))
	a2 := runfixture.WriteRun(t, "a2", repeatedRow(t, 99, 103, 97, 101, 100, 98))
	var out bytes.Buffer
	if err := runCompare(context.Background(), []string{"--noise-floor", a1 + "," + a2, base, cand}, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	aa := compareRuns(mustRead(t, a1), mustRead(t, a2)).Rows[0].Performance
	want := noiseCell(RowComparison{NoiseFloor: &NoiseFloor{S: aa.S, CI: aa.CI}})
	if aa.CI == nil || !strings.Contains(out.String(), "| "+want+" |") || !strings.Contains(out.String(), "| A/A noise floor S (90% CI) |") {
		t.Fatalf("the A/A speedup %s is not beside the light:\n%s", want, out.String())
	}
	if !strings.Contains(out.String(), "- noise floor: "+noiseFloorRule) {
		t.Errorf("the noise floor's rule is missing:\n%s", out.String())
	}
	out.Reset()
	if err := runCompare(context.Background(), []string{base, cand}, &out); err != nil || !strings.Contains(out.String(), "not measured: give two runs of one build") {
		t.Fatalf("without an A/A pair the report must say the floor is not measured (%v):\n%s", err, out.String())
	}
	other := runfixture.WriteBuild(t, "a3", "qual_slowdown", repeatedRow(t, 120, 121, 119, 120, 122, 118))
	if err := runCompare(context.Background(), []string{"--noise-floor", a1 + "," + other, base, cand}, &out); !errors.Is(err, ErrUsage) {
		t.Fatalf("an A/A pair of two builds must be refused as a usage error, got %v", err)
	}
}

func mustRead(t *testing.T, dir string) evidence.Evidence {
	t.Helper()
	e, err := evidence.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	return e
}
