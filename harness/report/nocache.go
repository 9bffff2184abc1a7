package report

import (
	"fmt"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/report/doc"
)

// NoCacheCells are a row's no-caching figures (harness/nocache) as the reports show them:
// repeats and fresh variants, their medians, the paired ratio with its interval, the native time and the
// verdict.
func NoCacheCells(n *evidence.NoCache) []string {
	native := "not printed"
	if n.NativeTaskMS != nil {
		native = fmt.Sprintf("%.1f", *n.NativeTaskMS)
	}
	verdict := "passed"
	if !n.Passed {
		verdict = "FAILED: " + strings.Join(n.Failures, "; ")
	}
	return []string{n.Input, fmt.Sprintf("%d + %d at c=%d", len(n.Repeats), len(n.Fresh), n.Concurrency),
		fmt.Sprintf("%.1f / %.1f", n.RepeatMedianMS, n.FreshMedianMS),
		fmt.Sprintf("%+.1f%% [%+.1f%%, %+.1f%%]", 100*n.ShiftFraction, 100*n.ShiftFractionCI.Lower, 100*n.ShiftFractionCI.Upper),
		native, verdict}
}

// noCacheHeader names NoCacheCells' columns, after the profile.
func noCacheHeader() []string {
	return []string{"profile", "input", "repeats + fresh", "median repeat / fresh Task ms", "paired ratio repeat/fresh − 1 (interval)", "native Task ms", "verdict"}
}

// noCacheBlocks is the no-caching table: only rows that ran the check.
func noCacheBlocks(s evidence.Stage) []doc.Block {
	t := doc.Table{Class: "nocache", Header: noCacheHeader()}
	var first *evidence.NoCache
	for _, r := range s.Results {
		if r.NoCache == nil {
			continue
		}
		if first == nil {
			first = r.NoCache
		}
		cells := []doc.Text{doc.T(r.Profile)}
		for _, c := range NoCacheCells(r.NoCache) {
			cells = append(cells, doc.T(c))
		}
		t.Rows = append(t.Rows, doc.Row{Cells: cells})
	}
	if first == nil {
		return nil
	}
	return []doc.Block{doc.Paragraph{Text: doc.T(fmt.Sprintf("No caching (repeats of one input beside fresh variants of equal cost, in pairs; fails when the %.0f%% signed-rank interval of the paired ratio lies wholly below −%.0f%% or the repeats' median under %.0f%% of the native run):",
		100*first.Level, 100*first.Margin, 100*first.NativeFloor))}, t}
}

// perRunBlocks are, for each row, links to AIPerf's scrapes of the server's /metrics and the
// row's per-run timelines (drawn from its joined requests), collapsed: a full run has dozens.
func perRunBlocks(s evidence.Stage, pics Pictures) []doc.Block {
	var out []doc.Block
	for _, r := range s.Results {
		if len(r.ServerMetrics) > 0 {
			t := doc.T("AIPerf's scrape of the server's /metrics, " + r.Profile + ":")
			for i, f := range r.ServerMetrics {
				t = t.Plain(" ").Link(fmt.Sprintf("run %d", i+1), f)
			}
			out = append(out, doc.Paragraph{Role: "server-metrics", Text: t})
		}
		if r.Timing == nil {
			continue
		}
		p, ok := pics[PictureKey(s.Stage, r.Profile)]
		figs, err := timelineFigures(s.Stage, r, p)
		if !ok || err != nil || len(figs) == 0 {
			out = append(out, doc.Paragraph{Text: doc.T("Timelines of " + r.Profile + ": " + notDrawn + ".")})
			continue
		}
		runs := fmt.Sprintf("each of its %d AIPerf runs", len(figs))
		if len(figs) == 1 {
			runs = "its one AIPerf run"
		}
		out = append(out, doc.Details{Summary: doc.T(fmt.Sprintf("Timelines of %s: %s seen from the server", r.Profile, runs)),
			Blocks: []doc.Block{doc.Figures{Items: figs}}})
	}
	return out
}
