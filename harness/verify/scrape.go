package verify

import (
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
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
	required := kindOf(row.Stage.TargetKind).ExportsTaskMetrics()
	for _, dir := range artifactRunDirs(runDir, row.Result.AIPerf.Dir) {
		scrape := scrapeFile(dir)
		where := relTo(runDir, scrape)
		series, ok := scrapedTaskCalls(scrape, row.scrapeIn(dir), report)
		if !ok {
			if required {
				report(where, "no /metrics scrape of trtmc_task_call_seconds in this AIPerf run: the %s target's server exports it in every run, and it is the second copy of the run's Task times", row.Stage.TargetKind)
			}
			continue
		}
		exports, err := row.exportsIn(dir)
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
		if series.calls == 0 && len(times) > 0 {
			warmup, ok := scrapedTaskCalls(scrape, row.scrapeIn(dir).warmupWindow(), report)
			if series, ok = throughWarmupWindow(warmup, ok, measuredIn(exports)); !ok {
				report(where, "trtmc_task_call_seconds counted no Task call in the profiling window, and the warmup window counted %d of the run's %d measured calls: AIPerf leaves the profiling window empty only when the warmup window took in every measured call", warmup.calls, measuredIn(exports))
				continue
			}
		}
		for _, problem := range series.against(times) {
			report(where, "trtmc_task_call_seconds: %s", problem)
		}
	}
}

// throughWarmupWindow is the window to compare a run's records with when AIPerf wrote its
// profiling window empty ({"count": 0}): that happens when the "warmup complete" scrape comes
// late, after the measured calls ended, so the warmup window took in every one of them and its
// histogram is the second copy of their times. ok is false when it did not (a window emptied
// to hide the Task times). A run that warms up with as many requests as it measures leaves a
// forger who empties only the profiling window the warmup calls to hide behind; the targets'
// runs warm up with fewer.
func throughWarmupWindow(warmup taskCallSeries, scraped bool, measured int) (taskCallSeries, bool) {
	return warmup, scraped && warmup.calls >= measured
}

// measuredIn counts a run's measured (profiling) requests.
func measuredIn(e aiperfexport.Exports) int {
	n := 0
	for _, raw := range e.Raw {
		if raw.Metadata.Phase == aiperfexport.PhaseProfiling {
			n++
		}
	}
	return n
}

// taskCallSeries is trtmc_task_call_seconds over a run's profiling window, all series added up:
// the calls counted, their seconds, their mean, and the cumulative bucket counts by upper bound.
type taskCallSeries struct {
	calls   int
	seconds float64
	avg     float64
	hasAvg  bool
	buckets map[float64]int // upper bound → calls at or below it (+Inf included)
}

// against compares the scrape with the run's records (their model_call_ms in seconds, sorted,
// warmup included), and the scrape's own copies with each other: the window's c calls are some
// c of the records, so their seconds lie between the sums of the c shortest and the c longest,
// and each bucket's count is at most the records at or below its bound while the calls above it
// are at most the records above it; the mean is sum/count, the +Inf bucket the count, and the
// sum lies within what the buckets allow. Records whose times were scaled, however consistently
// with the exports, fall outside; so does a sum edited without its buckets and mean.
func (s taskCallSeries) against(times []float64) []string {
	var out []string
	if s.calls > len(times) {
		return []string{fmt.Sprintf("the server's /metrics counted %d Task calls in this run; its records hold %d", s.calls, len(times))}
	}
	lo, hi := sum(times[:s.calls]), sum(times[len(times)-s.calls:])
	if s.seconds < lo*(1-1e-9)-1e-6 || s.seconds > hi*(1+1e-9)+1e-6 {
		out = append(out, fmt.Sprintf("the server's /metrics counted %d Task calls taking %.3f s in this run; the records' model_call_ms of its %d requests allow %.3f–%.3f s for any %d of them",
			s.calls, s.seconds, len(times), lo, hi, s.calls))
	}
	if s.hasAvg && s.calls > 0 && math.Abs(s.avg*float64(s.calls)-s.seconds) > 1e-6*math.Max(1, s.seconds) {
		out = append(out, fmt.Sprintf("the server's /metrics mean Task call %.6f s × %d calls is not its sum %.6f s", s.avg, s.calls, s.seconds))
	}
	if inf, ok := s.buckets[math.Inf(1)]; ok && inf != s.calls {
		out = append(out, fmt.Sprintf("the server's /metrics +Inf bucket holds %d Task calls; its count is %d", inf, s.calls))
	}
	out = append(out, s.bucketsAgainst(times)...)
	return out
}

// bucketsAgainst checks each bucket bound against the records and the sum against the buckets.
// A record's milliseconds are rounded, so a bound is given a relative slack of 1e-6 either way.
func (s taskCallSeries) bucketsAgainst(times []float64) []string {
	var out []string
	bounds := slices.Sorted(maps.Keys(s.buckets))
	minSum, prev, below := 0.0, 0.0, 0
	for _, le := range bounds {
		n := s.buckets[le]
		if !math.IsInf(le, 1) {
			atOrBelow := countAtMost(times, le*(1+1e-6)+1e-9)
			above := len(times) - countAtMost(times, le*(1-1e-6)-1e-9)
			if n > atOrBelow || s.calls-n > above {
				out = append(out, fmt.Sprintf("the server's /metrics puts %d of %d Task calls at or below %g s; the records hold %d at or below it and %d above", n, s.calls, le, atOrBelow, above))
			}
		}
		if n > below {
			minSum += float64(n-below) * prev
		}
		prev, below = le, max(below, n)
	}
	if len(bounds) > 0 && s.seconds < minSum*(1-1e-6)-1e-6 {
		out = append(out, fmt.Sprintf("the server's /metrics sum %.6f s is below what its buckets allow (%.6f s)", s.seconds, minSum))
	}
	return out
}

// countAtMost is how many of the sorted times are at most x.
func countAtMost(sorted []float64, x float64) int {
	i, _ := slices.BinarySearchFunc(sorted, x, func(v, x float64) int {
		if v <= x {
			return -1
		}
		return 1
	})
	return i
}

// scrapedTaskCalls is trtmc_task_call_seconds over the profiling window of a run's scrape; ok is
// false when the run has no scrape of it (a server without /metrics).
func scrapedTaskCalls(path string, scrape serverScrape, report reporter) (taskCallSeries, bool) {
	var s taskCallSeries
	if !scrape.present {
		return s, false
	}
	if scrape.err != nil {
		report(path, "%v", scrape.err)
		return s, false
	}
	ok, all := false, scrape.metrics["trtmc_task_call_seconds"].Series
	s.buckets, s.hasAvg = map[float64]int{}, len(all) == 1
	for _, one := range all {
		// AIPerf writes a series that counted no call in the window as {"count": 0}, without
		// sum or avg (its warmup window can take in every call of a short run when its
		// "warmup complete" scrape comes late on a starved machine): zero calls, not no scrape.
		if one.Stats.Count == nil || (one.Stats.Sum == nil && *one.Stats.Count != 0) {
			continue
		}
		ok = true
		s.calls += int(*one.Stats.Count)
		if one.Stats.Sum != nil {
			s.seconds += *one.Stats.Sum
		}
		if *one.Stats.Count == 0 && one.Stats.Avg == nil {
			continue // no mean to compare, no calls in any bucket
		}
		if s.hasAvg && one.Stats.Avg != nil {
			s.avg = *one.Stats.Avg
		} else {
			s.hasAvg = false
		}
		for bound, n := range one.Buckets {
			le, err := strconv.ParseFloat(bound, 64) // "+Inf" parses as +Inf
			if err != nil {
				report(path, "trtmc_task_call_seconds bucket %q is not a bound: %v", bound, err)
				continue
			}
			s.buckets[le] += int(n)
		}
	}
	return s, ok
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
