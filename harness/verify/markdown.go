package verify

import (
	"github.com/trtmc-qual/trtmc-qual/harness/report"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
)

// markdownCheck: qualification.md is the report rendered from evidence.json.
func markdownCheck(r *Run) []Problem {
	md, err := runfile.ReadIn(r.Dir, "qualification.md")
	if err != nil || string(md) != report.Markdown(r.Evidence) {
		return []Problem{{"qualification.md", "does not match evidence.json (regenerated report differs)"}}
	}
	return nil
}
