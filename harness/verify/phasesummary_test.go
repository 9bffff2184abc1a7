package verify

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeSummaries writes a run directory as AIPerf 0.13.0 does: a phase manifest naming each
// phase's summary, the profiling phase's summary, and the run's (the same with warmup_metrics).
func writeSummaries(t *testing.T, dir, metricsJSON string, run, phase map[string]any) {
	t.Helper()
	write := func(rel string, v any) {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, rel), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("phase_manifest.json", map[string]any{"phases": []any{
		map[string]any{"phase_kind": "warmup", "metrics_json": "phases/warmup/profile_export_aiperf.json"},
		map[string]any{"phase_kind": "profiling", "metrics_json": metricsJSON}}})
	if phase != nil {
		write("phases/profiling/profile_export_aiperf.json", phase)
	}
	write(runSummary, run)
}

func honestSummary() map[string]any {
	return map[string]any{"request_count": map[string]any{"unit": "requests", "avg": 8.0},
		"benchmark_duration": map[string]any{"unit": "sec", "avg": 39.889491968},
		"request_latency":    map[string]any{"unit": "ms", "avg": 9590.33, "min": 7676.93, "max": 12537.6, "p99": 12493.19},
		"start_time":         "2026-12-03T12:13:50.574846", "end_time": "2026-12-03T12:14:30.488601"}
}

// The run's summary is its profiling phase's plus warmup_metrics: an honest pair agrees; each
// leaf of the run's summary changed alone, a field added or removed, the phase's summary missing
// or named outside the run, is named.
func TestRunSummaryIsItsProfilingPhases(t *testing.T) {
	dir := t.TempDir()
	run := honestSummary()
	run["warmup_metrics"] = map[string]any{"request_count": map[string]any{"avg": 2.0}}
	writeSummaries(t, dir, "phases/profiling/profile_export_aiperf.json", run, honestSummary())
	if p := phaseSummaryProblem(dir); p != "" {
		t.Fatalf("honest run: %s", p)
	}
	edits := map[string]func(map[string]any){
		"request_count":   func(m map[string]any) { m["request_count"].(map[string]any)["avg"] = 7.0 },
		"duration":        func(m map[string]any) { m["benchmark_duration"].(map[string]any)["avg"] = 37.5 },
		"latency max":     func(m map[string]any) { m["request_latency"].(map[string]any)["max"] = 9000.0 },
		"latency p99":     func(m map[string]any) { m["request_latency"].(map[string]any)["p99"] = 9000.0 },
		"end time":        func(m map[string]any) { m["end_time"] = "2026-12-03T12:14:28.000000" },
		"a field removed": func(m map[string]any) { delete(m, "request_latency") },
		"a field added":   func(m map[string]any) { m["request_throughput"] = map[string]any{"avg": 0.2} },
	}
	for name, edit := range edits {
		forged := honestSummary()
		edit(forged)
		writeSummaries(t, dir, "phases/profiling/profile_export_aiperf.json", forged, honestSummary())
		if p := phaseSummaryProblem(dir); !strings.Contains(p, "(a copy of it) has") {
			t.Errorf("%s: %q", name, p)
		}
	}
	os.RemoveAll(filepath.Join(dir, "phases"))
	writeSummaries(t, dir, "phases/profiling/profile_export_aiperf.json", honestSummary(), nil)
	if p := phaseSummaryProblem(dir); !strings.Contains(p, "the profiling phase's summary phases/profiling/profile_export_aiperf.json") {
		t.Errorf("phase summary deleted: %q", p)
	}
	for _, named := range []string{"", "../other/profile_export_aiperf.json", "/tmp/profile_export_aiperf.json"} {
		writeSummaries(t, dir, named, honestSummary(), honestSummary())
		if p := phaseSummaryProblem(dir); !strings.Contains(p, "AIPerf writes every phase's summary inside the run") {
			t.Errorf("phase summary named %q: %q", named, p)
		}
	}
}
