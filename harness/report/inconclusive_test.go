package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/report/doc"
	"github.com/trtmc-qual/trtmc-qual/harness/stats"
)

// Wherever a reader sees "(inconclusive)", the table that shows it is followed by what it means,
// in the rule's own figure (stats.MaxRelativeHalfWidth), once per table, in the same words in
// qualification.md and report.html; a table without the mark carries no note.
func TestInconclusiveIsExplainedWhereItAppears(t *testing.T) {
	pics, e := realRun(t)
	d := Build(e, pics)
	rule := fmt.Sprintf("exceeds %g%% of the mean", 100*stats.MaxRelativeHalfWidth)
	marked, notes := 0, 0
	for _, tb := range tablesIn(d.Blocks) {
		has := strings.Contains(fmt.Sprint(tableText(tb.Table)), inconclusiveMark)
		explainedHere := strings.HasPrefix(tb.next, inconclusiveMark+": ") && strings.Contains(tb.next, rule)
		if has {
			marked++
		}
		if explainedHere {
			notes++
		}
		if has != explainedHere {
			t.Errorf("table %q (%s): marked inconclusive %v, followed by its explanation %v (next: %q)", tb.Class, strings.Join(tb.Header, " | "), has, explainedHere, tb.next)
		}
	}
	if marked < 2 || notes != marked {
		t.Errorf("%d tables marked inconclusive, %d notes: the published run has a mark in its figures and its over-runs tables", marked, notes)
	}
	note := inconclusiveNote().Text.String()
	md, page := doc.Markdown(d), htmlContent(t, doc.HTML(d))
	if got := strings.Count(strings.NewReplacer("*", "").Replace(md), note); got != marked {
		t.Errorf("qualification.md explains the mark %d times, want %d: %q", got, marked, note)
	}
	if got := strings.Count(strings.Join(page["paragraph"], "\n"), note); got != marked {
		t.Errorf("report.html explains the mark %d times, want %d", got, marked)
	}
}

// tableAt is a table of a document with the text of the paragraph right after it ("" when
// none follows).
type tableAt struct {
	doc.Table
	next string
}

// tablesIn are every table of blocks, sections and details included, in order.
func tablesIn(blocks []doc.Block) []tableAt {
	var out []tableAt
	for i, b := range blocks {
		switch x := b.(type) {
		case doc.Section:
			out = append(out, tablesIn(x.Blocks)...)
		case doc.Details:
			out = append(out, tablesIn(x.Blocks)...)
		case doc.Table:
			tb := tableAt{Table: x}
			if i+1 < len(blocks) {
				if p, ok := blocks[i+1].(doc.Paragraph); ok {
					tb.next = p.Text.String()
				}
			}
			out = append(out, tb)
		}
	}
	return out
}

func tableText(t doc.Table) []string {
	var out []string
	for _, r := range t.Rows {
		for _, c := range r.Cells {
			out = append(out, c.String())
		}
	}
	return out
}
