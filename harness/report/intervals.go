package report

import (
	"fmt"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/stats/schema"
	"github.com/trtmc-qual/trtmc-qual/harness/timing"
)

// The report's statistics: repeated-run figures with their intervals, tails under the
// sample rule and the gate's accuracy intervals, kept apart from the rest of the report.

// writeIntervals is one row per checkpoint measured over runs.
func writeIntervals(b *strings.Builder, s evidence.Stage) {
	header := false
	for _, r := range s.Results {
		rep := r.Repeated
		if rep == nil {
			continue
		}
		if !header {
			b.WriteString("Over runs (mean ± 95% Student-t half-width; *inconclusive* when the half-width exceeds 5% of the mean; tails pooled over runs; – (n=50<59) means insufficient samples for that percentile):\n\n" +
				"| profile | runs × requests | Task p50 ms | client − Task p50 ms | throughput req/s | audio-s/s or images/s | client p95 / p99 ms | Task p95 / p99 ms |\n|---|---|---|---|---|---|---|---|\n")
			header = true
		}
		rate := intervalCell(rep, "audio_seconds_per_second")
		if rate == "—" {
			rate = intervalCell(rep, "images_per_second")
		}
		requests := 0
		if len(rep.Runs) > 0 {
			requests = rep.Runs[0].Requests
		}
		fmt.Fprintf(b, "| %s | %d × %d | %s | %s | %s | %s | %s | %s |\n", r.Profile, len(rep.Runs), requests,
			intervalCell(rep, "task_call_p50"), intervalCell(rep, "client_minus_task_p50"), intervalCell(rep, "request_throughput"),
			rate, tailsCell(rep, "client_latency"), tailsCell(rep, "task_call"))
	}
	if header {
		b.WriteString("\n")
	}
	writeAccuracy(b, s)
}

// p95Cell is a pooled p95 figure only when the sample rule allows it (schema.TailRule).
func p95Cell(t timing.Summary, name string) string {
	if need := schema.MinTailSamples(95); t.Requests < need {
		return fmt.Sprintf("– (n=%d<%d)", t.Requests, need) // insufficient samples
	}
	v, _ := t.Get(name)
	return fmt.Sprintf("%.1f", v)
}

func intervalCell(rep *schema.Repeated, name string) string {
	for _, f := range rep.Figures {
		if f.Name != name {
			continue
		}
		switch {
		case f.CI == nil:
			return fmt.Sprintf("%.3g (%s)", f.Mean, f.Reason)
		case f.Inconclusive:
			return fmt.Sprintf("%.4g ± %.2g *inconclusive*", f.Mean, f.HalfWidth)
		default:
			return fmt.Sprintf("%.4g ± %.2g", f.Mean, f.HalfWidth)
		}
	}
	return "—"
}

func tailsCell(rep *schema.Repeated, name string) string {
	var parts []string
	for _, t := range rep.Tails {
		if t.Name != name {
			continue
		}
		if t.Reportable {
			parts = append(parts, fmt.Sprintf("%.1f (≤ %.1f)", t.Value, t.UpperBound))
		} else {
			parts = append(parts, fmt.Sprintf("– (n=%d<%d)", t.N, t.MinSamples)) // insufficient samples
		}
	}
	if len(parts) == 0 {
		return "—"
	}
	return strings.Join(parts, " / ")
}

// writeAccuracy lists the gate's corpus figures with their bootstrap intervals and verdicts.
func writeAccuracy(b *strings.Builder, s evidence.Stage) {
	header := false
	for _, r := range s.Results {
		for _, a := range r.Accuracy {
			if !header {
				b.WriteString("Accuracy (gate corpus figures; paired percentile bootstrap, 2,000 resamples, fixed seed; pass iff the 95th percentile is within the bound, fail iff the 5th is outside):\n\n" +
					"| profile | figure | value | 90% bootstrap interval | bound | clusters / inputs | verdict |\n|---|---|---|---|---|---|---|\n")
				header = true
			}
			fmt.Fprintf(b, "| %s | %s | %.4g | [%.4g, %.4g] | %s %g | %d / %d | %s |\n", r.Profile, a.Figure, a.Value, a.Lower, a.Upper, a.Side, a.Bound, a.Test.Clusters, a.Test.Units, a.Test.Verdict)
		}
	}
	if !header {
		return
	}
	b.WriteString("\nResampled (a cluster is resampled whole: clips of one speaker or recording are not independent):\n\n")
	for _, r := range s.Results {
		for _, a := range r.Accuracy {
			fmt.Fprintf(b, "- %s %s: %s\n", r.Profile, a.Figure, a.ClusterBy)
		}
	}
	b.WriteString("\n")
}
