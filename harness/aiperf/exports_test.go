package aiperf

import (
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
