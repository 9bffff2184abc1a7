package verify

import (
	"encoding/xml"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
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

// junitPropertiesCheck: the reports' copies of figures, hardware and versions are the evidence's.
func junitPropertiesCheck(r *Run) []Problem {
	return problemsFrom(func(report reporter) { checkJUnitProperties(r.Dir, r.Evidence, report) })
}

// checkJUnitProperties compares the JUnit reports' copies of the evidence with it: each suite's
// target, hardware and versions with its stage's (an unsharded run's), and each case's figures (timing figures by
// their unit-suffixed names, gate_<figure>, inputs_skipped) with its row's.
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
			for name, want := range stageProperties(s) {
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
				figures := rowFigures(r)
				for _, p := range c.Properties {
					want, known := figures[p.Name]
					got, err := strconv.ParseFloat(p.Value, 64)
					if known && (err != nil || got != want) {
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

// stageProperties are the suite properties the suites write from the stage's evidence
// (suites/qualify runProperties); run_id is left out: a merged run keeps its shards' reports.
func stageProperties(s evidence.Stage) map[string]string {
	out := map[string]string{"target": s.Target, "target_kind": s.TargetKind,
		"hardware.cpu": s.Hardware.CPU, "hardware.cores": fmt.Sprint(s.Hardware.Cores), "hardware.gpu": s.Hardware.GPU}
	for k, v := range s.Versions {
		out["version."+k] = v
	}
	return out
}

// rowFigures are a row's numbers as the suites report them on its cases.
func rowFigures(r evidence.Result) map[string]float64 {
	out := map[string]float64{"inputs_skipped": float64(len(r.Skipped))}
	if r.Timing != nil {
		for _, f := range r.Timing.Figures {
			out[figureName(f.Name, f.Unit)] = f.Value
		}
	}
	if r.Gate != nil {
		for k, v := range r.Gate.Figures {
			out["gate_"+k] = v
		}
	}
	return out
}

// figureName is suites/junit.FigureName (a test keeps them equal): the verifier does not link
// the suites' Ginkgo reporters.
func figureName(name, unit string) string {
	u := strings.NewReplacer("/", "_per_", " ", "_").Replace(unit)
	if u == "" || u == "ratio" {
		return name
	}
	return name + "_" + u
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
