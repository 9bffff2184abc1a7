package report

import (
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/accuracy"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/stats"
	"github.com/trtmc-qual/trtmc-qual/harness/stats/schema"
	"github.com/trtmc-qual/trtmc-qual/harness/timing"
	"github.com/trtmc-qual/trtmc-qual/native/family"
)

func TestIntervalsInTheReport(t *testing.T) {
	var runs []schema.Run
	var task []float64
	for i, p50 := range []float64{100, 101, 99, 100.5, 99.5} {
		runs = append(runs, stats.RunOf(i+1, timing.Summary{Requests: 12, Figures: []timing.Figure{
			{Name: "task_call_p50", Value: p50}, {Name: "request_throughput", Value: float64(8 + 2*i)}}}))
		for j := range 12 {
			task = append(task, p50+float64(j))
		}
	}
	rep, err := stats.Summarize(runs, map[string][]float64{"task_call": task}, nil)
	if err != nil {
		t.Fatal(err)
	}
	gate := &family.GateResult{Figures: map[string]float64{"gold_wer": 0.2}, Thresholds: map[string]float64{"gold_wer": 0.35},
		Items: []family.GateItem{{ID: "a", Gold: "one two", Output: "one two"}, {ID: "b", Gold: "three four", Output: "three for"}}}
	acc, err := accuracy.Gate(gate, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := evidence.Stage{Stage: "asr", Number: 3, Status: "qualified", Results: []evidence.Result{{Profile: "p", Repeated: &rep, Accuracy: acc, Gate: gate}}}
	var b strings.Builder
	writeIntervals(&b, s)
	md := b.String()
	for _, want := range []string{
		"| p | 5 × 12 | 100 ± 0.98 | — | 12 ± 3.9 *inconclusive* | — | — | 111.0 (≤ 112.0) / – (n=60<299) |",
		"| p | gold_wer | 0.25 | [0, 0.5] | ≤ 0.35 | 2 / 2 | inconclusive |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks\n%s\nin\n%s", want, md)
		}
	}
}
