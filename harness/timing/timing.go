// Package timing derives steady-state figures from joined requests. Client latency (AIPerf's
// request_latency, end to end over HTTP) is kept apart from the server's model_call_ms (the
// wall time of one public Task call, TRTMC's public_task_call_wall); only measured requests
// count — warmup, build, load and startup are excluded. Every figure carries its formula.
package timing

import (
	"fmt"
	"math"
	"sort"
)

// Sample is one measured request.
type Sample struct {
	ClientMS     float64 // AIPerf request_latency
	TaskMS       float64 // server model_call_ms
	StartNS      int64   // AIPerf request_start_ns
	EndNS        int64   // AIPerf request_end_ns
	AudioSeconds float64 // ASR: the clip's duration
	Images       int     // T2I: images returned
	Run          int     // the AIPerf run (0-based) that sent it; rates are per run (Summarize)
}

// Figure is one derived number with the formula that produced it.
type Figure struct {
	Name    string  `json:"name"`
	Value   float64 `json:"value"`
	Unit    string  `json:"unit"`
	Formula string  `json:"formula"`
	// Interval is a tail percentile's distribution-free interval (PercentileInterval), with n.
	Interval *OrderInterval `json:"order_interval,omitempty"`
}

// Percentile is the linear-interpolation percentile (numpy's default): position p/100·(n−1)
// in the sorted values.
func Percentile(values []float64, p float64) float64 {
	if len(values) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), values...)
	sort.Float64s(s)
	pos := p / 100 * float64(len(s)-1)
	lo := int(math.Floor(pos))
	if lo+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[lo] + (pos-float64(lo))*(s[lo+1]-s[lo])
}

// Summary is a stage's steady-state figures.
type Summary struct {
	Requests int      `json:"requests"`
	Figures  []Figure `json:"figures"`
}

// Get returns a figure's value by name.
func (s Summary) Get(name string) (float64, bool) {
	for _, f := range s.Figures {
		if f.Name == name {
			return f.Value, true
		}
	}
	return 0, false
}

// Summarize computes the figures over measured samples. A sample whose client latency is below
// its Task time is an error: the client cannot have waited less than the call it waited for.
//
// Every rate has one definition, whatever the number of AIPerf runs: it is computed per run
// over that run's measurement window (its measured requests' first start to last end) and
// reported as the mean over runs, so the gaps between runs (start-up, warmup of the next run)
// never dilute it and the same number is the mean of the intervals over runs (harness/stats).
func Summarize(samples []Sample) (Summary, error) {
	if len(samples) == 0 {
		return Summary{}, fmt.Errorf("no measured requests to summarize")
	}
	var client, taskMS, diff []float64
	audio := 0.0
	for i, s := range samples {
		if s.ClientMS < s.TaskMS {
			return Summary{}, fmt.Errorf("sample %d: client latency %.3f ms < model_call_ms %.3f ms", i, s.ClientMS, s.TaskMS)
		}
		client, taskMS, diff = append(client, s.ClientMS), append(taskMS, s.TaskMS), append(diff, s.ClientMS-s.TaskMS)
		audio += s.AudioSeconds
	}
	sum := Summary{Requests: len(samples)}
	add := func(name, unit, formula string, v float64) {
		sum.Figures = append(sum.Figures, Figure{Name: name, Value: v, Unit: unit, Formula: formula})
	}
	for _, p := range []float64{50, 95, 99} {
		percentile := func(name, formula string, values []float64) {
			add(fmt.Sprintf("%s_p%.0f", name, p), "ms", fmt.Sprintf(formula, p), Percentile(values, p))
			if p > 50 { // a tail: with its interval and n, whatever n is
				iv := PercentileInterval(values, p)
				last := &sum.Figures[len(sum.Figures)-1]
				last.Interval, last.Formula = &iv, last.Formula+"; "+OrderRule
			}
		}
		percentile("client_latency", "p%.0f of AIPerf request_latency over measured requests (linear interpolation)", client)
		percentile("task_call", "p%.0f of server model_call_ms (public_task_call_wall: the one public Task call; for a worker-backed family such as whisper, exactly the worker round trip) over measured requests", taskMS)
		percentile("client_minus_task", "p%.0f of (request_latency − model_call_ms) per request", diff)
	}
	runs := perRun(samples)
	rate := func(name, unit, what string, of func(runTotals) (float64, bool)) {
		if v, ok := meanOverRuns(runs, of); ok {
			add(name, unit, "mean over AIPerf runs of "+what, v)
		}
	}
	rate("benchmark_duration", "s", "the run's measurement window: max(request_end_ns) − min(request_start_ns) over its measured requests",
		func(r runTotals) (float64, bool) { return r.window, true })
	rate("request_throughput", "req/s", "(the run's measured successful requests / its measurement window)",
		func(r runTotals) (float64, bool) { return float64(r.requests) / r.window, r.window > 0 })
	if audio > 0 {
		add("audio_seconds", "s", "Σ clip durations of measured requests", audio)
		rate("audio_seconds_per_second", "s/s", "(the run's Σ clip durations / its measurement window)",
			func(r runTotals) (float64, bool) { return r.audio / r.window, r.window > 0 })
		rate("rtf", "ratio", "(the run's Σ model_call_ms / its Σ clip durations in ms): Task time per audio time, lower is faster",
			func(r runTotals) (float64, bool) { return r.taskMS / (r.audio * 1000), r.audio > 0 })
		rate("rtfx", "ratio", "(the run's Σ clip durations in ms / its Σ model_call_ms): audio time per Task time, higher is faster",
			func(r runTotals) (float64, bool) { return r.audio * 1000 / r.taskMS, r.taskMS > 0 })
	}
	if runs.images() > 0 {
		rate("images_per_second", "img/s", "(the run's Σ images returned / its measurement window)",
			func(r runTotals) (float64, bool) { return float64(r.images) / r.window, r.window > 0 })
	}
	return sum, nil
}

// IsRunMean says whether a figure is a mean over AIPerf runs of each run's own value (the
// rates and the measurement window), so that its interval over runs (harness/stats) is an
// interval of this very number.
func IsRunMean(name string) bool {
	switch name {
	case "benchmark_duration", "request_throughput", "audio_seconds_per_second", "rtf", "rtfx", "images_per_second":
		return true
	}
	return false
}

// runTotals are one AIPerf run's sums over its measured requests.
type runTotals struct {
	requests, images int
	audio, taskMS    float64
	window           float64 // seconds
	first, last      int64
}

type runs []runTotals

func (rs runs) images() int {
	n := 0
	for _, r := range rs {
		n += r.images
	}
	return n
}

// perRun sums the samples of each run, in run order.
func perRun(samples []Sample) runs {
	index := map[int]int{}
	var out runs
	for _, s := range samples {
		i, ok := index[s.Run]
		if !ok {
			i = len(out)
			index[s.Run] = i
			out = append(out, runTotals{first: math.MaxInt64, last: math.MinInt64})
		}
		r := &out[i]
		r.requests++
		r.images += s.Images
		r.audio += s.AudioSeconds
		r.taskMS += s.TaskMS
		r.first, r.last = min(r.first, s.StartNS), max(r.last, s.EndNS)
	}
	for i := range out {
		out[i].window = float64(out[i].last-out[i].first) / 1e9
	}
	return out
}

// meanOverRuns is the mean of a per-run figure; a figure any run cannot have (a zero window)
// is left out rather than averaged over the runs that have it.
func meanOverRuns(rs runs, of func(runTotals) (float64, bool)) (float64, bool) {
	total := 0.0
	for _, r := range rs {
		v, ok := of(r)
		if !ok {
			return 0, false
		}
		total += v
	}
	return total / float64(len(rs)), len(rs) > 0
}
