package verify

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/report"
)

// junitOf renders a stage's JUnit report as suites/qualify writes it (the run's properties, and
// each claim's figures on its own case), with suite properties and case figures passed through
// the edits first.
func junitOf(s evidence.Stage, suiteEdit func(map[string]string), figureEdit func(profile string, figures []report.JUnitFigure) []report.JUnitFigure) []byte {
	props := report.JUnitStageProperties(s)
	props["run_id"], props["stage"], props["shard"] = "r", s.Stage, "1/1"
	suiteEdit(props)
	var b strings.Builder
	b.WriteString(`<testsuites><testsuite name="x">` + propertiesXML(props))
	for _, r := range s.Results {
		byClaim := map[report.JUnitClaim][]report.JUnitFigure{}
		for _, f := range figureEdit(r.Profile, report.JUnitFigures(r)) {
			byClaim[f.Of] = append(byClaim[f.Of], f)
		}
		for _, of := range slices.Sorted(maps.Keys(byClaim)) {
			fmt.Fprintf(&b, `<testcase name="%s case" classname="%s.%s"><properties>`, of, s.Stage, r.Profile)
			for _, f := range byClaim[of] {
				fmt.Fprintf(&b, `<property name=%q value=%q></property>`, f.Name, strconv.FormatFloat(f.Value, 'g', -1, 64))
			}
			b.WriteString(`</properties></testcase>`)
		}
	}
	b.WriteString(`</testsuite></testsuites>`)
	return []byte(b.String())
}

// TestJUnitPropertiesAreComparedBothWays drops, in turn, every suite property the stage's
// rendering holds and every figure of every row from the report, adds a property the rendering
// does not hold, removes the suite's stage property and marks the suite a shard of two with
// another target: each is named, and the honest rendering is not.
func TestJUnitPropertiesAreComparedBothWays(t *testing.T) {
	row := evidence.Result{Profile: "p", Skipped: []evidence.SkippedInput{{}},
		Timing: &evidence.Timing{Figures: []evidence.Figure{{Name: "client_latency_p50", Unit: "ms", Value: 812.5}, {Name: "rtf", Unit: "ratio", Value: 0.5}}},
		Gate:   &evidence.GateResult{Figures: map[string]float64{"gold_wer": 0.04, "ned_max": 0}}}
	s := evidence.Stage{Stage: "asr", Target: "suites/targets/reference.yaml", TargetKind: "reference",
		Hardware: evidence.Hardware{CPU: "c", Cores: 2, GPU: "none"}, Versions: map[string]string{"aiperf": "0.13.0"}, Results: []evidence.Result{row}}
	e := evidence.Evidence{Stages: []evidence.Stage{s}}
	problems := func(data []byte) []string {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "junit"), 0o755)
		os.WriteFile(filepath.Join(dir, "junit", "asr.xml"), data, 0o644)
		report, got := collect()
		checkJUnitProperties(dir, e, report)
		return *got
	}
	same := func(map[string]string) {}
	all := func(_ string, f []report.JUnitFigure) []report.JUnitFigure { return f }
	if got := problems(junitOf(s, same, all)); len(got) != 0 {
		t.Fatalf("the honest rendering: %v", got)
	}
	for name := range report.JUnitStageProperties(s) {
		if got := problems(junitOf(s, func(p map[string]string) { delete(p, name) }, all)); !containsAll(got, "suite property "+name+" is missing") {
			t.Errorf("suite property %s removed: %v", name, got)
		}
	}
	for _, f := range report.JUnitFigures(row) {
		drop := func(_ string, fs []report.JUnitFigure) []report.JUnitFigure {
			return slices.DeleteFunc(slices.Clone(fs), func(g report.JUnitFigure) bool { return g.Name == f.Name })
		}
		if sameClaim := slices.ContainsFunc(report.JUnitFigures(row), func(g report.JUnitFigure) bool { return g.Of == f.Of && g.Name != f.Name }); !sameClaim {
			continue // the claim's only figure: its case then carries none, Ginkgo's shape for a case without figures
		}
		if got := problems(junitOf(s, same, drop)); !containsAll(got, "but not "+f.Name+"=") {
			t.Errorf("figure %s removed: %v", f.Name, got)
		}
	}
	for _, c := range []struct {
		name string
		edit func(map[string]string)
		want []string
	}{
		{"a property the rendering does not hold", func(p map[string]string) { p["version.extra"] = "1" }, []string{"suite property version.extra=\"1\" is not rendered"}},
		{"the stage property removed", func(p map[string]string) { delete(p, "stage") }, []string{"holds the cases of stage asr", `stage property is ""`}},
		{"a shard of two with another target kind", func(p map[string]string) { p["shard"], p["target_kind"] = "1/2", "trtmc" }, []string{"suite property target_kind is \"trtmc\""}},
		{"a shard of two with another target", func(p map[string]string) { p["shard"], p["target"] = "1/2", "x.yaml" }, []string{"suite property target is \"x.yaml\""}},
	} {
		if got := problems(junitOf(s, c.edit, all)); !containsAll(got, c.want...) {
			t.Errorf("%s: %v", c.name, got)
		}
	}
	// A shard of several may differ from the merged stage in hardware and versions.
	if got := problems(junitOf(s, func(p map[string]string) { p["shard"], p["hardware.cores"] = "2/2", "8" }, all)); len(got) != 0 {
		t.Errorf("another shard's hardware: %v", got)
	}
}
