package verify

import (
	"github.com/trtmc-qual/trtmc-qual/harness/report"
)

// markdownCheck: qualification.md is the run's document (report.Build, from evidence.json)
// rendered as Markdown, byte for byte.
func markdownCheck(r *Run) []Problem {
	return problemsFrom(func(say reporter) {
		compareRendering(r.Dir, "qualification.md", []byte(report.Markdown(r.Evidence)), say)
	})
}
