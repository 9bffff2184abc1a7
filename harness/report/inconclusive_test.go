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
	var check func(blocks []doc.Block)
	check = func(blocks []doc.Block) {
		for i, b := range blocks {
			switch x := b.(type) {
			case doc.Section:
				check(x.Blocks)
			case doc.Details:
				check(x.Blocks)
			case doc.Paragraph:
				if strings.Contains(x.Text.String(), rule) {
					notes++
				}
			case doc.Table:
				has := strings.Contains(fmt.Sprint(tableText(x)), inconclusiveMark)
				var next string
				if i+1 < len(blocks) {
					if p, ok := blocks[i+1].(doc.Paragraph); ok {
						next = p.Text.String()
					}
				}
				explainedHere := strings.HasPrefix(next, inconclusiveMark+": ") && strings.Contains(next, rule)
				if has {
					marked++
				}
				if has != explainedHere {
					t.Errorf("table %q (%s): marked inconclusive %v, followed by its explanation %v (next: %q)", x.Class, strings.Join(x.Header, " | "), has, explainedHere, next)
				}
			}
		}
	}
	check(d.Blocks)
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

func tableText(t doc.Table) []string {
	var out []string
	for _, r := range t.Rows {
		for _, c := range r.Cells {
			out = append(out, c.String())
		}
	}
	return out
}
