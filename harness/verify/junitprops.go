package verify

import (
	"encoding/xml"
	"path/filepath"
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
// properties with its row's figures, a property the row's rendering does not hold named too.
// The rest of a report is Ginkgo's (cases, outcomes, times, messages; junit.go checks the
// outcomes against the rows).
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
			s, ok := stageNamed(e, props["stage"])
			if !ok {
				continue // Ginkgo's own report carries no stage property
			}
			for name, want := range reportpkg.JUnitStageProperties(s) {
				if got, ok := props[name]; ok && got != want && !sharded(props["shard"]) {
					report(rel, "suite property %s is %q, %s/stage.json says %q", name, got, s.Stage, want)
				}
			}
			for _, c := range suite.Cases {
				stage, profile, _ := strings.Cut(c.Classname, ".")
				r, ok := resultNamed(s, profile)
				if stage != s.Stage || !ok {
					continue
				}
				figures := map[string]float64{}
				for _, f := range reportpkg.JUnitFigures(r) {
					figures[f.Name] = f.Value
				}
				for _, p := range c.Properties {
					want, known := figures[p.Name]
					got, err := strconv.ParseFloat(p.Value, 64)
					switch {
					case !known:
						report(rel, "case %q property %s=%s is no figure of evidence row %s/%s", c.Name, p.Name, p.Value, s.Stage, r.Profile)
					case err != nil || got != want:
						report(rel, "case %q property %s is %s, evidence row %s/%s says %v", c.Name, p.Name, p.Value, s.Stage, r.Profile, want)
					}
				}
			}
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
