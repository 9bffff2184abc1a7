package verify

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// seriesOf is the histogram an honest server exports for calls (seconds), with the reference
// server's power-of-two bounds from 1 ms.
func seriesOf(calls []float64) taskCallSeries {
	s := taskCallSeries{calls: len(calls), buckets: map[float64]int{math.Inf(1): len(calls)}, hasAvg: true}
	for le := 0.001; le < 40; le *= 2 {
		s.buckets[le] = 0 // every bound is exported, empty or not
		for _, c := range calls {
			if c <= le {
				s.buckets[le]++
			}
		}
	}
	for _, c := range calls {
		s.seconds += c
	}
	s.avg = s.seconds / float64(len(calls))
	return s
}

// TestScrapeSeriesAgainstRecords attacks the class: for random runs, an honest scrape of any
// window of the run's calls agrees with its records; a sum scaled by any factor from 0.5 to 0.9
// without its buckets and mean is named; records so scaled (the scrape left alone) are named when
// the window holds every call (a call outside it is slack a few records can hide in); records,
// sum and mean scaled together without the buckets are named whenever a call crossed a bucket
// bound (within a bucket the histogram cannot tell), which most trials do.
func TestScrapeSeriesAgainstRecords(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	crossed := 0
	for trial := 0; trial < 500; trial++ {
		n := 2 + rng.IntN(40)
		times := make([]float64, n)
		for i := range times {
			times[i] = 0.005 * math.Exp(rng.NormFloat64()*1.2+float64(rng.IntN(4)))
		}
		window := times[rng.IntN(2):] // the window can miss a warmup call at its edge
		honest := seriesOf(window)
		sorted := slices.Sorted(slices.Values(times))
		if got := honest.against(sorted); len(got) != 0 {
			t.Fatalf("trial %d: an honest scrape refused: %v", trial, got)
		}
		f := 0.5 + 0.4*rng.Float64()
		scaled := make([]float64, n)
		for i, v := range sorted {
			scaled[i] = v * f
		}
		if got := honest.against(scaled); len(got) == 0 && len(window) == n {
			t.Fatalf("trial %d: records scaled by %.2f, scrape untouched: not named", trial, f)
		}
		forged := honest
		forged.seconds *= f
		if got := forged.against(sorted); len(got) == 0 {
			t.Fatalf("trial %d: the scrape's sum scaled by %.2f alone: not named", trial, f)
		}
		forged.avg *= f
		scaledWindow := make([]float64, len(window))
		for i, v := range window {
			scaledWindow[i] = v * f
		}
		if len(window) != n || maps.Equal(seriesOf(scaledWindow).buckets, honest.buckets) {
			continue // a call outside the window leaves the records a call of slack per bound
		}
		crossed++
		if got := forged.against(scaled); len(got) == 0 {
			t.Fatalf("trial %d: records, sum and mean scaled by %.2f, buckets untouched: not named", trial, f)
		}
	}
	if crossed < 200 {
		t.Errorf("only %d of 500 trials had the window of every call and moved one across a bucket bound: the attack is too weak to test", crossed)
	}
}

// A window that counted no Task call is written by AIPerf as {"count": 0} without a sum or mean
// (a late "warmup complete" scrape on a starved machine leaves the profiling window empty): that
// is a scrape of zero calls, which the records allow, not a missing scrape; a series that counted
// calls but lost its sum is still no scrape.
func TestScrapeOfNoCallsIsZeroCalls(t *testing.T) {
	parse := func(stats string) (taskCallSeries, bool, []string) {
		t.Helper()
		path := filepath.Join(t.TempDir(), "server_metrics_export.json")
		body := `{"metrics":{"trtmc_task_call_seconds":{"type":"histogram","series":[{"labels":{"model":"m"},"stats":` + stats +
			`,"buckets":{"0.5":0,"+Inf":0}}]}}}`
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		var problems []string
		s, ok := scrapedTaskCalls(path, readScrape(path), func(where, format string, args ...any) {
			problems = append(problems, fmt.Sprintf(format, args...))
		})
		return s, ok, problems
	}
	s, ok, problems := parse(`{"count":0}`)
	if !ok || s.calls != 0 || s.seconds != 0 || len(problems) > 0 {
		t.Fatalf("AIPerf's empty window: ok %v, %+v, %v", ok, s, problems)
	}
	if got := s.against([]float64{0.1, 0.2, 0.3}); len(got) > 0 {
		t.Errorf("zero calls against three records: %v", got)
	}
	if _, ok, _ := parse(`{"count":3}`); ok {
		t.Error("a series of 3 calls without its sum was read as a scrape")
	}
}

// An empty profiling window stands in for the run's Task times only through the warmup window
// that took in every measured call: for random runs, the honest late scrape (the warmup window
// holding every call) agrees with the records; a profiling window emptied by a forger, with
// the warmup window left holding only the warmup calls or emptied too, is refused; and records
// halved under an honest late scrape are named by the warmup window's copy.
func TestEmptyProfilingWindowGoesThroughWarmup(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 40))
	for i := range 500 {
		warm := 1 + r.IntN(4)
		measured := warm + 1 + r.IntN(12) // every target warms up with fewer requests than it measures
		calls := make([]float64, warm+measured)
		for k := range calls {
			calls[k] = 0.002 + r.Float64()*r.Float64()*20
		}
		records := slices.Sorted(slices.Values(calls))
		if s, ok := throughWarmupWindow(seriesOf(calls), true, measured); !ok || len(s.against(records)) > 0 {
			t.Fatalf("run %d: an honest late warmup scrape refused: ok %v, %v", i, ok, s.against(records))
		}
		if _, ok := throughWarmupWindow(seriesOf(calls[:warm]), true, measured); ok {
			t.Fatalf("run %d: the profiling window emptied, the warmup window's %d calls taken for %d measured", i, warm, measured)
		}
		if _, ok := throughWarmupWindow(taskCallSeries{buckets: map[float64]int{}}, true, measured); ok {
			t.Fatalf("run %d: both windows empty accepted", i)
		}
		halved := make([]float64, len(records))
		for k, v := range records {
			halved[k] = v / 2
		}
		if s, _ := throughWarmupWindow(seriesOf(calls), true, measured); len(s.against(halved)) == 0 {
			t.Fatalf("run %d: records halved under the warmup window's copy not named", i)
		}
	}
}
