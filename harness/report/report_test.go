package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

func TestAssembleWritesEvidenceAndReport(t *testing.T) {
	dir := t.TempDir()
	sum := evidence.Timing{Requests: 2, Figures: []evidence.Figure{{Name: "rtf", Value: 0.2, Unit: "ratio", Formula: "Σ task / Σ audio"},
		{Name: "client_latency_p50", Value: 12, Unit: "ms", Formula: "p50"}}}
	for _, s := range []evidence.Stage{
		{SchemaVersion: evidence.SchemaVersion, Stage: "asr", Number: 3, Status: "qualified", Results: []evidence.Result{{Profile: "m", Checkpoint: "c", Revision: "r",
			Kind: "full", Counted: true, Status: evidence.StatusQualified, Timing: &sum, Statement: "a stand-in, NOT a trained model"}}},
		{SchemaVersion: evidence.SchemaVersion, Stage: "audioqa", Number: 9, Status: "blocked", Reason: "no capability",
			Audit: []evidence.AuditRow{{Profile: "m", Family: "f"}}, Probe: &evidence.Probe{Status: 400, ErrorCode: "unsupported_capability", Passed: true}},
	} {
		if err := evidence.WriteJSON(filepath.Join(dir, s.Stage, "stage.json"), s); err != nil {
			t.Fatal(err)
		}
	}
	e, err := Assemble(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Stages) != 2 || e.Stages[0].Stage != "asr" || e.SchemaVersion != evidence.SchemaVersion {
		t.Fatalf("evidence %+v", e)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "qualification.md"))
	for _, want := range []string{"Stage 3 (`asr`): QUALIFIED", "Stage 9 (`audioqa`): BLOCKED", "RTF 0.2 (", "NOT a trained model", "unsupported_capability", "Σ task / Σ audio"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if _, err := evidence.Read(dir); err != nil {
		t.Fatal(err)
	}
}

// A run whose binaries carry the qual_slowdown tag is a test build: every stage qualified still
// gives the verdict TEST BUILD, and both reports open with the banner saying so.
func TestTestBuildIsNeverQualified(t *testing.T) {
	e := evidence.Evidence{RunID: "slow", Stages: []evidence.Stage{{Stage: "asr", Number: 3, Status: "qualified"}}}
	e.Versions = map[string]string{evidence.BuildTagsKey: "none"}
	if got := evidence.Verdict(e); got != "QUALIFIED" {
		t.Fatalf("normal build: %s", got)
	}
	if strings.Contains(Markdown(e, nil), "> **TEST BUILD") || strings.Contains(Markdown(e, nil), "**Verdict: TEST BUILD") {
		t.Error("a normal build's report mentions a test build")
	}
	e.Versions = map[string]string{evidence.BuildTagsKey: "netgo,qual_slowdown"}
	if got := evidence.Verdict(e); got != "TEST BUILD" {
		t.Errorf("test build: verdict %s", got)
	}
	md := Markdown(e, nil)
	banner := "> **TEST BUILD with injected slowdown: whisper-tiny-en's Task 20% slower (build tags: qual_slowdown), not a qualification.**"
	if i := strings.Index(md, banner); i < 0 || i > strings.Index(md, "**Verdict: TEST BUILD**") {
		t.Errorf("markdown lacks the banner before the verdict:\n%s", md)
	}
	html := HTML(e, nil)
	if !strings.Contains(string(html), `id="testbuild"><strong>TEST BUILD with injected slowdown`) || !strings.Contains(string(html), "Verdict: TEST BUILD") {
		t.Error("report.html lacks the test-build banner or verdict")
	}
}
