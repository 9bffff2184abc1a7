package verify

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"

	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// scrapeCheck: the server's /metrics, as AIPerf scraped it during each run
// (server_metrics_export.json), is a second copy of the Task times the records hold. Its
// histogram trtmc_task_call_seconds counts, over the profiling window, c Task calls taking S
// seconds; the window can miss a call at its edges or take in a warmup call still running, so S
// must lie between the sums of the c shortest and the c longest model_call_ms the run's records
// (warmup included) hold. The warmup window is not added: AIPerf's two windows can overlap (with
// no flush period its warmup window's last scrape already counts profiling calls), so their sum
// can count a call twice. Records whose times were
// scaled, however consistently with the exports, fall outside.
func scrapeCheck(r *Run) []Problem {
	return r.eachRow(func(row *Row, report reporter) {
		if len(row.Pairs) > 0 {
			checkScrape(r.Dir, row, report)
		}
	})
}

func checkScrape(runDir string, row *Row, report reporter) {
	taskMS := map[string]float64{}
	for _, p := range row.Pairs {
		taskMS[p.ID] = p.Server.Timing.ModelCallMS
	}
	for _, dir := range artifactRunDirs(runDir, row.Result.AIPerf.Dir) {
		scrape := filepath.Join(dir, "server_metrics_export.json")
		calls, seconds, ok := scrapedTaskCalls(scrape, report)
		if !ok {
			continue
		}
		exports, err := aiperfexport.Read(dir)
		if err != nil {
			continue // servedCheck reports unreadable exports
		}
		var times []float64
		for _, raw := range exports.Raw {
			if ms, ok := taskMS[raw.HeaderRequestID()]; ok {
				times = append(times, ms/1e3)
			}
		}
		slices.Sort(times)
		where := relTo(runDir, scrape)
		if calls > len(times) {
			report(where, "the server's /metrics counted %d Task calls in this run; its records hold %d", calls, len(times))
			continue
		}
		lo, hi := sum(times[:calls]), sum(times[len(times)-calls:])
		if seconds < lo*(1-1e-9)-1e-6 || seconds > hi*(1+1e-9)+1e-6 {
			report(where, "the server's /metrics counted %d Task calls taking %.3f s in this run; the records' model_call_ms of its %d requests allow %.3f–%.3f s for any %d of them",
				calls, seconds, len(times), lo, hi, calls)
		}
	}
}

// scrapedTaskCalls reads trtmc_task_call_seconds's count and sum over the profiling window of a
// run's scrape; ok is false when the run has no scrape of it (a server without /metrics).
func scrapedTaskCalls(path string, report reporter) (calls int, seconds float64, ok bool) {
	if _, err := os.Lstat(path); err != nil {
		return 0, 0, false
	}
	data, err := runfile.ReadFile(path)
	if err != nil {
		report(path, "%v", err)
		return 0, 0, false
	}
	type series struct {
		Stats struct {
			Count *float64 `json:"count"`
			Sum   *float64 `json:"sum"`
		} `json:"stats"`
	}
	type metric struct {
		Series []series `json:"series"`
	}
	var export struct {
		Metrics map[string]metric `json:"metrics"`
	}
	if err := json.Unmarshal(data, &export); err != nil {
		report(path, "not AIPerf's server-metrics export: %v", err)
		return 0, 0, false
	}
	count := 0.0
	for _, s := range export.Metrics["trtmc_task_call_seconds"].Series {
		if s.Stats.Count != nil && s.Stats.Sum != nil {
			count, seconds, ok = count+*s.Stats.Count, seconds+*s.Stats.Sum, true
		}
	}
	return int(count), seconds, ok
}

// artifactRunDirs are a row's AIPerf run directories: each profile_runs/run_NNNN, or the artifact
// directory itself.
func artifactRunDirs(runDir, aiperfDir string) []string {
	dir, err := workload.InsideDir(runDir, "aiperf.dir", aiperfDir)
	if err != nil {
		return nil
	}
	dirs, _ := filepath.Glob(filepath.Join(dir, aiperfexport.RunsDir, "run_*"))
	if len(dirs) == 0 {
		return []string{dir}
	}
	slices.Sort(dirs)
	return dirs
}

func relTo(runDir, path string) string {
	if rel, err := filepath.Rel(runDir, path); err == nil {
		return filepath.ToSlash(rel)
	}
	return path
}

func sum(xs []float64) float64 {
	total := 0.0
	for _, x := range xs {
		total += x
	}
	return total
}
