package report

import (
	"fmt"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/report/doc"
	"github.com/trtmc-qual/trtmc-qual/harness/stats"
)

// The report's statistics: repeated-run figures with their intervals and the gate's accuracy
// intervals, kept apart from the rest of the report.

// intervalBlocks is one row per checkpoint measured over runs, then the gate's accuracy
// intervals.
func intervalBlocks(s evidence.Stage) []doc.Block {
	t := doc.Table{Class: "over-runs", Header: []string{"profile", "runs × requests", "mean of the runs' Task p50 ms", "mean of the runs' p50 of (client − Task) ms", "throughput", "RTF or images/s"}}
	for _, r := range s.Results {
		rep := r.Repeated
		p := PerfOf(r)
		switch {
		case rep != nil:
			requests := 0
			if len(rep.Runs) > 0 {
				requests = rep.Runs[0].Requests
			}
			t.Rows = append(t.Rows, doc.Row{Cells: []doc.Text{doc.T(r.Profile), doc.T(fmt.Sprintf("%d × %d", len(rep.Runs), requests)),
				intervalCell(rep, "task_call_p50"), intervalCell(rep, "client_minus_task_p50"), doc.T(p.Throughput), doc.T(p.Rate)}})
		case r.Timing != nil:
			// One run: its figures are the run's own, shown with the mark, never as a bare mean.
			t.Rows = append(t.Rows, doc.Row{Cells: []doc.Text{doc.T(r.Profile), doc.T(fmt.Sprintf("1 × %d", r.Timing.Requests) + OneRunMark(r)),
				doc.T(FigureCell(r, "task_call_p50")), doc.T(FigureCell(r, "client_minus_task_p50")), doc.T(p.Throughput), doc.T(p.Rate)}})
		}
	}
	var out []doc.Block
	if len(t.Rows) > 0 {
		out = append(out, doc.Paragraph{Text: doc.Prose("Over runs (mean ± 95% Student-t half-width; a row of one AIPerf run shows that run's figures, marked *" + oneRunMark + "*; the tails pooled over runs are in the Tails table):")})
		out = append(out, explained(t)...)
	}
	return append(out, accuracyBlocks(s)...)
}

// inconclusiveMark is what a cell adds to a mean over runs whose runs disagree too much
// (stats.MaxRelativeHalfWidth); a table that shows it is followed by inconclusiveNote.
const inconclusiveMark = "(inconclusive)"

// inconclusiveNote says what the mark means, in the rule's own figures, where a reader sees it.
func inconclusiveNote() doc.Paragraph {
	return doc.Paragraph{Role: "note", Text: doc.Prose(fmt.Sprintf("*%s*: the mean's 95%% half-width over runs exceeds %g%% of the mean "+
		"(TRTMC's spread rule): the runs disagree too much for the figure to tell one build from another; it is shown, not judged, "+
		"and qual compare, whose speedup is of each run's Task p50, calls it white (undecided) when that mean is. More runs narrow the interval.",
		inconclusiveMark, 100*stats.MaxRelativeHalfWidth))}
}

// explained is a table followed, when any of its cells is marked inconclusive, by the note
// that says what the mark means: once per table.
func explained(t doc.Table) []doc.Block {
	for _, r := range t.Rows {
		for _, c := range r.Cells {
			if strings.Contains(c.String(), inconclusiveMark) {
				return []doc.Block{t, inconclusiveNote()}
			}
		}
	}
	return []doc.Block{t}
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
	if iv.LowerOrder == 0 && iv.UpperOrder == 0 {
		return fmt.Sprintf("(n too small for a %g%% interval: n=%d)", 100*iv.Level, iv.N)
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

func intervalCell(rep *evidence.Repeated, name string) doc.Text {
	for _, f := range rep.Figures {
		if f.Name != name {
			continue
		}
		switch {
		case f.CI == nil && f.N < 2:
			return doc.T(formatFigure(f.Mean) + " (" + oneRunMark + ")")
		case f.CI == nil:
			return doc.T(fmt.Sprintf("%s (%s)", formatFigure(f.Mean), f.Reason))
		case f.Inconclusive:
			return doc.T(formatFigure(f.Mean) + spread(f.Interval) + " " + inconclusiveMark)
		default:
			return doc.T(formatFigure(f.Mean) + spread(f.Interval))
		}
	}
	return doc.T("—")
}

// accuracyRole says what the interval verdict decides: nothing of a row's status. The status
// is settled by the row's steps (harness/checkpoint Finish), whose gate step fails on the family
// gate's point figures against their bounds (the gate column), and the stage's by
// evidence.Settle from its rows; the intervals are derived in the gate step from the same items
// (harness/claim Accuracy), and nothing reads their verdict but this table and qual compare.
func accuracyRole() doc.Paragraph {
	return doc.Paragraph{Role: "note", Text: doc.Prose("*How accuracy feeds the status*: a row's gate passes when each figure's value meets its bound " +
		"(the rows table's gate column); a failed gate fails the row, and any failed row fails its stage (verdict FAILED). " +
		"The interval's verdict above does not change a row's or a stage's status: *inconclusive* (the interval straddles the bound) " +
		"beside a qualified row means the value met the bound but the corpus is too small to show it would on other inputs; " +
		"qual compare uses the same items to decide whether accuracy regressed between two runs.")}
}

// accuracyBlocks lists the gate's corpus figures with their bootstrap intervals and verdicts,
// and what each resampled as a cluster.
func accuracyBlocks(s evidence.Stage) []doc.Block {
	t := doc.Table{Class: "accuracy", Header: []string{"profile", "figure", "value", "90% bootstrap interval", "bound", "clusters / inputs", "verdict"}}
	clusters := doc.List{}
	for _, r := range s.Results {
		for _, a := range r.Accuracy {
			t.Rows = append(t.Rows, doc.Row{Cells: []doc.Text{doc.T(r.Profile), doc.T(gateFigureName(a.Figure)), doc.T(fmt.Sprintf("%.4g", a.Value)),
				doc.T(fmt.Sprintf("[%.4g, %.4g]", a.Lower, a.Upper)), doc.T(fmt.Sprintf("%s %g", a.Side, a.Bound)),
				doc.T(fmt.Sprintf("%d / %d", a.Test.Clusters, a.Test.Units)), doc.T(string(a.Test.Verdict))}})
			clusters.Items = append(clusters.Items, doc.Item{Text: doc.T(fmt.Sprintf("%s %s: %s", r.Profile, gateFigureName(a.Figure), a.ClusterBy))})
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return []doc.Block{
		doc.Paragraph{Text: doc.T("Accuracy (gate corpus figures; paired percentile bootstrap, 2,000 resamples, fixed seed; pass iff the 95th percentile is within the bound, fail iff the 5th is outside):")}, t,
		accuracyRole(),
		doc.Paragraph{Text: doc.T("Resampled (a cluster is resampled whole: clips of one speaker or recording are not independent):")}, clusters}
}
