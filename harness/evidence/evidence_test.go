package evidence

import (
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
	"github.com/trtmc-qual/trtmc-qual/harness/timing"
)

func TestAssembleWritesEvidenceAndReport(t *testing.T) {
	dir := t.TempDir()
	sum := timing.Summary{Requests: 2, Figures: []timing.Figure{{Name: "rtf", Value: 0.2, Unit: "ratio", Formula: "Σ task / Σ audio"},
		{Name: "client_latency_p50", Value: 12, Unit: "ms", Formula: "p50"}}}
	for _, s := range []Stage{
		{SchemaVersion: SchemaVersion, Stage: "asr", Number: 3, Status: "qualified", Results: []Result{{Profile: "m", Checkpoint: "c", Revision: "r",
			Kind: "full", Counted: true, Status: inventory.StatusQualified, Timing: &sum, Statement: "a stand-in, NOT a trained model"}}},
		{SchemaVersion: SchemaVersion, Stage: "audioqa", Number: 9, Status: "blocked", Reason: "no capability",
			Audit: []inventory.AuditRow{{Profile: "m", Family: "f"}}, Probe: &Probe{Status: 400, ErrorCode: "unsupported_capability", Passed: true}},
	} {
		if err := WriteJSON(filepath.Join(dir, s.Stage, "stage.json"), s); err != nil {
			t.Fatal(err)
		}
	}
	e, err := Assemble(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Stages) != 2 || e.Stages[0].Stage != "asr" || e.SchemaVersion != SchemaVersion {
		t.Fatalf("evidence %+v", e)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "qualification.md"))
	for _, want := range []string{"Stage 3 (`asr`): QUALIFIED", "Stage 9 (`audioqa`): BLOCKED", "RTF 0.200", "NOT a trained model", "unsupported_capability", "Σ task / Σ audio"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if _, err := Read(dir); err != nil {
		t.Fatal(err)
	}
}

// A run written under another schema is refused by name, not read with today's meanings
// (schema 1's input_sha256 hashed every clip in the float form).
func TestReadRefusesAnotherSchema(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "evidence.json"), []byte(`{"schema_version":1,"run_id":"old"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "schema 1, this qual reads 2") {
		t.Fatalf("schema 1 evidence: %v", err)
	}
	stage := filepath.Join(dir, "asr", "stage.json")
	if err := WriteJSON(stage, Stage{SchemaVersion: 1, Stage: "asr"}); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadStage(stage); err == nil || !strings.Contains(err.Error(), "schema 1, this qual reads 2") {
		t.Fatalf("schema 1 stage: %v", err)
	}
}

func TestLatencySVGIsWellFormed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "l.svg")
	if err := WriteLatencySVG(path, "a & b <c>", []float64{12, 10, 15}, []float64{9, 8, 11}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	dec := xml.NewDecoder(strings.NewReader(string(data)))
	strokes := map[string]int{}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "path" {
			for _, a := range se.Attr {
				for _, c := range []string{"#D62728", "#1F77B4", "#2CA02C"} {
					if a.Name.Local == "style" && strings.Contains(a.Value, "stroke:"+c) {
						strokes[c]++
					}
				}
			}
		}
	}
	// Client and Task: a legend swatch and a curve each; the overhead: its curve.
	if strokes["#D62728"] < 2 || strokes["#1F77B4"] < 2 || strokes["#2CA02C"] < 1 {
		t.Fatalf("curves by colour %v, want client and Task with swatches and the overhead curve:\n%s", strokes, data)
	}
}
