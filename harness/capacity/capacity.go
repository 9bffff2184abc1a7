// Package capacity answers "how much can this checkpoint serve within its latency objective":
// from the joined requests of a sweep over concurrency levels (each level several AIPerf runs)
// it derives, per level, throughput, goodput, client, Task and queue percentiles, failures and
// whether the client kept up; then the highest level that meets the objective with its interval
// over runs, the knee where throughput saturates, and how close that is to the bound the
// server's lanes and Task time allow. It imports only leaves (timing, stats).
package capacity

import (
	"fmt"
	"math"

	"github.com/trtmc-qual/trtmc-qual/harness/stats"
	"github.com/trtmc-qual/trtmc-qual/harness/timing"
)

// Objective is a stage's latency objective, declared in the target file.
type Objective struct {
	ClientP95MS float64 `yaml:"client_p95_ms" json:"client_p95_ms"`     // client latency p95 at most this
	MaxRTF      float64 `yaml:"max_rtf" json:"max_rtf,omitempty"`       // ASR: Task time per audio time at most this (0: none)
	MaxFailures int     `yaml:"max_failures" json:"max_failures"`       // failed requests a level may have (default 0)
	Note        string  `yaml:"note" json:"note,omitempty"`             // where the objective comes from
	LateMS      float64 `yaml:"late_ms" json:"late_ms,omitempty"`       // client lateness bound (default KeepUpMS)
	LateShare   float64 `yaml:"late_share" json:"late_share,omitempty"` // ... or this share of client p50 (default KeepUpShare)
}

// Sweep is a stage's capacity sweep, declared in the target file.
type Sweep struct {
	Objective   Objective `yaml:"objective"`
	Concurrency []int     `yaml:"concurrency"` // levels, ascending
	Warmup      int       `yaml:"warmup"`
	Requests    int       `yaml:"requests"` // measured requests per run
	Runs        int       `yaml:"runs"`     // AIPerf runs per level (the interval's n)
}

// Validate reports a sweep that cannot be run.
func (s Sweep) Validate() error {
	if len(s.Concurrency) == 0 || s.Requests < 1 || s.Objective.ClientP95MS <= 0 {
		return fmt.Errorf("capacity sweep needs concurrency levels, requests ≥ 1 and objective.client_p95_ms > 0 (got %+v)", s)
	}
	for i, c := range s.Concurrency {
		if c < 1 || (i > 0 && c <= s.Concurrency[i-1]) {
			return fmt.Errorf("capacity concurrency levels must be ascending and ≥ 1: %v", s.Concurrency)
		}
	}
	return nil
}

// The client keeps up when AIPerf sends a request within KeepUpMS, or KeepUpShare of the
// median client latency, of issuing its credit (p95 over the run): later than that, the
// offered load was the client's, not the level's.
const (
	KeepUpMS    = 5.0
	KeepUpShare = 0.05
	// KneeShare: the knee is the lowest level reaching this share of the highest throughput.
	KneeShare = 0.90
)

// Request is one joined measured request.
type Request struct {
	ClientMS, TaskMS, QueueMS float64
	StartNS, EndNS, CreditNS  int64 // AIPerf's send, answer and credit issue times
	AudioSeconds              float64
	Failed                    bool
}

// Run is one AIPerf run's figures at one level.
type Run struct {
	Requests            int     `json:"requests"`
	Failures            int     `json:"failures"`
	DurationS           float64 `json:"duration_s"`
	Throughput          float64 `json:"throughput_rps"`
	Goodput             float64 `json:"goodput_rps"`
	AIPerfGoodput       float64 `json:"aiperf_goodput_rps,omitempty"` // AIPerf's own (--goodput), when it reported one
	ClientP50MS         float64 `json:"client_p50_ms"`
	ClientP95MS         float64 `json:"client_p95_ms"`
	TaskP50MS           float64 `json:"task_p50_ms"`
	TaskP95MS           float64 `json:"task_p95_ms"`
	QueueP50MS          float64 `json:"queue_p50_ms"`
	QueueP95MS          float64 `json:"queue_p95_ms"`
	RTF                 float64 `json:"rtf,omitempty"`
	AchievedConcurrency float64 `json:"achieved_concurrency"` // Σ client latency / duration
	LatenessP95MS       float64 `json:"lateness_p95_ms"`      // AIPerf credit issued → request sent
	ClientKeptUp        bool    `json:"client_kept_up"`
	MeetsObjective      bool    `json:"meets_objective"`
}

// good says a request meets the objective on its own (goodput counts these).
func (o Objective) good(r Request) bool {
	if r.Failed || r.ClientMS > o.ClientP95MS {
		return false
	}
	return o.MaxRTF == 0 || r.AudioSeconds == 0 || r.TaskMS/(r.AudioSeconds*1000) <= o.MaxRTF
}

// Figures derives one run's figures.
func Figures(reqs []Request, o Objective) (Run, error) {
	if len(reqs) == 0 {
		return Run{}, fmt.Errorf("no measured requests")
	}
	var client, task, queue, late []float64
	first, last := int64(math.MaxInt64), int64(math.MinInt64)
	good, taskSum, audio, clientSum := 0, 0.0, 0.0, 0.0
	r := Run{Requests: len(reqs)}
	for _, q := range reqs {
		first, last = min(first, q.StartNS), max(last, q.EndNS)
		if q.Failed {
			r.Failures++
			continue
		}
		client, task, queue = append(client, q.ClientMS), append(task, q.TaskMS), append(queue, q.QueueMS)
		clientSum += q.ClientMS
		if q.CreditNS > 0 {
			late = append(late, float64(q.StartNS-q.CreditNS)/1e6)
		}
		taskSum += q.TaskMS
		audio += q.AudioSeconds
		if o.good(q) {
			good++
		}
	}
	r.DurationS = float64(last-first) / 1e9
	if r.DurationS > 0 {
		r.Throughput = float64(len(reqs)-r.Failures) / r.DurationS
		r.Goodput = float64(good) / r.DurationS
		r.AchievedConcurrency = clientSum / 1e3 / r.DurationS
	}
	if len(client) > 0 {
		r.ClientP50MS, r.ClientP95MS = timing.Percentile(client, 50), timing.Percentile(client, 95)
		r.TaskP50MS, r.TaskP95MS = timing.Percentile(task, 50), timing.Percentile(task, 95)
		r.QueueP50MS, r.QueueP95MS = timing.Percentile(queue, 50), timing.Percentile(queue, 95)
	}
	if audio > 0 {
		r.RTF = taskSum / (audio * 1000)
	}
	lateMS, share := o.LateMS, o.LateShare
	if lateMS == 0 {
		lateMS = KeepUpMS
	}
	if share == 0 {
		share = KeepUpShare
	}
	if len(late) > 0 {
		r.LatenessP95MS = timing.Percentile(late, 95)
	}
	r.ClientKeptUp = len(late) > 0 && r.LatenessP95MS <= max(lateMS, share*r.ClientP50MS)
	r.MeetsObjective = len(client) > 0 && r.Failures <= o.MaxFailures && r.ClientP95MS <= o.ClientP95MS && (o.MaxRTF == 0 || r.RTF == 0 || r.RTF <= o.MaxRTF)
	return r, nil
}

// Level is one concurrency level over its runs.
type Level struct {
	Concurrency  int            `json:"concurrency"`
	Runs         []Run          `json:"runs"`
	Throughput   stats.Interval `json:"throughput_rps"`
	Goodput      stats.Interval `json:"goodput_rps"`
	ClientP95MS  stats.Interval `json:"client_p95_ms"`
	TaskP50MS    stats.Interval `json:"task_p50_ms"`
	ClientKeptUp bool           `json:"client_kept_up"` // in every run
	Meets        bool           `json:"meets_objective"`
	Checked      bool           `json:"checked"` // every request joined and identity-checked
}

// NewLevel summarizes a level's runs. checked says its joins and identity passed.
func NewLevel(concurrency int, runs []Run, checked bool) (Level, error) {
	l := Level{Concurrency: concurrency, Runs: runs, Checked: checked, ClientKeptUp: len(runs) > 0, Meets: len(runs) > 0 && checked}
	var tp, gp, p95, task []float64
	for _, r := range runs {
		tp, gp, p95, task = append(tp, r.Throughput), append(gp, r.Goodput), append(p95, r.ClientP95MS), append(task, r.TaskP50MS)
		l.ClientKeptUp = l.ClientKeptUp && r.ClientKeptUp
		l.Meets = l.Meets && r.MeetsObjective && r.ClientKeptUp
	}
	var err error
	for _, f := range []struct {
		dst *stats.Interval
		v   []float64
	}{{&l.Throughput, tp}, {&l.Goodput, gp}, {&l.ClientP95MS, p95}, {&l.TaskP50MS, task}} {
		if *f.dst, err = stats.MeanCI(f.v); err != nil {
			return l, fmt.Errorf("level %d: %w", concurrency, err)
		}
	}
	return l, nil
}

// Result is a row's capacity.
type Result struct {
	Profile   string    `json:"profile"`
	Stage     string    `json:"stage"`
	Objective Objective `json:"objective"`
	Lanes     int       `json:"lanes"`
	Levels    []Level   `json:"levels"`
	// Capacity is the highest level every run of which met the objective with the client
	// keeping up and every request checked; 0 when none did.
	Capacity   int             `json:"capacity_concurrency"`
	Throughput *stats.Interval `json:"capacity_throughput_rps,omitempty"`
	Knee       int             `json:"knee_concurrency"`
	// Bound is lanes × 1000 / Task p50 at the lowest level: what the lanes can serve if the
	// Task time does not grow with load; BoundShare is the capacity's throughput over it.
	Bound      float64  `json:"bound_rps"`
	BoundShare float64  `json:"bound_share"`
	Rule       string   `json:"rule"`
	Notes      []string `json:"notes,omitempty"`
}

// Rule states how Analyze decides.
const Rule = "capacity: the highest concurrency whose every run has client p95 ≤ objective (and RTF ≤ max_rtf when set), failures ≤ max_failures, every request joined and identity-checked, and the client kept up (p95 of AIPerf credit→send ≤ max(5 ms, 5% of client p50)); throughput is its mean over runs with a Student-t 95% interval; knee: the lowest level reaching 90% of the highest mean throughput; bound: lanes × 1000 / Task p50 at the lowest level"

// Analyze finds the capacity, the knee and the bound over a row's levels (ascending).
func Analyze(profile, stage string, o Objective, lanes int, levels []Level) Result {
	res := Result{Profile: profile, Stage: stage, Objective: o, Lanes: lanes, Levels: levels, Rule: Rule}
	best := 0.0
	for _, l := range levels {
		best = max(best, l.Throughput.Mean)
		if !l.ClientKeptUp {
			res.Notes = append(res.Notes, fmt.Sprintf("concurrency %d: the client did not keep up (lateness p95 above the bound in some run): not the server's figure", l.Concurrency))
		}
	}
	for i := len(levels) - 1; i >= 0; i-- {
		if levels[i].Meets {
			res.Capacity = levels[i].Concurrency
			tp := levels[i].Throughput
			res.Throughput = &tp
			break
		}
	}
	for _, l := range levels {
		if res.Throughput != nil && l.Concurrency < res.Capacity && l.Meets && l.Throughput.Mean > res.Throughput.Mean {
			res.Notes = append(res.Notes, fmt.Sprintf("concurrency %d served more (%.3g req/s) than the capacity level (%.3g req/s): beyond it, more concurrency bought latency, not throughput", l.Concurrency, l.Throughput.Mean, res.Throughput.Mean))
		}
	}
	for _, l := range levels {
		if best > 0 && l.Throughput.Mean >= KneeShare*best {
			res.Knee = l.Concurrency
			break
		}
	}
	if len(levels) > 0 && levels[0].TaskP50MS.Mean > 0 {
		res.Bound = float64(max(1, lanes)) * 1000 / levels[0].TaskP50MS.Mean
		if res.Throughput != nil {
			res.BoundShare = res.Throughput.Mean / res.Bound
		}
	}
	for _, l := range levels {
		for i, r := range l.Runs {
			if r.AIPerfGoodput > 0 && math.Abs(r.AIPerfGoodput-r.Goodput) > 0.1*r.AIPerfGoodput {
				res.Notes = append(res.Notes, fmt.Sprintf("concurrency %d run %d: goodput %.3g req/s here, %.3g by AIPerf (its SLO is request_latency only, over its own benchmark_duration)", l.Concurrency, i+1, r.Goodput, r.AIPerfGoodput))
			}
		}
	}
	if res.Capacity == 0 {
		res.Notes = append(res.Notes, "no level met the objective")
	}
	if n := len(levels); n > 0 && res.Knee == levels[n-1].Concurrency {
		res.Notes = append(res.Notes, "throughput still grew at the highest level: the knee may lie beyond the sweep")
	}
	return res
}
