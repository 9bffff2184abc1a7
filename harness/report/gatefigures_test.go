package report

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// The gate-figures table of every stage reads in names, not metric keys: no header cell of a
// real run's tables (every family's gate), nor of a TRTMC gate's own figure, holds an
// identifier's underscore, and no two columns of a table share a name.
func TestGateFigureHeadersAreNamesNotKeys(t *testing.T) {
	pics, e := realRun(t)
	trtmc := evidence.Result{Profile: "trtmc-row", Gate: &evidence.GateResult{Figures: map[string]float64{"wer_percent_max": 1, "gold_wer": 0.1}}}
	e.Stages = append(e.Stages, evidence.Stage{Stage: "asr", Number: 3, Status: evidence.StatusFailed, Results: []evidence.Result{trtmc}})
	md := Markdown(e, pics)
	header := regexp.MustCompile(`(?m)^Gate figures:\n\n(\|.*\|)$`)
	tables := header.FindAllStringSubmatch(md, -1)
	if len(tables) < 4 { // asr, t2i, audioqa and the TRTMC-like stage
		t.Fatalf("%d gate-figure tables, want one per stage with a gate:\n%s", len(tables), md)
	}
	for _, m := range tables {
		var cells []string
		for _, c := range strings.Split(strings.Trim(m[1], "|"), "|") {
			cells = append(cells, strings.TrimSpace(c))
		}
		for i, c := range cells {
			if strings.Contains(c, "_") {
				t.Errorf("gate-figure header %q is a metric key, not a name (%s)", c, m[1])
			}
			if slices.Contains(cells[i+1:], c) {
				t.Errorf("two gate-figure columns read %q (%s)", c, m[1])
			}
		}
	}
}
