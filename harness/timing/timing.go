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
}

// Figure is one derived number with the formula that produced it.
type Figure struct {
	Name    string  `json:"name"`
	Value   float64 `json:"value"`
	Unit    string  `json:"unit"`
	Formula string  `json:"formula"`
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
func Summarize(samples []Sample) (Summary, error) {
	if len(samples) == 0 {
		return Summary{}, fmt.Errorf("no measured requests to summarize")
	}
	var client, taskMS, diff []float64
	var first, last int64 = math.MaxInt64, math.MinInt64
	audio, images, taskSum := 0.0, 0, 0.0
	for i, s := range samples {
		if s.ClientMS < s.TaskMS {
			return Summary{}, fmt.Errorf("sample %d: client latency %.3f ms < model_call_ms %.3f ms", i, s.ClientMS, s.TaskMS)
		}
		client, taskMS, diff = append(client, s.ClientMS), append(taskMS, s.TaskMS), append(diff, s.ClientMS-s.TaskMS)
		first, last = min(first, s.StartNS), max(last, s.EndNS)
		audio += s.AudioSeconds
		images += s.Images
		taskSum += s.TaskMS
	}
	duration := float64(last-first) / 1e9
	sum := Summary{Requests: len(samples)}
	add := func(name, unit, formula string, v float64) {
		sum.Figures = append(sum.Figures, Figure{Name: name, Value: v, Unit: unit, Formula: formula})
	}
	for _, p := range []float64{50, 95, 99} {
		add(fmt.Sprintf("client_latency_p%.0f", p), "ms", fmt.Sprintf("p%.0f of AIPerf request_latency over measured requests (linear interpolation)", p), Percentile(client, p))
		add(fmt.Sprintf("task_call_p%.0f", p), "ms", fmt.Sprintf("p%.0f of server model_call_ms (public_task_call_wall: the one public Task call; for a worker-backed family such as whisper, exactly the worker round trip) over measured requests", p), Percentile(taskMS, p))
		add(fmt.Sprintf("client_minus_task_p%.0f", p), "ms", fmt.Sprintf("p%.0f of (request_latency − model_call_ms) per request", p), Percentile(diff, p))
	}
	add("benchmark_duration", "s", "max(request_end_ns) − min(request_start_ns) over measured requests", duration)
	if duration > 0 {
		add("request_throughput", "req/s", "measured successful requests / benchmark_duration", float64(len(samples))/duration)
	}
	if audio > 0 {
		add("audio_seconds", "s", "Σ clip durations of measured requests", audio)
		if duration > 0 {
			add("audio_seconds_per_second", "s/s", "Σ clip durations / benchmark_duration", audio/duration)
		}
		add("rtf", "ratio", "Σ model_call_ms / Σ clip durations (ms): Task time per audio time, lower is faster", taskSum/(audio*1000))
		add("rtfx", "ratio", "Σ clip durations / Σ model_call_ms: audio time per Task time, higher is faster", audio*1000/taskSum)
	}
	if images > 0 && duration > 0 {
		add("images_per_second", "img/s", "Σ images returned / benchmark_duration", float64(images)/duration)
	}
	return sum, nil
}
