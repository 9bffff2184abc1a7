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
			b.WriteString("Over runs (mean ± 95% Student-t half-width; *inconclusive* when the half-width exceeds 5% of the mean; the tails pooled over runs are in the Tails table):\n\n" +
				"| profile | runs × requests | mean of the runs' Task p50 ms | mean of the runs' client − Task p50 ms | throughput | RTF or images/s |\n|---|---|---|---|---|---|\n")
			header = true
		}
		requests := 0
		if len(rep.Runs) > 0 {
			requests = rep.Runs[0].Requests
		}
		p := PerfOf(r)
		fmt.Fprintf(b, "| %s | %d × %d | %s | %s | %s | %s |\n", r.Profile, len(rep.Runs), requests,
			intervalCell(rep, "task_call_p50"), intervalCell(rep, "client_minus_task_p50"), p.Throughput, p.Rate)
	}
	if header {
		b.WriteString("\n")
	}
	writeAccuracy(b, s)
}

// TailCell is a tail percentile of a row's measured requests (pooled over every run) with n and
// its distribution-free interval; a side no sample can bound reads "open" rather than the
// percentile going unreported.
func TailCell(r evidence.Result, name string, p int) string {
	if r.Timing == nil {
		return "—"
	}
	for _, f := range r.Timing.Figures {
		if f.Name == fmt.Sprintf("%s_p%d", name, p) {
			return formatFigure(f.Value) + " " + orderCell(f.Interval)
		}
	}
	return "—"
}

func orderCell(iv *timing.OrderInterval) string {
	if iv == nil {
		return "(no interval recorded)"
	}
	lower, upper := "open", "open"
	if iv.LowerOrder > 0 {
		lower = formatFigure(iv.Lower)
	}
	if iv.UpperOrder > 0 {
		upper = formatFigure(iv.Upper)
	}
	return fmt.Sprintf("[%s, %s] n=%d", lower, upper, iv.N)
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
