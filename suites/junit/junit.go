// Package junit writes a stage suite's Ginkgo report as the JUnit XML a qualification
// publishes, shaped for the viewers CI systems use: one test case per claim with its short
// claim as the name and `<stage>.<profile>` as the classname, no setup nodes counted as tests,
// figures as numeric properties with their unit in the name, the run's identity as suite
// properties, skipped cases (planned rows, a blocked stage) with their reason, and package paths
// relative to the repository.
//
// Ginkgo's own --junit-report names a case by its whole container hierarchy (hundreds of
// characters sharing one prefix) and uses the suite title as every classname; its
// JunitReportConfig cannot change either, so the conversion is ours, on Ginkgo's own JUnit types.
package junit

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"
)

// Options say what the report cannot: where the repository is and what run this was.
type Options struct {
	ModuleRoot  string            // package paths are written relative to it
	Properties  map[string]string // run id, target, versions, hardware
	StageLabels []string          // labels that name a stage: the classname's first part
	// NotSelected is the reason a spec the run's filter skipped gives (Ginkgo records none): a
	// smoke run, a focus, a label filter or another shard's row.
	NotSelected string
}

// notSelected is Options.NotSelected's default.
const notSelected = "not selected by this run's focus, label filter or shard: nothing is claimed for it"

// StageClass is the classname part of specs that belong to the stage, not to one checkpoint
// (the capability audit, the blocked verdict, the refusal probe).
const StageClass = "stage"

// Write converts r and writes it to path.
func Write(path string, r types.Report, o Options) error {
	suites := Convert(r, o)
	data, err := xml.MarshalIndent(suites, "", "  ")
	if err != nil {
		return fmt.Errorf("encode JUnit: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("JUnit directory: %w", err)
	}
	if err := os.WriteFile(path, append([]byte(xml.Header), append(data, '\n')...), 0o644); err != nil {
		return fmt.Errorf("write JUnit: %w", err)
	}
	return nil
}

// Convert builds the JUnit document: one <testsuite> per Ginkgo suite, a <testcase> per It.
func Convert(r types.Report, o Options) reporters.JUnitTestSuites {
	suite := reporters.JUnitTestSuite{
		Name:       r.SuiteDescription,
		Package:    relPackage(o.ModuleRoot, r.SuitePath),
		Time:       r.RunTime.Seconds(),
		Timestamp:  r.StartTime.UTC().Format("2006-01-02T15:04:05"),
		Properties: properties(o.Properties),
	}
	if len(r.SpecialSuiteFailureReasons) > 0 {
		// Ginkgo also leaves the specs an interrupt, an abort or the suite's timeout stopped
		// without a message: they were selected and never ran.
		o.NotSelected = "not run: the suite stopped (" + strings.Join(r.SpecialSuiteFailureReasons, "; ") + ")"
	}
	var failed []failure // in report order: the skips after a failure name it
	for _, spec := range r.SpecReports {
		if spec.LeafNodeType != types.NodeTypeIt && !setupFailed(spec) {
			continue // BeforeSuite, AfterSuite and report nodes are setup, not claims
		}
		tc := testCase(spec, o)
		switch {
		case tc.Failure != nil || tc.Error != nil:
			failed = append(failed, failure{spec.ContainerHierarchyTexts, name(spec)})
		case tc.Skipped != nil && strings.Contains(tc.Skipped.Message, orderedSkip):
			if claim, ok := dependedOn(failed, spec.ContainerHierarchyTexts); ok {
				tc.Skipped.Message = fmt.Sprintf("not run: it depends on the earlier claim %q of this checkpoint, which failed", claim)
			}
		}
		suite.Tests++
		switch {
		case tc.Failure != nil:
			suite.Failures++
		case tc.Error != nil:
			suite.Errors++
		case tc.Skipped != nil:
			suite.Skipped++
		}
		suite.TestCases = append(suite.TestCases, tc)
	}
	return reporters.JUnitTestSuites{Tests: suite.Tests, Errors: suite.Errors, Failures: suite.Failures,
		Disabled: suite.Disabled, Time: suite.Time, TestSuites: []reporters.JUnitTestSuite{suite}}
}

// setupFailed is a suite-level node (images, run directory, stage.json) that did not pass: it
// becomes an error case, so that a run whose setup failed is never a JUnit file of skips.
func setupFailed(spec types.SpecReport) bool {
	return spec.LeafNodeType.Is(types.NodeTypesForSuiteLevelNodes) && spec.State.Is(types.SpecStateFailureStates)
}

// orderedSkip is how Ginkgo skips the specs after a failure in an Ordered container.
const orderedSkip = "an earlier spec in an ordered container failed"

// failure is a failed claim and the containers it is in.
type failure struct {
	containers []string
	claim      string
}

// dependedOn finds the failed claim a skipped spec depended on: the first failure of the
// checkpoint it belongs to (the container under the stage's), whether in its own container, an
// enclosing one (the build or the gate) or a nested one (the serving context).
func dependedOn(failed []failure, containers []string) (string, bool) {
	if len(containers) < 2 {
		return "", false
	}
	for _, f := range failed {
		if len(f.containers) >= 2 && slices.Equal(f.containers[:2], containers[:2]) {
			return f.claim, true
		}
	}
	return "", false
}

func name(spec types.SpecReport) string {
	if spec.LeafNodeText == "" {
		return "[" + spec.LeafNodeType.String() + "]"
	}
	return spec.LeafNodeText
}

func testCase(spec types.SpecReport, o Options) reporters.JUnitTestCase {
	tc := reporters.JUnitTestCase{
		Name:      name(spec),
		Classname: classname(spec, o.StageLabels),
		Status:    spec.State.String(),
		Time:      spec.RunTime.Seconds(),
		SystemErr: spec.CapturedGinkgoWriterOutput,
	}
	figures, notes := entries(spec.ReportEntries)
	if len(figures.Properties) > 0 {
		tc.Properties = &figures
	}
	tc.SystemOut = notes
	switch spec.State {
	case types.SpecStatePassed:
	case types.SpecStateSkipped, types.SpecStatePending:
		reason := spec.Failure.Message
		switch {
		case spec.State == types.SpecStatePending:
			reason = "pending"
		case reason == "" && o.NotSelected != "":
			reason = o.NotSelected
		case reason == "":
			reason = notSelected
		}
		tc.Skipped = &reporters.JUnitSkipped{Message: reason}
	case types.SpecStateFailed:
		msg, where := PlainMessage(spec.Failure.Message), location(o.ModuleRoot, spec.Failure.Location)
		if setupFailed(spec) {
			tc.Error = &reporters.JUnitError{Message: msg, Type: "setup failed", Description: where + "\n" + msg}
			break
		}
		tc.Failure = &reporters.JUnitFailure{Message: msg, Type: "failed", Description: where + "\n" + msg}
	default: // panicked, interrupted, aborted, timed out
		msg := PlainMessage(spec.Failure.Message)
		tc.Error = &reporters.JUnitError{Message: msg, Type: spec.State.String(),
			Description: location(o.ModuleRoot, spec.Failure.Location) + "\n" + msg}
	}
	return tc
}

// PlainMessage turns Gomega's rendering of an unexpected error — "Unexpected error:" or
// "Expected success, but got an error:", the error's type and address, its message, then a
// struct dump that repeats the message — into the annotation and the message alone. Any other
// failure message is returned as it is.
func PlainMessage(msg string) string {
	for _, marker := range []string{"Unexpected error:\n", "Expected success, but got an error:\n"} {
		i := strings.Index(msg, marker)
		if i < 0 {
			continue
		}
		lines := strings.Split(msg[i+len(marker):], "\n")
		header := strings.TrimSpace(lines[0]) // <*fmt.wrapError | 0x...>: [message of a scalar]
		if !strings.HasPrefix(header, "<") || !strings.Contains(header, ">:") {
			return msg
		}
		var text []string
		if _, inline, _ := strings.Cut(header, ">:"); strings.TrimSpace(inline) != "" {
			text = append(text, strings.TrimSpace(inline))
		}
		for _, l := range lines[1:] {
			t := strings.TrimSpace(l)
			if strings.HasPrefix(t, "{") || t == "occurred" {
				break // the struct dump, or HaveOccurred's last line
			}
			text = append(text, strings.TrimPrefix(l, "    "))
		}
		plain := strings.TrimSpace(strings.Join(text, "\n"))
		if note := strings.TrimSpace(msg[:i]); note != "" {
			plain = note + ": " + plain
		}
		return plain
	}
	return msg
}

// location is file:line relative to the repository.
func location(root string, l types.CodeLocation) string {
	if root != "" {
		if rel, err := filepath.Rel(root, l.FileName); err == nil && filepath.IsLocal(rel) {
			return fmt.Sprintf("%s:%d", filepath.ToSlash(rel), l.LineNumber)
		}
	}
	return l.String()
}

// classname is "<stage>.<profile>": the stage from the spec's labels, the profile from the
// checkpoint container's text, which starts with it ("sphinx-en-us (checkpoint ...)").
func classname(spec types.SpecReport, stageLabels []string) string {
	stage := "suite"
	for _, l := range spec.Labels() {
		if slices.Contains(stageLabels, l) {
			stage = l
			break
		}
	}
	profile := StageClass
	if texts := spec.ContainerHierarchyTexts; len(texts) >= 2 {
		profile, _, _ = strings.Cut(texts[1], " (")
		profile = strings.ReplaceAll(strings.TrimSpace(profile), " ", "_")
	}
	return stage + "." + profile
}

// entries splits a spec's report entries into numeric figures (properties) and everything
// else (written as name: JSON lines in system-out).
func entries(list types.ReportEntries) (reporters.JUnitProperties, string) {
	var props reporters.JUnitProperties
	var notes strings.Builder
	for _, e := range list {
		if v, ok := number(e.Value); ok {
			props.Properties = append(props.Properties, reporters.JUnitProperty{Name: e.Name, Value: strconv.FormatFloat(v, 'g', -1, 64)})
			continue
		}
		if text, ok := e.Value.GetRawValue().(string); ok { // a command or a path reads better unquoted
			fmt.Fprintf(&notes, "%s: %s\n", e.Name, text)
			continue
		}
		fmt.Fprintf(&notes, "%s: %s\n", e.Name, asJSON(e.Value))
	}
	return props, notes.String()
}

// number is an entry's value when it is a number: the raw value in this process, or its JSON
// when the report crossed processes (ginkgo -p).
func number(v types.ReportEntryValue) (float64, bool) {
	switch raw := v.GetRawValue().(type) {
	case float64:
		return raw, true
	case float32:
		return float64(raw), true
	case int:
		return float64(raw), true
	case int64:
		return float64(raw), true
	case nil:
		var n json.Number
		if err := json.Unmarshal([]byte(strings.TrimSpace(v.AsJSON)), &n); err == nil {
			f, err := n.Float64()
			return f, err == nil
		}
	}
	return 0, false
}

func asJSON(v types.ReportEntryValue) string {
	if v.GetRawValue() == nil {
		return v.AsJSON
	}
	data, err := json.Marshal(v.GetRawValue())
	if err != nil {
		return v.String()
	}
	return string(data)
}

func properties(m map[string]string) reporters.JUnitProperties {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var p reporters.JUnitProperties
	for _, k := range keys {
		p.Properties = append(p.Properties, reporters.JUnitProperty{Name: k, Value: m[k]})
	}
	return p
}

func relPackage(root, path string) string {
	if root == "" {
		return filepath.Base(path)
	}
	if rel, err := filepath.Rel(root, path); err == nil && filepath.IsLocal(rel) {
		return "./" + filepath.ToSlash(rel)
	}
	return filepath.Base(path)
}

// Record is a structured report entry. Ginkgo prints a fmt.Stringer's String on the console,
// so a record reads as compact JSON there rather than a Go value dump (pointers, map[...]);
// JUnit and Ginkgo's JSON report marshal it as the value itself.
type Record struct{ Value any }

// String is the record as compact JSON.
func (r Record) String() string {
	data, err := json.Marshal(r.Value)
	if err != nil {
		return fmt.Sprintf("(not JSON: %v)", err)
	}
	return string(data)
}

// MarshalJSON is the value's own JSON.
func (r Record) MarshalJSON() ([]byte, error) { return json.Marshal(r.Value) }
