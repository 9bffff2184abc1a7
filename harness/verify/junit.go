package verify

import (
	"encoding/xml"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
)

// spec is one JUnit testcase, as Ginkgo writes it.
type spec struct {
	File      string
	Name      string `xml:"name,attr"`
	Classname string `xml:"classname,attr"` // "<stage>.<profile>" (suites/junit), or the suite title
	Status    string `xml:"status,attr"`
	Failed    *struct {
		Message string `xml:"message,attr"`
	} `xml:"failure"`
	Errored *struct {
		Message string `xml:"message,attr"`
	} `xml:"error"`
	Skipped *struct{} `xml:"skipped"`
}

func (s spec) passed() bool {
	return (s.Status == "" || s.Status == "passed") && s.Failed == nil && s.Errored == nil && s.Skipped == nil
}

func (s spec) outcome() string {
	switch {
	case s.Status != "" && s.Status != "passed":
		return s.Status
	case s.Failed != nil || s.Errored != nil:
		return "failed"
	case s.Skipped != nil:
		return "skipped"
	}
	return "passed"
}

// readJUnit reads every junit/*.xml of the run.
func readJUnit(runDir string) ([]spec, []string, error) {
	files, err := filepath.Glob(filepath.Join(runDir, "junit", "*.xml"))
	if err != nil {
		return nil, nil, err
	}
	var specs []spec
	var names []string
	for _, f := range files {
		rel := filepath.ToSlash(filepath.Join("junit", filepath.Base(f)))
		names = append(names, rel)
		data, err := runfile.ReadFile(f)
		if err != nil {
			return nil, nil, err
		}
		var doc struct {
			Suites []struct {
				Properties []struct {
					Name  string `xml:"name,attr"`
					Value string `xml:"value,attr"`
				} `xml:"properties>property"`
				Cases []spec `xml:"testcase"`
			} `xml:"testsuite"`
		}
		if err := xml.Unmarshal(data, &doc); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", rel, err)
		}
		for _, s := range doc.Suites {
			for _, p := range s.Properties {
				if p.Name == "SpecialSuiteFailureReason" && p.Value != "" {
					// A suite that did not run publishes no stage: the run is incomplete.
					specs = append(specs, spec{File: rel, Name: "[suite] " + p.Value, Status: "not run"})
				}
			}
			for _, c := range s.Cases {
				c.File = rel
				specs = append(specs, c)
			}
		}
	}
	return specs, names, nil
}

// junitCheck: the JUnit reports agree with the rows.
func junitCheck(r *Run) []Problem {
	return problemsFrom(func(report reporter) { checkJUnit(r.Dir, r.Evidence, report) })
}

// checkJUnit requires the JUnit reports to agree with the evidence: a row that claims a status
// has specs and every one of them passed (an aiperf-qualified row includes a passed AIPerf
// spec), and a failed row has a spec that did not pass.
func checkJUnit(runDir string, e evidence.Evidence, report reporter) {
	specs, files, err := readJUnit(runDir)
	if err != nil {
		report("junit", "%v", err)
		return
	}
	for _, s := range specs {
		if s.Status == "not run" || (strings.HasPrefix(s.Name, "[") && !strings.HasPrefix(s.Name, "[It]") && !s.passed()) {
			report(s.File, "%s is %s: the run is incomplete", s.Name, s.outcome())
		}
	}
	for _, s := range e.Stages {
		for _, r := range s.Results {
			if r.Status == evidence.StatusPlanned && len(files) == 0 {
				continue // a planned run may have been assembled without running the suites
			}
			checkRowSpecs(s.Stage+"/"+r.Profile, r, rowSpecs(specs, s.Stage, r.Profile), files, report)
		}
	}
}

// rowSpecs are the specs of one row: classname "<stage>.<profile>" as suites/junit writes them,
// or, in Ginkgo's own report, a name holding the row's Describe ("<profile> (checkpoint ...").
func rowSpecs(specs []spec, stage, profile string) []spec {
	var out []spec
	for _, s := range specs {
		name := strings.TrimSpace(strings.TrimPrefix(s.Name, "[It]"))
		if s.Classname == stage+"."+profile || strings.HasPrefix(name, profile+" (checkpoint ") || strings.Contains(name, " "+profile+" (checkpoint ") {
			out = append(out, s)
		}
	}
	return out
}

func checkRowSpecs(where string, r evidence.Result, specs []spec, files []string, report reporter) {
	claims := r.Status == evidence.StatusQualified || r.Status == evidence.StatusFamilyValidated
	if len(specs) == 0 {
		in := strings.Join(files, ", ")
		if in == "" {
			in = "junit/ (no reports)"
		}
		report(where, "no JUnit spec for this row (status %s) in %s", r.Status, in)
		return
	}
	aiperfPassed, anyFailed := false, false
	for _, s := range specs {
		if !s.passed() {
			anyFailed = true
			if claims {
				report(s.File, "spec %q is %s, but evidence row %s is %s", s.Name, s.outcome(), where, r.Status)
			}
		} else if strings.Contains(strings.ToLower(s.Name), "aiperf") {
			aiperfPassed = true
		}
	}
	if r.Status == evidence.StatusQualified && !aiperfPassed {
		report(where, "status %s, but no AIPerf spec passed in the JUnit reports", r.Status)
	}
	if r.Status == evidence.StatusFailed && !anyFailed {
		report(where, "status failed, but every JUnit spec of the row passed")
	}
}
