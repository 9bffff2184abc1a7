package verify

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
)

// secondSourceRun is one AIPerf run of a row in AIPerf's shapes (the metadata, the scrape and the
// summary as aiperf 0.13.0 writes them; a reduced run's server_metrics_export.json and
// profile_export_aiperf.json are the model): two warmup and four measured requests, each Task
// call taskMS[i] long, the scrape's windows missing the first warmup call.
type secondSourceRun struct {
	taskMS       []float64
	start, end   []int64 // raw export timestamps
	metricsShift int64   // added to the metrics export's timestamps
	duration     float64 // benchmark_duration
	scrapeScale  float64 // applied to the scrape's sum
	scrapeExtra  int     // added to the scrape's count
	compressRaw  bool    // the raw export's timeline halved (throughput doubled), alone
}

func newSecondSourceRun() *secondSourceRun {
	s := &secondSourceRun{taskMS: []float64{900, 1100, 1000, 1200, 800, 1000}, scrapeScale: 1}
	t := int64(1_796_284_858_000_000_000)
	for i := range s.taskMS {
		s.start = append(s.start, t+int64(i)*1_500_000_000)
		s.end = append(s.end, t+int64(i)*1_500_000_000+1_300_000_000)
	}
	s.duration = float64(s.end[5]-s.start[2]) / 1e9
	return s
}

func (s *secondSourceRun) write(t *testing.T) *Run {
	t.Helper()
	runDir := t.TempDir()
	rel := "asr/p/aiperf/artifacts"
	dir := filepath.Join(runDir, filepath.FromSlash(rel))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var raw, metrics strings.Builder
	row := &Row{Where: "asr/p", Result: evidence.Result{Profile: "p", AIPerf: &evidence.AIPerfRun{Dir: rel}, Join: &evidence.Join{}}}
	for i, ms := range s.taskMS {
		id, phase := fmt.Sprintf("r%d", i), "profiling"
		if i < 2 {
			phase = "warmup"
		}
		md := func(start, end int64) string {
			return fmt.Sprintf(`{"x_request_id":%q,"benchmark_phase":%q,"request_start_ns":%d,"request_end_ns":%d}`, id, phase, start, end)
		}
		rawStart, rawEnd := s.start[i], s.end[i]
		if s.compressRaw {
			rawStart, rawEnd = s.start[0]+(rawStart-s.start[0])/2, s.start[0]+(rawEnd-s.start[0])/2
		}
		fmt.Fprintf(&raw, `{"metadata":%s,"request_headers":{"X-Request-ID":%q},"status":200,"responses":[]}`+"\n", md(rawStart, rawEnd), id)
		fmt.Fprintf(&metrics, `{"metadata":%s,"metrics":{}}`+"\n", md(s.start[i]+s.metricsShift, s.end[i]+s.metricsShift))
		row.Pairs = append(row.Pairs, join.Pair{ID: id, Server: contract.Record{RequestID: id, Timing: contract.Timing{ModelCallMS: ms}}})
	}
	scraped := 0.0
	for _, ms := range s.taskMS[1:] {
		scraped += ms / 1e3
	}
	histogram := func(count int, sum float64) map[string]any {
		return map[string]any{"trtmc_task_call_seconds": map[string]any{"type": "histogram", "series": []any{
			map[string]any{"labels": map[string]string{"model": "p"}, "stats": map[string]any{"count": count, "sum": sum}}}}}
	}
	warm := s.taskMS[1] / 1e3
	files := map[string]any{
		"server_metrics_export.json": map[string]any{"warmup_metrics": histogram(1, warm),
			"metrics": histogram(4+s.scrapeExtra, (scraped-warm)*s.scrapeScale)},
		"profile_export_aiperf.json": map[string]any{"benchmark_duration": map[string]any{"unit": "sec", "avg": s.duration}},
	}
	for name, v := range files {
		data, _ := json.Marshal(v)
		mustWrite(t, filepath.Join(dir, name), data)
	}
	mustWrite(t, filepath.Join(dir, "profile_export_raw.jsonl"), []byte(raw.String()))
	mustWrite(t, filepath.Join(dir, "profile_export.jsonl"), []byte(metrics.String()))
	return &Run{Dir: runDir, Rows: []*Row{row}}
}

func mustWrite(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// The scrape bounds the records' Task times, and both exports and AIPerf's summary hold one
// measured window: each copy edited alone is named, the consistent run passes.
func TestSecondSourcesAgree(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(s *secondSourceRun)
		want string // "" = no problem
	}{
		{"consistent", func(*secondSourceRun) {}, ""},
		{"every record's Task time halved", func(s *secondSourceRun) {
			for i := range s.taskMS {
				s.taskMS[i] /= 2
			}
			s.scrapeScale = 2 // the scrape keeps the real times
		}, "the records' model_call_ms of its 6 requests allow"},
		{"the scrape counts more calls than the run made", func(s *secondSourceRun) { s.scrapeExtra = 3 }, "counted 7 Task calls in this run; its records hold 6"},
		{"the raw timestamps compressed (throughput doubled)", func(s *secondSourceRun) { s.compressRaw = true }, "but profile_export.jsonl has"},
		{"benchmark_duration halved", func(s *secondSourceRun) { s.duration /= 2 }, "AIPerf's benchmark_duration is"},
		{"the metrics export's timestamps moved", func(s *secondSourceRun) { s.metricsShift = 1000 }, "but profile_export.jsonl has"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newSecondSourceRun()
			c.edit(s)
			run := s.write(t)
			var got []string
			for _, p := range append(scrapeCheck(run), exportsAgreeCheck(run)...) {
				got = append(got, p.String())
			}
			switch {
			case c.want == "" && len(got) > 0:
				t.Errorf("a consistent run: %v", got)
			case c.want != "" && !containsAll(got, c.want):
				t.Errorf("no problem says %q: %v", c.want, got)
			}
		})
	}
}

// A row that built or gated a bundle names it; a planned row names none.
func TestBundlePathIsRequiredOfABuiltRow(t *testing.T) {
	run := &Run{Rows: []*Row{
		{Where: "asr/built", Result: evidence.Result{Bundle: evidence.Bundle{SHA256Built: "ab"}}},
		{Where: "asr/planned", Result: evidence.Result{Status: evidence.StatusPlanned}},
		{Where: "asr/stored", Result: evidence.Result{Bundle: evidence.Bundle{Path: "asr/stored/s.bundle", SHA256Built: "cd"}}},
	}}
	got := bundlePathCheck(run)
	if len(got) != 1 || got[0].Where != "asr/built" || !strings.Contains(got[0].What, "bundle.path is empty") {
		t.Fatalf("bundle.path check: %v", got)
	}
}
