package report

import (
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/report/doc"
)

// The report says how accuracy feeds the status right under every accuracy table, in both
// renderings. The published run is why it must: a qualified row stands beside an
// "inconclusive" accuracy verdict, and its status is what the statement says (the gate's
// point check decided it; a row's or stage's status never follows the interval's verdict).
func TestTheReportSaysHowAccuracyFeedsTheStatus(t *testing.T) {
	pics, e := realRun(t)
	qualifiedButUnsure := 0
	for _, s := range e.Stages {
		for _, r := range s.Results {
			for _, a := range r.Accuracy {
				if a.Test.Verdict != evidence.OutcomePass && r.Status == evidence.StatusQualified && r.Gate != nil && r.Gate.Passed {
					qualifiedButUnsure++
				}
			}
		}
	}
	if qualifiedButUnsure == 0 {
		t.Fatal("the published run has no qualified row with an undecided accuracy interval: the case the note explains")
	}
	d := Build(e, pics)
	role := accuracyRole().Text.String()
	tables, noted := 0, 0
	for _, tb := range tablesIn(d.Blocks) {
		if tb.Class == "accuracy" {
			tables++
			if tb.next == role {
				noted++
			}
		}
	}
	if tables == 0 || noted != tables {
		t.Errorf("%d accuracy tables, %d followed by how accuracy feeds the status", tables, noted)
	}
	for _, want := range []string{"gate passes when each figure's value meets its bound", "does not change a row's or a stage's status"} {
		if !strings.Contains(role, want) {
			t.Errorf("the note does not say %q: %s", want, role)
		}
	}
	md, page := strings.ReplaceAll(doc.Markdown(d), "*", ""), strings.Join(htmlContent(t, doc.HTML(d))["paragraph"], "\n")
	if strings.Count(md, role) != tables || strings.Count(page, role) != tables {
		t.Errorf("qualification.md states it %d times, report.html %d, want %d each", strings.Count(md, role), strings.Count(page, role), tables)
	}
}
