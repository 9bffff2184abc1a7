package report

import (
	"fmt"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/report/doc"
	"github.com/trtmc-qual/trtmc-qual/harness/stats/schema"
)

// The report's statistics: repeated-run figures with their intervals, tails under the
// sample rule and the gate's accuracy intervals, kept apart from the rest of the report.

// intervalBlocks is one row per checkpoint measured over runs, then the gate's accuracy
// intervals.
func intervalBlocks(s evidence.Stage) []doc.Block {
	t := doc.Table{Class: "over-runs", Header: []string{"profile", "runs × requests", "mean of the runs' Task p50 ms", "mean of the runs' client − Task p50 ms", "throughput", "RTF or images/s"}}
	for _, r := range s.Results {
		rep := r.Repeated
		if rep == nil {
			continue
		}
		requests := 0
		if len(rep.Runs) > 0 {
			requests = rep.Runs[0].Requests
		}
		p := PerfOf(r)
		t.Rows = append(t.Rows, doc.Row{Cells: []doc.Text{doc.T(r.Profile), doc.T(fmt.Sprintf("%d × %d", len(rep.Runs), requests)),
			intervalCell(rep, "task_call_p50"), intervalCell(rep, "client_minus_task_p50"), doc.T(p.Throughput), doc.T(p.Rate)}})
	}
	var out []doc.Block
	if len(t.Rows) > 0 {
		out = append(out, doc.Paragraph{Text: doc.Prose("Over runs (mean ± 95% Student-t half-width; (inconclusive) when the half-width exceeds 5% of the mean; the tails pooled over runs are in the Tails table):")}, t)
	}
	return append(out, accuracyBlocks(s)...)
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

func orderCell(iv *evidence.OrderInterval) string {
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

func intervalCell(rep *schema.Repeated, name string) doc.Text {
	for _, f := range rep.Figures {
		if f.Name != name {
			continue
		}
		switch {
		case f.CI == nil:
			return doc.T(fmt.Sprintf("%s (%s)", formatFigure(f.Mean), f.Reason))
		case f.Inconclusive:
			return doc.T(formatFigure(f.Mean) + " ± " + formatHalfWidth(f.HalfWidth) + " (inconclusive)")
		default:
			return doc.T(formatFigure(f.Mean) + " ± " + formatHalfWidth(f.HalfWidth))
		}
	}
	return doc.T("—")
}

// accuracyBlocks lists the gate's corpus figures with their bootstrap intervals and verdicts,
// and what each resampled as a cluster.
func accuracyBlocks(s evidence.Stage) []doc.Block {
	t := doc.Table{Class: "accuracy", Header: []string{"profile", "figure", "value", "90% bootstrap interval", "bound", "clusters / inputs", "verdict"}}
	clusters := doc.List{}
	for _, r := range s.Results {
		for _, a := range r.Accuracy {
			t.Rows = append(t.Rows, doc.Row{Cells: []doc.Text{doc.T(r.Profile), doc.T(a.Figure), doc.T(fmt.Sprintf("%.4g", a.Value)),
				doc.T(fmt.Sprintf("[%.4g, %.4g]", a.Lower, a.Upper)), doc.T(fmt.Sprintf("%s %g", a.Side, a.Bound)),
				doc.T(fmt.Sprintf("%d / %d", a.Test.Clusters, a.Test.Units)), doc.T(string(a.Test.Verdict))}})
			clusters.Items = append(clusters.Items, doc.Item{Text: doc.T(fmt.Sprintf("%s %s: %s", r.Profile, a.Figure, a.ClusterBy))})
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return []doc.Block{
		doc.Paragraph{Text: doc.T("Accuracy (gate corpus figures; paired percentile bootstrap, 2,000 resamples, fixed seed; pass iff the 95th percentile is within the bound, fail iff the 5th is outside):")}, t,
		doc.Paragraph{Text: doc.T("Resampled (a cluster is resampled whole: clips of one speaker or recording are not independent):")}, clusters}
}
