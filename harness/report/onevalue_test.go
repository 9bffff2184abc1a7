package report

import (
	"encoding/json"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/timing"
)

// A figure has one definition and one value in every output: qualification.md (its Figures and
// Over runs tables), report.html, the evidence (and the JUnit properties the suites write from
// it) and the mean of its interval over runs. Each rate's cells are collected from both reports
// by the rate's unit and must all read the same.
func TestEveryFigureHasOneValueInEveryOutput(t *testing.T) {
	row := repeatedRow(t)
	e := evidence.Evidence{RunID: "r", Stages: []evidence.Stage{{Stage: "asr", Number: 3, Status: "qualified", Results: []evidence.Result{row}}}}
	md := Markdown(e, nil)
	page := HTML(e, nil)
	raw, err := json.Marshal(row)
	if err != nil {
		t.Fatal(err)
	}
	var stored evidence.Result
	if err := json.Unmarshal(raw, &stored); err != nil {
		t.Fatal(err)
	}
	number := `([0-9.e+-]+(?: ± [0-9.e+-]+)?(?: \(inconclusive\))?)`
	for _, c := range []struct{ name, pattern string }{
		{"request_throughput", number + ` req/s`},
		{"audio_seconds_per_second", number + ` audio-s/s`},
		{"rtf", `RTF ` + number},
	} {
		v, ok := row.Timing.Get(c.name)
		if !ok {
			t.Fatalf("row has no %s", c.name)
		}
		if !timing.IsRunMean(c.name) {
			t.Errorf("%s is not defined as a mean over runs", c.name)
		}
		if iv, ok := intervalOf(row.Repeated, c.name); !ok || math.Abs(iv.Mean-v) > 1e-12*math.Abs(v) {
			t.Errorf("%s: the figure is %v but its interval over runs is of a mean %v (present %v)", c.name, v, iv.Mean, ok)
		}
		if got, _ := stored.Timing.Get(c.name); got != v {
			t.Errorf("%s: evidence (and JUnit) %v, report %v", c.name, got, v)
		}
		want := FigureCell(row, c.name)
		if !strings.HasPrefix(want, formatFigure(v)) {
			t.Errorf("%s: cell %q does not print the figure %v", c.name, want, v)
		}
		re := regexp.MustCompile(c.pattern)
		for output, text := range map[string]string{"qualification.md": md, "report.html": string(page)} {
			cells := re.FindAllStringSubmatch(text, -1)
			if len(cells) == 0 {
				t.Errorf("%s shows no %s", output, c.name)
			}
			for _, m := range cells {
				if m[1] != want {
					t.Errorf("%s shows %s as %q, elsewhere %q", output, c.name, m[1], want)
				}
			}
		}
	}
}
