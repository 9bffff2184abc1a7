package verify

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
)

// roundFourForgeries are kinds of the fourth red team's forgeries, each re-signed by a forger:
// a second source that verify compares only when it is present, removed with the datum edited.
func roundFourForgeries() []tamper {
	return []tamper{
		{name: "R4 every Task time of a row halved, the /metrics scrape exports of its runs deleted", forged: true,
			want: []string{"server_metrics_export.json"},
			edit: func(t *testing.T, f *forger) { halveRowTaskTimes(t, f, f.removeScrape) }},
		{name: "R4 every Task time of a row halved, the scrape's Task histogram sums halved with them", forged: true,
			want: []string{"server_metrics_export.json", "trtmc_task_call_seconds"},
			edit: func(t *testing.T, f *forger) {
				halveRowTaskTimes(t, f, func(d string) { f.scaleScrapeTaskSum(d, 0.5) })
			}},
		{name: "R4 every Task time of a row halved, the Task histogram and Go gauges cut from its scrapes (a server without them)", forged: true,
			want: []string{"server_metrics_export.json", "trtmc_task_call_seconds"},
			edit: func(t *testing.T, f *forger) { halveRowTaskTimes(t, f, f.cutScrapeMetrics) }},
		{name: "R4 the hardware relabelled (112 cores) in every stage and JUnit report, every /metrics scrape deleted", forged: true,
			want: []string{"server_metrics_export.json"},
			edit: func(t *testing.T, f *forger) {
				tamperNamed(t, secondSourceForgeries(), "R3 the hardware relabelled (112 cores, another CPU, a GPU) in every stage and JUnit report").edit(t, f)
				for _, s := range f.e.Stages {
					for _, r := range s.Results {
						if r.AIPerf != nil && r.AIPerf.Dir != "" {
							for _, d := range f.runDirs(r) {
								f.removeScrape(d)
							}
						}
					}
				}
			}},
	}
}

// tamperNamed is the case of the table with that name, so a forgery can build on another's edit.
func tamperNamed(t *testing.T, cases []tamper, name string) tamper {
	t.Helper()
	for _, c := range cases {
		if c.name == name {
			return c
		}
	}
	t.Fatalf("no tamper case named %q", name)
	return tamper{}
}

// halveRowTaskTimes halves every Task time of a qualified ASR row in its records and response
// bodies (nanosecond timestamps kept exact), lets scrape edit each AIPerf run's server-metrics
// scrape, and recomputes the row's figures and their JUnit copies.
func halveRowTaskTimes(t *testing.T, f *forger, scrape func(dir string)) {
	t.Helper()
	i, r := f.result(string(stage.ASR), evidence.StatusQualified, "")
	for _, d := range f.runDirs(r) {
		scrape(d)
	}
	f.timingsExact(r, func(timing any) { halveTaskTimeExact(t, timing) })
	f.stage(string(stage.ASR), func(s *evidence.Stage) { f.recompute(&s.Results[i]) })
	f.junitTiming(string(stage.ASR), i)
}

// timingsExact hands fn every trtmc_timing of a row, in its server records and in its response
// bodies, decoded with json.Number (nanosecond timestamps kept exact).
func (f *forger) timingsExact(r evidence.Result, fn func(timing any)) {
	f.t.Helper()
	f.jsonlExact(r.Records, func(m map[string]any) map[string]any {
		fn(m["trtmc_timing"])
		return m
	})
	for _, d := range f.runDirs(r) {
		f.jsonlExact(d+"/profile_export_raw.jsonl", func(m map[string]any) map[string]any {
			resp := m["responses"].([]any)[0].(map[string]any)
			dec := json.NewDecoder(strings.NewReader(resp["text"].(string)))
			dec.UseNumber()
			var body map[string]any
			if err := dec.Decode(&body); err != nil {
				f.t.Fatal(err)
			}
			fn(body["trtmc_timing"])
			b, _ := json.Marshal(body)
			resp["text"] = string(b)
			return m
		})
	}
}

// halveTaskTimeExact halves a trtmc_timing's model_call_ms decoded with json.Number (the lines
// around it keep their nanosecond timestamps exact).
func halveTaskTimeExact(t *testing.T, timing any) {
	t.Helper()
	m, ok := timing.(map[string]any)
	if !ok {
		return
	}
	if n, ok := m["model_call_ms"].(json.Number); ok {
		v, err := n.Float64()
		if err != nil {
			t.Fatal(err)
		}
		m["model_call_ms"] = v / 2
	}
}

// cutScrapeMetrics removes the Task-call histogram and the Go runtime's gauges from every
// metrics section of a run's server-metrics export, keeping the rest of the scrape: what a server
// that exports neither would leave.
func (f *forger) cutScrapeMetrics(rel string) {
	f.t.Helper()
	f.scrapeSections(rel, func(metrics map[string]any) {
		for name := range metrics {
			if name == "trtmc_task_call_seconds" || strings.HasPrefix(name, "go_") {
				delete(metrics, name)
			}
		}
	})
}

// scaleScrapeTaskSum scales the sum of every trtmc_task_call_seconds series in a run's
// server-metrics export (the figures verify reads; the buckets and estimates are left).
func (f *forger) scaleScrapeTaskSum(rel string, by float64) {
	f.t.Helper()
	f.scrapeSections(rel, func(metrics map[string]any) {
		hist, _ := metrics["trtmc_task_call_seconds"].(map[string]any)
		series, _ := hist["series"].([]any)
		for _, sr := range series {
			stats := sr.(map[string]any)["stats"].(map[string]any)
			v, err := stats["sum"].(json.Number).Float64()
			if err != nil {
				f.t.Fatal(err)
			}
			stats["sum"] = v * by
		}
	})
}

// removeScrape deletes every copy of AIPerf's server-metrics scrape in one AIPerf run directory
// (the run's export, its CSV and each phase's), as a forger would to leave no second source.
func (f *forger) removeScrape(rel string) {
	f.t.Helper()
	err := filepath.WalkDir(f.path(rel), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), "server_metrics") {
			return os.Remove(p)
		}
		return nil
	})
	if err != nil {
		f.t.Fatal(err)
	}
}

// scrapeSections rewrites a run's server-metrics export, numbers kept as written, handing fn each
// of its metrics sections (profiling and warmup).
func (f *forger) scrapeSections(rel string, fn func(metrics map[string]any)) {
	f.t.Helper()
	f.rewrite(rel+"/server_metrics_export.json", func(b []byte) []byte {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var export map[string]any
		if err := dec.Decode(&export); err != nil {
			f.t.Fatal(err)
		}
		for _, section := range []string{"metrics", "warmup_metrics"} {
			if metrics, ok := export[section].(map[string]any); ok {
				fn(metrics)
			}
		}
		out, err := json.Marshal(export)
		if err != nil {
			f.t.Fatal(err)
		}
		return out
	})
}
