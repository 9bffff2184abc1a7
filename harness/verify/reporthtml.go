package verify

import (
	"bytes"
	"fmt"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/report"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
)

// htmlCheck: report.html is the page rendered from evidence.json.
func htmlCheck(r *Run) []Problem {
	return problemsFrom(func(report reporter) { checkHTML(r.Dir, r.Evidence, report) })
}

// checkHTML re-renders report.html from evidence.json and the run's plots, as `qual report`
// wrote it, and requires the stored page to be that page: its verdict and lights are the
// evidence's, not an edit.
func checkHTML(runDir string, e evidence.Evidence, say reporter) {
	stored, err := runfile.ReadIn(runDir, "report.html")
	if err != nil {
		say("report.html", "%v", err)
		return
	}
	want, err := report.HTML(runDir, e)
	if err != nil {
		say("report.html", "not re-renderable from evidence.json: %v", err)
		return
	}
	if !bytes.Equal(stored, want) {
		say("report.html", "does not match evidence.json (re-rendered page differs: %s)", differingLine(stored, want))
	}
}

// differingLine names the first line where a stored file and its re-rendering differ.
func differingLine(got, want []byte) string {
	g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := range max(len(g), len(w)) {
		var a, b []byte
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if !bytes.Equal(a, b) {
			return fmt.Sprintf("line %d is %s, re-rendered %s", i+1, clip(a), clip(b))
		}
	}
	return "same lines"
}

func clip(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > 80 {
		return fmt.Sprintf("`%s…`", b[:80])
	}
	return fmt.Sprintf("`%s`", b)
}
