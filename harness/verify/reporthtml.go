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
	return problemsFrom(func(say reporter) { checkHTML(r.Dir, r.Evidence, r.Pictures, say) })
}

// checkHTML re-renders report.html from evidence.json and the rows' picture data, as `qual
// report` wrote it (the same document as qualification.md, rendered as HTML, every picture
// drawn again inline), and requires the stored page to be that page: its verdict, lights and
// pictures are the evidence's and the data's, not an edit.
func checkHTML(runDir string, e evidence.Evidence, pics report.Pictures, say reporter) {
	compareRendering(runDir, "report.html", report.HTML(e, pics), say)
}

// compareRendering requires a stored rendering of the evidence to be its re-rendering, and
// names the first line that differs.
func compareRendering(runDir, name string, want []byte, say reporter) {
	stored, err := runfile.ReadIn(runDir, name)
	if err != nil {
		say(name, "%v", err)
		return
	}
	if !bytes.Equal(stored, want) {
		say(name, "does not match evidence.json (re-rendered %s differs: %s)", name, differingLine(stored, want))
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
