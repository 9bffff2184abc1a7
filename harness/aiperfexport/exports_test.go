package aiperfexport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fixture is three records cut from a real AIPerf 0.13.0 run against trtmc-server (audio
// payloads shortened).
func TestReadRealExports(t *testing.T) {
	e, err := Read("testdata/artifacts")
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Raw) != 3 || len(e.Metrics) != 3 {
		t.Fatalf("%d raw, %d metric records", len(e.Raw), len(e.Metrics))
	}
	latency := map[string]float64{}
	for _, m := range e.Metrics {
		v, ok := m.LatencyMS()
		if !ok || v <= 0 {
			t.Errorf("%s: request_latency %v %v", m.Metadata.XRequestID, v, ok)
		}
		latency[m.Metadata.XRequestID] = v
	}
	phases := map[string]int{}
	for _, r := range e.Raw {
		id := r.HeaderRequestID()
		if id == "" || id != r.Metadata.XRequestID || latency[id] == 0 {
			t.Errorf("line %d: header id %q, metadata id %q", r.Line, id, r.Metadata.XRequestID)
		}
		if r.Status != 200 || !strings.Contains(r.ResponseBody(), `"trtmc_timing"`) || r.HasError() {
			t.Errorf("line %d: status %d body %q", r.Line, r.Status, r.ResponseBody())
		}
		if r.Metadata.RequestEndNS <= r.Metadata.RequestStartNS {
			t.Errorf("line %d: end before start", r.Line)
		}
		phases[r.Metadata.Phase]++
	}
	if phases[PhaseWarmup] == 0 {
		t.Errorf("phases %v: the first records of a run are warmup", phases)
	}
	if _, err := Read(t.TempDir()); err == nil {
		t.Error("an empty directory read as exports")
	}
}

func TestLatencyUnits(t *testing.T) {
	m := MetricRecord{}
	m.Metrics = map[string]struct {
		Value any    `json:"value"`
		Unit  string `json:"unit"`
	}{"request_latency": {Value: 2e6, Unit: "ns"}}
	if v, ok := m.LatencyMS(); !ok || v != 2 {
		t.Errorf("ns: %v %v", v, ok)
	}
}

// TestReadRunsMultiRunLayout lays the real fixture out as AIPerf's multi-run mode does
// (profile_runs/run_NNNN/) and requires the runs in order, and a plain directory as one run.
func TestReadRunsMultiRunLayout(t *testing.T) {
	src := filepath.Join("testdata", "artifacts")
	single, err := ReadRuns(src)
	if err != nil || len(single) != 1 || len(single[0].Raw) == 0 {
		t.Fatalf("a plain artifact directory is one run: %v, %d runs", err, len(single))
	}
	dir := t.TempDir()
	for _, run := range []string{"run_0002", "run_0001", "run_0010"} {
		d := filepath.Join(dir, RunsDir, run)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"profile_export.jsonl", "profile_export_raw.jsonl"} {
			data, err := os.ReadFile(filepath.Join(src, f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d, f), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	runs, err := ReadRuns(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 3 || filepath.Base(runs[0].Dir) != "run_0001" || filepath.Base(runs[2].Dir) != "run_0010" {
		t.Fatalf("runs out of order: %d runs, first %s", len(runs), runs[0].Dir)
	}
	m := Merge(dir, runs)
	if len(m.Raw) != 3*len(single[0].Raw) || len(m.Metrics) != 3*len(single[0].Metrics) {
		t.Errorf("merge holds %d raw and %d metric records, want 3× %d and %d", len(m.Raw), len(m.Metrics), len(single[0].Raw), len(single[0].Metrics))
	}
}
