package verify

import (
	"bytes"

	"github.com/trtmc-qual/trtmc-qual/harness/report"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
)

// summaryCheck: summary.json is the one derivation of evidence.json `qual report` wrote
// (report.SummaryOf), re-derived here and compared byte for byte, so that a pipeline reading it
// reads the verdict, scope and figures the signed evidence holds.
func summaryCheck(r *Run) []Problem {
	stored, err := runfile.ReadIn(r.Dir, report.SummaryFile)
	if err != nil {
		return []Problem{{report.SummaryFile, err.Error()}}
	}
	if _, err := report.ReadSummary(stored); err != nil {
		return []Problem{{report.SummaryFile, err.Error()}}
	}
	want, err := report.SummaryJSON(r.Evidence)
	if err != nil {
		return []Problem{{report.SummaryFile, err.Error()}}
	}
	if !bytes.Equal(stored, want) {
		return []Problem{{report.SummaryFile, "does not match evidence.json (re-derived summary differs: " + differingLine(stored, want) + ")"}}
	}
	return nil
}
