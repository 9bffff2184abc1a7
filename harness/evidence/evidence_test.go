package evidence

import (
	"encoding/xml"
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

func TestLatencySVGIsWellFormed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "l.svg")
	if err := WriteLatencySVG(path, "a & b <c>", []float64{12, 10, 15}, []float64{9, 8, 11}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	dec := xml.NewDecoder(strings.NewReader(string(data)))
	lines := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "polyline" {
			lines++
		}
	}
	if lines != 2 {
		t.Fatalf("%d curves in the SVG, want 2:\n%s", lines, data)
	}
}
