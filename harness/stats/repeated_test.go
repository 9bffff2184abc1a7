package stats

import (
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/timing"
)

func TestSummarizeRepeatedRuns(t *testing.T) {
	var runs []Run
	var task []float64
	for i, p50 := range []float64{100, 102, 98, 101, 99} {
		s := timing.Summary{Requests: 12, Figures: []timing.Figure{{Name: "task_call_p50", Value: p50}, {Name: "request_throughput", Value: 10 + float64(i)}, {Name: "rtf", Value: 0.5}}}
		runs = append(runs, RunOf(i, s))
		for j := range 12 {
			task = append(task, p50+float64(j))
		}
	}
	rep, err := Summarize(runs, map[string][]float64{"task_call": task}, map[string]string{"task_call_p50": "ms"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Figures) != 2 || rep.Figures[0].Name != "task_call_p50" || rep.Figures[0].Unit != "ms" || rep.Figures[0].N != 5 {
		t.Fatalf("want task_call_p50 and request_throughput over 5 runs (rtf is not a per-run figure): %+v", rep.Figures)
	}
	if rep.Figures[0].Mean != 100 || rep.Figures[0].Inconclusive {
		t.Errorf("task p50 mean 100 with a ~2%% half-width: %+v", rep.Figures[0].Interval)
	}
	if !rep.Figures[1].Inconclusive {
		t.Errorf("throughput 10..14 spreads more than 5%%: %+v", rep.Figures[1].Interval)
	}
	// 60 pooled samples: p95 reportable (≥ 59), p99 not (< 299).
	if len(rep.Tails) != 2 || !rep.Tails[0].Reportable || rep.Tails[1].Reportable {
		t.Errorf("tails: %+v", rep.Tails)
	}
	got, err := rep.PerRun("task_call_p50")
	if err != nil || len(got) != 5 || got[1] != 102 {
		t.Errorf("PerRun: %v %v", got, err)
	}
	runs[2].Figures = map[string]float64{"task_call_p50": 1}
	if _, err := Summarize(runs, nil, nil); err == nil {
		t.Error("a figure missing from one run was accepted")
	}
}
