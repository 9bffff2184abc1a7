package report

import (
	"github.com/trtmc-qual/trtmc-qual/harness/claim"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/accuracy"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/stats"
	"github.com/trtmc-qual/trtmc-qual/harness/stats/schema"
	"github.com/trtmc-qual/trtmc-qual/harness/timing"
)

// repeatedRow is a row measured over five AIPerf runs of 12 requests, its figures computed as
// the checkpoint flow computes them.
func repeatedRow(t *testing.T) evidence.Result {
	t.Helper()
	var runs []schema.Run
	var all []timing.Sample
	var task []float64
	for i, p50 := range []float64{100, 101, 99, 100.5, 99.5} {
		var mine []timing.Sample
		for j := range 12 { // run i lasts 1 + i/2 s
			s := timing.Sample{ClientMS: p50 + float64(j) + 1, TaskMS: p50 + float64(j), StartNS: int64(i) * 100e9,
				EndNS: int64(i)*100e9 + int64(j+1)*int64(1e9+i*5e8)/12, AudioSeconds: 1, Run: i}
			mine, task = append(mine, s), append(task, s.TaskMS)
		}
		sum, err := timing.Summarize(mine)
		if err != nil {
			t.Fatal(err)
		}
		runs, all = append(runs, stats.RunOf(i+1, sum)), append(all, mine...)
	}
	rep, err := stats.Summarize(runs, nil)
	if err != nil {
		t.Fatal(err)
	}
	pooled, err := timing.Summarize(all)
	if err != nil {
		t.Fatal(err)
	}
	return evidence.Result{Profile: "p", Kind: "full", Counted: true, Status: "aiperf-qualified", Timing: claim.TimingRecord(pooled), Repeated: claim.RepeatedRecord(rep)}
}

func TestIntervalsInTheReport(t *testing.T) {
	row := repeatedRow(t)
	gate := &evidence.GateResult{Figures: map[string]float64{"gold_wer": 0.2}, Thresholds: map[string]float64{"gold_wer": 0.35},
		Items: []evidence.GateItem{{ID: "a", Gold: "one two", Output: "one two"}, {ID: "b", Gold: "three four", Output: "three for"}}}
	acc, err := accuracy.Gate(gate, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := evidence.Stage{Stage: "asr", Number: 3, Status: "qualified", Results: []evidence.Result{row}}
	s.Results[0].Accuracy, s.Results[0].Gate = acc, gate
	md := Markdown(evidence.Evidence{Stages: []evidence.Stage{s}}, nil)
	// Throughput: runs of 12 requests over windows of 1, 1.5, 2, 2.5 and 3 s: 12, 8, 6, 4.8 and
	// 4 req/s, mean 6.96, the same cell in both tables (one clip-second per request: the same
	// audio-s/s); Task p50 of run i is its p50 + 5.5 ms (RTF 105.5/1000); 60 pooled requests
	// bound no p95 from above (72 needed): the tails show n and an open upper side.
	for _, want := range []string{
		"| p | 106.5 | 105.5 | 1 | 6.96 ± 4 (inconclusive) req/s | RTF 0.1055 ± 0.00098 (6.96 ± 4 (inconclusive) audio-s/s) | not drawn: the row's exports and records do not derive it |",
		"| p | 5 × 12 | 105.5 ± 0.98 | 1 ± 0 | 6.96 ± 4 (inconclusive) req/s | RTF 0.1055 ± 0.00098 (6.96 ± 4 (inconclusive) audio-s/s) |",
		"| p | 112 [111, open] n=60 | 112.7 [112, open] n=60 | 111 [110, open] n=60 | 111.7 [111, open] n=60 |",
		"| p | gold WER | 0.25 | [0, 0.5] | ≤ 0.35 | 2 / 2 | inconclusive |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks\n%s\nin\n%s", want, md)
		}
	}
}

// A half-width reads in two significant digits and never in exponent form, over every scale a
// figure has (ms from under 1 to tens of thousands, rates, ratios).
func TestHalfWidthsHaveNoExponent(t *testing.T) {
	for v, want := range map[float64]string{190: "190", 1743: "1700", 123456: "120000", 4: "4", 0.029: "0.029", 0.00098: "0.00098", 2.04e-7: "0.0000002", 0: "0", 9.96: "10"} {
		if got := formatHalfWidth(v); got != want {
			t.Errorf("formatHalfWidth(%v) = %q, want %q", v, got, want)
		}
	}
	for v := 1e-6; v < 1e6; v *= 1.37 {
		if s := formatHalfWidth(v); strings.ContainsAny(s, "eE") {
			t.Errorf("formatHalfWidth(%v) = %q", v, s)
		}
	}
}
