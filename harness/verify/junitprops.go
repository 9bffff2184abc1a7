package verify

import (
	"encoding/xml"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	reportpkg "github.com/trtmc-qual/trtmc-qual/harness/report"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
)

// junitDoc is what checkJUnitProperties reads of a JUnit file: the suite's properties (the run's
// identity, suites/junit Options.Properties) and each case's numeric properties (its figures).
type junitDoc struct {
	Suites []struct {
		Properties []junitProperty `xml:"properties>property"`
		Cases      []struct {
			Name       string          `xml:"name,attr"`
			Classname  string          `xml:"classname,attr"`
			Properties []junitProperty `xml:"properties>property"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// junitPropertiesCheck: the reports' suite properties and case figures are the evidence's, as
// harness/report renders them.
func junitPropertiesCheck(r *Run) []Problem {
	return problemsFrom(func(report reporter) { checkJUnitProperties(r.Dir, r.Evidence, report) })
}

// checkJUnitProperties renders again what the suites render into their JUnit reports from the
// evidence (harness/report JUnitStageProperties and JUnitFigures) and compares: each suite's
// target, hardware and versions with its stage's (an unsharded run's), and each case's numeric
// properties with its row's figures. Both ways: a property the rendering does not hold is named,
// and so is one it holds that the report left out, so a report cannot drop what it cannot
// change. A case is its row's by its classname ("<stage>.<profile>", suites/junit), whichever
// suite holds it: a suite whose stage property was removed or renamed still has its cases
// checked. The rest of a report is Ginkgo's (cases, outcomes, times, messages; junit.go checks
// the outcomes against the rows).
func checkJUnitProperties(runDir string, e evidence.Evidence, report reporter) {
	files, _ := filepath.Glob(filepath.Join(runDir, "junit", "*.xml"))
	for _, f := range files {
		rel := "junit/" + filepath.Base(f)
		data, err := runfile.ReadFile(f)
		if err != nil {
			continue // checkJUnit reports unreadable reports
		}
		var doc junitDoc
		if xml.Unmarshal(data, &doc) != nil {
			continue
		}
		for _, suite := range doc.Suites {
			props := map[string]string{}
			for _, p := range suite.Properties {
				props[p.Name] = p.Value
			}
			if s, ok := stageNamed(e, props["stage"]); ok {
				checkSuiteProperties(rel, s, props, report)
			}
			foreign := map[string]bool{}
			for _, c := range suite.Cases {
				stage, profile, _ := strings.Cut(c.Classname, ".")
				s, ok := stageNamed(e, stage)
				if !ok {
					continue // Ginkgo's own report: its classnames are the suite's title
				}
				foreign[stage] = stage != props["stage"]
				if r, ok := resultNamed(s, profile); ok {
					checkCaseFigures(rel, c.Name, c.Properties, s.Stage, r, report)
				}
			}
			for _, stage := range slices.Sorted(maps.Keys(foreign)) {
				if foreign[stage] {
					report(rel, "suite holds the cases of stage %s, but its stage property is %q", stage, props["stage"])
				}
			}
		}
	}
}

// suiteOwnProperties are the suite properties suites/qualify adds beside the stage's rendering:
// the run's id, the stage and the shard.
var suiteOwnProperties = []string{"run_id", "stage", "shard"}

// checkSuiteProperties compares a suite's properties with its stage's rendering, both ways. A
// sharded report may differ from the merged stage in hardware and versions (the merged stage
// keeps the first shard's), never in its target: qual merge refuses shards of two targets.
func checkSuiteProperties(rel string, s evidence.Stage, props map[string]string, report reporter) {
	want := reportpkg.JUnitStageProperties(s)
	for _, name := range slices.Sorted(maps.Keys(want)) {
		got, ok := props[name]
		switch {
		case !ok:
			report(rel, "suite property %s is missing, %s/stage.json says %q", name, s.Stage, want[name])
		case got != want[name] && !(sharded(props["shard"]) && name != "target" && name != "target_kind"):
			report(rel, "suite property %s is %q, %s/stage.json says %q", name, got, s.Stage, want[name])
		}
	}
	for _, name := range slices.Sorted(maps.Keys(props)) {
		if _, rendered := want[name]; !rendered && !slices.Contains(suiteOwnProperties, name) {
			report(rel, "suite property %s=%q is not rendered from %s/stage.json", name, props[name], s.Stage)
		}
	}
}

// checkCaseFigures compares a case's numeric properties with its row's figures: each property
// must be a figure of the row with its value, and a case that carries a claim's figures
// (report.JUnitClaim) carries all of them.
func checkCaseFigures(rel, name string, props []junitProperty, stage string, r evidence.Result, report reporter) {
	figures := map[string]reportpkg.JUnitFigure{}
	for _, f := range reportpkg.JUnitFigures(r) {
		figures[f.Name] = f
	}
	carried, claims := map[string]bool{}, map[reportpkg.JUnitClaim]bool{}
	for _, p := range props {
		carried[p.Name] = true
		want, known := figures[p.Name]
		got, err := strconv.ParseFloat(p.Value, 64)
		switch {
		case !known:
			report(rel, "case %q property %s=%s is no figure of evidence row %s/%s", name, p.Name, p.Value, stage, r.Profile)
		case err != nil || got != want.Value:
			report(rel, "case %q property %s is %s, evidence row %s/%s says %v", name, p.Name, p.Value, stage, r.Profile, want.Value)
		}
		if known {
			claims[want.Of] = true
		}
	}
	for _, f := range reportpkg.JUnitFigures(r) {
		if claims[f.Of] && !carried[f.Name] {
			report(rel, "case %q carries %s figures of evidence row %s/%s but not %s=%v", name, f.Of, stage, r.Profile, f.Name, f.Value)
		}
	}
}

// sharded says a report is one shard's of several ("2/3"): a merged stage keeps the first
// shard's hardware and versions, so another shard's may differ honestly.
func sharded(shard string) bool {
	_, total, ok := strings.Cut(shard, "/")
	n, err := strconv.Atoi(total)
	return ok && err == nil && n > 1
}

func stageNamed(e evidence.Evidence, name string) (evidence.Stage, bool) {
	for _, s := range e.Stages {
		if s.Stage == name && name != "" {
			return s, true
		}
	}
	return evidence.Stage{}, false
}

func resultNamed(s evidence.Stage, profile string) (evidence.Result, bool) {
	for _, r := range s.Results {
		if r.Profile == profile {
			return r, true
		}
	}
	return evidence.Result{}, false
}
