package junit

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"

	"github.com/trtmc-qual/trtmc-qual/harness/config/machine"
)

var stageLabels = []string{"asr", "t2i", "audioqa"}

func spec(containers []string, labels []string, text string, state types.SpecState, msg string, entries ...types.ReportEntry) types.SpecReport {
	return types.SpecReport{ContainerHierarchyTexts: containers, ContainerHierarchyLabels: [][]string{labels},
		LeafNodeType: types.NodeTypeIt, LeafNodeText: text, State: state, RunTime: 1500 * time.Millisecond,
		Failure: types.Failure{Message: msg}, ReportEntries: entries}
}

func entry(name string, v any) types.ReportEntry {
	return types.ReportEntry{Name: name, Value: types.WrapEntryValue(v)}
}

// sampleReport is a stage 3 suite as the qualification runs it: a qualified checkpoint with
// figures, a failing claim, a planned row, setup nodes, and a stage 9 style blocked verdict.
func sampleReport(root string) types.Report {
	stage := "Stage 3: recorded-clip transcription"
	en := "sphinx-en-us (checkpoint pocketsphinx-en-us/en-us@0.8, full model, counted)"
	ti := "sphinx-tidigits (checkpoint pocketsphinx-testdata/tidigits@0.8, full model, counted)"
	planned := "whisper-tiny-fp16 (checkpoint openai/whisper-tiny@169d4a4, planned)"
	return types.Report{SuiteDescription: "Stage 3 (asr): recorded-clip transcription", SuitePath: filepath.Join(root, "suites", "asr"),
		StartTime: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC), RunTime: time.Minute,
		SpecReports: []types.SpecReport{
			{LeafNodeType: types.NodeTypeBeforeSuite, State: types.SpecStatePassed},
			spec([]string{stage, en}, []string{"asr", "containers"}, "joins every request by X-Request-ID", types.SpecStatePassed, "",
				entry("matched", 55), entry("join", map[string]int{"unmatched": 0})),
			spec([]string{stage, en}, []string{"asr", "containers"}, "keeps client latency apart from the Task call", types.SpecStatePassed, "",
				entry("client_latency_p50_ms", 2211.1), entry("request_throughput_req_per_s", 0.91),
				entry("rtf", 0.473)),
			spec([]string{stage, ti}, []string{"asr", "containers"}, "joins every request by X-Request-ID", types.SpecStateFailed,
				"2 AIPerf requests without a server record: r-7, r-9"),
			spec([]string{stage, planned}, []string{"asr", "gpu"}, "is recorded as planned, with the reason", types.SpecStateSkipped,
				"planned: the target's build command trtmc is not installed"),
			spec([]string{"Stage 9: audio question answering"}, []string{"audioqa"}, "is reported blocked because no profile implements audio_text_to_text",
				types.SpecStateSkipped, "blocked: none of the 8 profiles implements audio_text_to_text"),
			{LeafNodeType: types.NodeTypeAfterSuite, State: types.SpecStatePassed},
		}}
}

func TestConvertShapesCasesForViewers(t *testing.T) {
	root := "/work/repo"
	doc := Convert(sampleReport(root), Options{ModuleRoot: root, StageLabels: stageLabels,
		Properties: map[string]string{"run_id": "r1", "target": "reference"}})
	s := doc.TestSuites[0]
	if s.Tests != 5 || s.Failures != 1 || s.Skipped != 2 {
		t.Fatalf("tests/failures/skipped = %d/%d/%d, want 5/1/2 (setup nodes are not tests)", s.Tests, s.Failures, s.Skipped)
	}
	if s.Package != "./suites/asr" {
		t.Errorf("package %q, want the path relative to the repository", s.Package)
	}
	want := []string{"asr.sphinx-en-us", "asr.sphinx-en-us", "asr.sphinx-tidigits", "asr.whisper-tiny-fp16", "audioqa.stage"}
	for i, tc := range s.TestCases {
		if tc.Classname != want[i] {
			t.Errorf("case %d classname %q, want %q", i, tc.Classname, want[i])
		}
	}
	if p := s.TestCases[1].Properties; p == nil || len(p.Properties) != 3 || p.Properties[0].Name != "client_latency_p50_ms" || p.Properties[0].Value != "2211.1" {
		t.Errorf("figures as numeric properties with units in the name, got %+v", p)
	}
	if got := s.TestCases[0].SystemOut; !strings.Contains(got, `join: {"unmatched":0}`) {
		t.Errorf("non-numeric entries belong in system-out, got %q", got)
	}
	if sk := s.TestCases[4].Skipped; sk == nil || !strings.HasPrefix(sk.Message, "blocked:") {
		t.Errorf("a blocked stage must be a skipped case with its reason, got %+v", sk)
	}
}

// TestJUnitReadByRealConsumers parses the written file with junitparser and renders it with
// junit2html, the tools a CI viewer stands for (both in the parity venv that `make deps` builds).
func TestFailedSetupIsAnError(t *testing.T) {
	r := sampleReport("/work/repo")
	r.SpecReports[0] = types.SpecReport{LeafNodeType: types.NodeTypeBeforeSuite, State: types.SpecStateFailed,
		Failure: types.Failure{Message: "images and run directory: docker engine unreachable"}}
	s := Convert(r, Options{StageLabels: stageLabels}).TestSuites[0]
	if s.Tests != 6 || s.Errors != 1 {
		t.Fatalf("tests/errors = %d/%d, want 6/1: a failed BeforeSuite must show", s.Tests, s.Errors)
	}
	if tc := s.TestCases[0]; tc.Name != "[BeforeSuite]" || tc.Error == nil || !strings.Contains(tc.Error.Message, "docker engine unreachable") {
		t.Errorf("failed setup case: %+v", tc)
	}
}

func TestJUnitReadByRealConsumers(t *testing.T) {
	py, err := machine.ParityFromEnv(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "asr.xml")
	if err = Write(path, sampleReport("/work/repo"), Options{ModuleRoot: "/work/repo", StageLabels: stageLabels,
		Properties: map[string]string{"run_id": "r1", "target": "reference", "version.aiperf": "0.13.0"}}); err != nil {
		t.Fatal(err)
	}
	script := `
import json, sys
from junitparser import JUnitXml, Failure, Skipped
xml = JUnitXml.fromfile(sys.argv[1])
out = {"suites": [], "cases": []}
for suite in xml:
    out["suites"].append({"tests": suite.tests, "failures": suite.failures, "skipped": suite.skipped,
                          "props": {p.name: p.value for p in suite.properties()}})
    for case in suite:
        kinds = [type(r).__name__ for r in case.result]
        props = {}
        for el in case._elem.iter("property"):
            props[el.get("name")] = float(el.get("value"))
        out["cases"].append({"name": case.name, "classname": case.classname, "results": kinds,
                             "messages": [r.message for r in case.result], "props": props})
print(json.dumps(out))
`
	raw, err := exec.Command(py, "-c", script, path).CombinedOutput()
	if err != nil {
		t.Fatalf("junitparser: %v\n%s", err, raw)
	}
	var got struct {
		Suites []struct {
			Tests, Failures, Skipped int
			Props                    map[string]string
		}
		Cases []struct {
			Name, Classname string
			Results         []string
			Messages        []string
			Props           map[string]float64
		}
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("junitparser output: %v\n%s", err, raw)
	}
	if s := got.Suites[0]; s.Tests != 5 || s.Failures != 1 || s.Skipped != 2 || s.Props["run_id"] != "r1" || s.Props["version.aiperf"] != "0.13.0" {
		t.Errorf("junitparser suite: %+v", s)
	}
	seen := map[string]bool{}
	for _, c := range got.Cases {
		key := c.Classname + "/" + c.Name
		if seen[key] {
			t.Errorf("two cases named %s: a viewer cannot tell them apart", key)
		}
		seen[key] = true
		if len(c.Name) > 80 {
			t.Errorf("case name of %d characters: %s", len(c.Name), c.Name)
		}
	}
	if c := got.Cases[1]; c.Props["client_latency_p50_ms"] != 2211.1 {
		t.Errorf("junitparser sees figures %v", c.Props)
	}
	if c := got.Cases[4]; len(c.Results) != 1 || c.Results[0] != "Skipped" || !strings.HasPrefix(c.Messages[0], "blocked:") {
		t.Errorf("blocked stage as seen by junitparser: %+v", c)
	}

	html := filepath.Join(dir, "asr.html")
	if out, err := exec.Command(py, "-m", "junit2htmlreport", path, html).CombinedOutput(); err != nil {
		t.Fatalf("junit2html: %v\n%s", err, out)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"asr.sphinx-tidigits", "joins every request by X-Request-ID", "r-7, r-9", "blocked: none of the 8 profiles"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("junit2html page lacks %q", want)
		}
	}
}

// gomegaMessage is Gomega's own failure message for err under Succeed or HaveOccurred.
func gomegaMessage(err error, succeed bool, note ...any) string {
	var msg string
	g := gomega.NewGomega(func(m string, _ ...int) { msg = m })
	if succeed {
		g.Expect(err).To(gomega.Succeed(), note...)
	} else {
		g.Expect(err).NotTo(gomega.HaveOccurred(), note...)
	}
	return msg
}

// A failed claim's JUnit message is the error's own text once, under its annotation, without
// Gomega's type, address and struct dump; the location is relative to the repository.
func TestFailureMessageIsPlain(t *testing.T) {
	inner := &os.PathError{Op: "stat", Path: "/repo/Dockerfile", Err: os.ErrNotExist}
	wrapped := fmt.Errorf("serving image: %w", inner)
	for _, tc := range []struct {
		msg, want string
	}{
		{gomegaMessage(wrapped, true), "serving image: stat /repo/Dockerfile: file does not exist"},
		{gomegaMessage(wrapped, false, "images and run directory"), "images and run directory: serving image: stat /repo/Dockerfile: file does not exist"},
		{gomegaMessage(errors.New("gate: gold_wer 0.31 over its bound 0.25\nsee gate.log"), true), "gate: gold_wer 0.31 over its bound 0.25\nsee gate.log"},
		{"2 AIPerf requests without a server record: r-7, r-9", "2 AIPerf requests without a server record: r-7, r-9"},
	} {
		if got := PlainMessage(tc.msg); got != tc.want {
			t.Errorf("PlainMessage(%q) = %q, want %q", tc.msg, got, tc.want)
		}
	}
	root := "/work/repo"
	failed := spec([]string{"Stage 3", "sphinx-en-us (checkpoint x, full model, counted)"}, []string{"asr"}, "builds the bundle", types.SpecStateFailed,
		gomegaMessage(wrapped, true), entry("reproduce", "QUAL_TARGET=suites/targets/reference.yaml go tool ginkgo -v --focus=\"sphinx-en-us \" ./suites/asr"))
	failed.Failure.Location = types.CodeLocation{FileName: root + "/suites/qualify/qualify.go", LineNumber: 211}
	skipped := spec([]string{"Stage 3", "sphinx-en-us (checkpoint x, full model, counted)", "served in a container"}, []string{"asr"}, "joins every request",
		types.SpecStateSkipped, "Spec skipped because an earlier spec in an ordered container failed")
	other := spec([]string{"Stage 3", "sphinx-tidigits (checkpoint y, full model, counted)"}, []string{"asr"}, "joins every request",
		types.SpecStateSkipped, "Spec skipped because an earlier spec in an ordered container failed")
	doc := Convert(types.Report{SpecReports: []types.SpecReport{failed, skipped, other}}, Options{ModuleRoot: root, StageLabels: stageLabels})
	cases := doc.TestSuites[0].TestCases
	f := cases[0].Failure
	if f == nil || f.Message != "serving image: stat /repo/Dockerfile: file does not exist" ||
		f.Description != "suites/qualify/qualify.go:211\nserving image: stat /repo/Dockerfile: file does not exist" {
		t.Errorf("failure: %+v", f)
	}
	if !strings.Contains(cases[0].SystemOut, "reproduce: QUAL_TARGET=suites/targets/reference.yaml go tool ginkgo") {
		t.Errorf("the failed case's system-out lacks the reproduce command: %q", cases[0].SystemOut)
	}
	if cases[1].Skipped == nil || cases[1].Skipped.Message != `not run: it depends on the earlier claim "builds the bundle" of this checkpoint, which failed` {
		t.Errorf("dependent skip: %+v", cases[1].Skipped)
	}
	if cases[2].Skipped == nil || !strings.Contains(cases[2].Skipped.Message, "earlier spec in an ordered container failed") {
		t.Errorf("another checkpoint's skip must not name this one's failure: %+v", cases[2].Skipped)
	}
}

// Every skipped case carries a reason: its own (planned, blocked), else the run's word for a
// spec its filter did not select (Ginkgo records none), never an empty message.
func TestEverySkippedCaseHasAReason(t *testing.T) {
	for _, o := range []Options{{StageLabels: stageLabels}, {StageLabels: stageLabels, NotSelected: "not selected by this run (smoke): nothing is claimed for it"}} {
		r := sampleReport(t.TempDir())
		r.SpecReports = append(r.SpecReports, spec([]string{"Stage 3", "whisper-tiny-en (checkpoint x, full model, counted)"}, []string{"asr"}, "builds the bundle", types.SpecStateSkipped, ""))
		skipped := 0
		for _, s := range Convert(r, o).TestSuites {
			for _, tc := range s.TestCases {
				if tc.Skipped == nil {
					continue
				}
				skipped++
				if tc.Skipped.Message == "" || (o.NotSelected != "" && tc.Name == "builds the bundle" && tc.Skipped.Message != o.NotSelected) {
					t.Errorf("%s %q: skipped with %q", tc.Classname, tc.Name, tc.Skipped.Message)
				}
			}
		}
		if skipped != 3 {
			t.Errorf("%d skipped cases, want 3", skipped)
		}
	}
	// A suite that stopped (an interrupt, an abort, its timeout) leaves selected specs unrun with
	// no message: they are "not run", never "not selected".
	r := sampleReport(t.TempDir())
	r.SpecialSuiteFailureReasons = []string{"Interrupted by User"}
	r.SpecReports = append(r.SpecReports, spec([]string{"Stage 3", "whisper-tiny-en (checkpoint x, full model, counted)"}, []string{"asr"}, "builds the bundle", types.SpecStateSkipped, ""))
	for _, s := range Convert(r, Options{StageLabels: stageLabels, NotSelected: "not selected by this run (smoke): nothing is claimed for it"}).TestSuites {
		for _, tc := range s.TestCases {
			if tc.Name == "builds the bundle" && (tc.Skipped == nil || tc.Skipped.Message != "not run: the suite stopped (Interrupted by User)") {
				t.Errorf("a spec an interrupt stopped: %+v", tc.Skipped)
			}
		}
	}
}
