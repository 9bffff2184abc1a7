package stats

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/stats/schema"
	"github.com/trtmc-qual/trtmc-qual/harness/timing"
)

func TestSummarizeRepeatedRuns(t *testing.T) {
	var runs []schema.Run
	var task []float64
	for i, p50 := range []float64{100, 102, 98, 101, 99} {
		s := timing.Summary{Requests: 12, Figures: []timing.Figure{{Name: "task_call_p50", Value: p50}, {Name: "request_throughput", Value: 10 + float64(i)}, {Name: "rtfx", Value: 2}}}
		runs = append(runs, RunOf(i, s))
		for j := range 12 {
			task = append(task, p50+float64(j))
		}
	}
	rep, err := Summarize(runs, map[string]string{"task_call_p50": "ms"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Figures) != 2 || rep.Figures[0].Name != "task_call_p50" || rep.Figures[0].Unit != "ms" || rep.Figures[0].N != 5 {
		t.Fatalf("want task_call_p50 and request_throughput over 5 runs (rtfx is not a per-run figure): %+v", rep.Figures)
	}
	if rep.Figures[0].Mean != 100 || rep.Figures[0].Inconclusive {
		t.Errorf("task p50 mean 100 with a ~2%% half-width: %+v", rep.Figures[0].Interval)
	}
	if !rep.Figures[1].Inconclusive {
		t.Errorf("throughput 10..14 spreads more than 5%%: %+v", rep.Figures[1].Interval)
	}
	got, err := rep.PerRun("task_call_p50")
	if err != nil || len(got) != 5 || got[1] != 102 {
		t.Errorf("PerRun: %v %v", got, err)
	}
	runs[2].Figures = map[string]float64{"task_call_p50": 1}
	if _, err := Summarize(runs, nil); err == nil {
		t.Error("a figure missing from one run was accepted")
	}
}

// TestFromRuns: three runs of 12 measured requests (warmup before the first run only); each
// run's figures come from its own requests.
func TestFromRuns(t *testing.T) {
	var pairs []join.Pair
	var runs []aiperfexport.Exports
	ns := int64(1_000_000_000)
	for r := range 3 {
		var ex aiperfexport.Exports
		n := 12
		if r == 0 {
			n = 14 // two warmup requests
		}
		for i := range n {
			id := fmt.Sprintf("run%d-req%02d", r, i)
			phase := aiperfexport.PhaseProfiling
			if r == 0 && i < 2 {
				phase = aiperfexport.PhaseWarmup
			}
			task := 100 + 10*float64(r) + float64(i%3) // run medians 101, 111, 121
			md := aiperfexport.Metadata{XRequestID: id, Phase: phase, RequestStartNS: ns, RequestEndNS: ns + int64(task*1e6) + 2e6}
			ns += int64(task*1e6) + 3e6
			raw := aiperfexport.RawRecord{Metadata: md}
			m := aiperfexport.MetricRecord{Metadata: md}
			if err := json.Unmarshal([]byte(fmt.Sprintf(`{"request_latency":{"value":%g,"unit":"ms"}}`, task+2)), &m.Metrics); err != nil {
				t.Fatal(err)
			}
			ex.Raw, ex.Metrics = append(ex.Raw, raw), append(ex.Metrics, m)
			pairs = append(pairs, join.Pair{ID: id, Client: raw, Server: contract.Record{RequestID: id, Timing: contract.Timing{ModelCallMS: task}}})
		}
		runs = append(runs, ex)
	}
	rep, err := FromRuns(pairs, runs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := rep.PerRun("task_call_p50")
	if err != nil || len(got) != 3 || got[0] != 101 || got[1] != 111 || got[2] != 121 {
		t.Fatalf("per-run task p50 %v (%v), want 101 111 121", got, err)
	}
	for _, r := range rep.Runs {
		if r.Requests != 12 {
			t.Errorf("run %d counts %d measured requests, want 12 (warmup excluded)", r.Index, r.Requests)
		}
	}
	if rep.Figures[0].Name != "task_call_p50" || rep.Figures[0].Unit != "ms" || rep.Figures[0].Mean != 111 {
		t.Errorf("task p50 over runs: %+v", rep.Figures[0])
	}
}
