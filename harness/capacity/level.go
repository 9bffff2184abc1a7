package capacity

import (
	"fmt"
	"math"
	"slices"

	"github.com/trtmc-qual/trtmc-qual/harness/stats"
	"github.com/trtmc-qual/trtmc-qual/harness/stats/schema"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
)

// KneeShare: the knee is the lowest level reaching this share of the highest throughput.
const KneeShare = 0.90

// GoodputTolerance is how far (relative) our goodput may be from AIPerf's before a note says so.
const GoodputTolerance = 0.10

// Level is one concurrency level over its runs.
type Level struct {
	Concurrency  int             `json:"concurrency"`
	Runs         []Run           `json:"runs"`
	Throughput   schema.Interval `json:"throughput_rps"`
	Goodput      schema.Interval `json:"goodput_rps"`
	ClientP95MS  schema.Interval `json:"client_p95_ms"`
	TaskP50MS    schema.Interval `json:"task_p50_ms"`
	ClientKeptUp bool            `json:"client_kept_up"` // in every run
	Checked      bool            `json:"checked"`        // every request joined, identity-checked and meaningful
	Meets        bool            `json:"meets_objective"`
	Failure      string          `json:"failure,omitempty"` // why it is not checked
}

// NewLevel summarizes a level's runs; failure is why its checks did not pass ("" when they did).
// A level meets the objective only when it was checked and every run met it with the client
// keeping up.
func NewLevel(concurrency int, runs []Run, failure string) (Level, error) {
	l := Level{Concurrency: concurrency, Runs: runs, Checked: failure == "" && len(runs) > 0, Failure: failure}
	l.ClientKeptUp, l.Meets = len(runs) > 0, l.Checked
	var tp, gp, p95, task []float64
	for _, r := range runs {
		tp, gp, p95, task = append(tp, r.Throughput), append(gp, r.Goodput), append(p95, r.ClientP95MS), append(task, r.TaskP50MS)
		l.ClientKeptUp = l.ClientKeptUp && r.ClientKeptUp
		l.Meets = l.Meets && r.Meets && r.ClientKeptUp
	}
	if len(runs) == 0 {
		return l, nil
	}
	for _, f := range []struct {
		dst *schema.Interval
		v   []float64
	}{{&l.Throughput, tp}, {&l.Goodput, gp}, {&l.ClientP95MS, p95}, {&l.TaskP50MS, task}} {
		iv, err := stats.NonNegativeMeanCI(f.v)
		if err != nil {
			return l, fmt.Errorf("level %d: %w", concurrency, err)
		}
		*f.dst = iv
	}
	return l, nil
}

// Result is a row's capacity.
type Result struct {
	Profile   string           `json:"profile"`
	Stage     string           `json:"stage"`
	Objective target.Objective `json:"objective"`
	Lanes     int              `json:"lanes"`
	Levels    []Level          `json:"levels"`
	// Capacity is the highest level that met the objective (Level.Meets); 0 when none did.
	Capacity   int              `json:"capacity_concurrency"`
	Throughput *schema.Interval `json:"capacity_throughput_rps,omitempty"`
	// Knee is the lowest level the client kept up with reaching KneeShare of the highest
	// throughput of such levels; 0 when there is none.
	Knee int `json:"knee_concurrency"`
	// Bound is lanes × 1000 / Task p50 at the lowest level: what the lanes serve if the Task time
	// does not grow with load; BoundShare is the capacity's throughput over it.
	Bound      float64  `json:"bound_rps"`
	BoundShare float64  `json:"bound_share"`
	Rule       string   `json:"rule"`
	Notes      []string `json:"notes,omitempty"`
}

// Rule states how Analyze decides.
const Rule = "capacity: the highest concurrency whose every run has client p95 (over its answered requests; failures count against max_failures) ≤ objective (and RTF ≤ max_rtf when set) and failures ≤ max_failures, " +
	"with every request joined, identity-checked and meaningful and the client keeping up (p95 of AIPerf credit→send ≤ max(late_ms 5 ms, late_share 5% of client p50), or the server saturated anyway: queue p50 ≥ 10% of Task p50); " +
	"its throughput is the mean over runs with a Student-t 95% interval; knee: the lowest checked, kept-up level reaching 90% of the highest such mean throughput; " +
	"bound: lanes × 1000 / Task p50 at the lowest checked level"

// Analyze finds the capacity, the knee and the bound over a row's levels (ascending).
func Analyze(profile, stage string, o target.Objective, lanes int, levels []Level) Result {
	res := Result{Profile: profile, Stage: stage, Objective: o, Lanes: max(1, lanes), Levels: levels, Rule: Rule}
	for i := len(levels) - 1; i >= 0; i-- {
		if levels[i].Meets {
			res.Capacity = levels[i].Concurrency
			tp := levels[i].Throughput
			res.Throughput = &tp
			break
		}
	}
	res.Knee = knee(levels)
	if i := slices.IndexFunc(levels, func(l Level) bool { return l.Checked }); i >= 0 && levels[i].TaskP50MS.Mean > 0 {
		res.Bound = float64(res.Lanes) * 1000 / levels[i].TaskP50MS.Mean
		if res.Throughput != nil {
			res.BoundShare = res.Throughput.Mean / res.Bound
		}
	}
	res.Notes = notes(res)
	return res
}

// knee is the lowest counted level (checked, client kept up) reaching KneeShare of the highest
// counted mean throughput: a level whose checks failed (a server answering wrongly, fast) never
// sets it.
func knee(levels []Level) int {
	counted := func(l Level) bool { return l.Checked && l.ClientKeptUp }
	best := 0.0
	for _, l := range levels {
		if counted(l) {
			best = max(best, l.Throughput.Mean)
		}
	}
	for _, l := range levels {
		if counted(l) && best > 0 && l.Throughput.Mean >= KneeShare*best {
			return l.Concurrency
		}
	}
	return 0
}

// missedChecked says a level ran, passed its checks with the client keeping up, and still missed
// the objective: below a level that met it, the sweep is not monotone. A level whose checks failed
// or whose client fell behind has its own note and another cause.
func missedChecked(l Level) bool {
	return len(l.Runs) > 0 && l.Checked && l.ClientKeptUp && !l.Meets
}

// notes are what a reader of the table must know beside the figures.
func notes(res Result) []string {
	var out []string
	for _, l := range res.Levels {
		switch {
		case l.Failure != "":
			out = append(out, fmt.Sprintf("concurrency %d: checks failed (%s): never counted", l.Concurrency, l.Failure))
		case !l.ClientKeptUp:
			out = append(out, fmt.Sprintf("concurrency %d: the client did not keep up (lateness p95 above its bound in some run, with the server's lanes not saturated): its figures are the client's, not the server's", l.Concurrency))
		}
		if res.Capacity > 0 && missedChecked(l) && l.Concurrency < res.Capacity {
			out = append(out, fmt.Sprintf("concurrency %d did not meet the objective, below the capacity level %d that did: the sweep is not monotone, so the capacity is uncertain at this run count (rerun with more --runs)", l.Concurrency, res.Capacity))
		}
		if res.Throughput != nil && l.Meets && l.Concurrency < res.Capacity && l.Throughput.Mean > res.Throughput.Mean {
			out = append(out, fmt.Sprintf("concurrency %d served more (%.3g req/s) than the capacity level (%.3g req/s): beyond it, more concurrency bought latency, not throughput", l.Concurrency, l.Throughput.Mean, res.Throughput.Mean))
		}
		why := "AIPerf divides by its own benchmark duration"
		if res.Objective.MaxRTF > 0 {
			why = "AIPerf's SLO is request_latency only (no RTF), over its own benchmark duration"
		}
		for i, r := range l.Runs {
			if r.AIPerfGoodput > 0 && math.Abs(r.AIPerfGoodput-r.Goodput) > GoodputTolerance*r.AIPerfGoodput {
				out = append(out, fmt.Sprintf("concurrency %d run %d: goodput %.3g req/s here, %.3g by AIPerf: %s", l.Concurrency, i+1, r.Goodput, r.AIPerfGoodput, why))
			}
		}
	}
	if res.Capacity == 0 {
		out = append(out, "no level met the objective")
	}
	if n := len(res.Levels); n > 0 && res.Knee == res.Levels[n-1].Concurrency {
		out = append(out, "throughput still grew at the highest level: the knee may lie beyond the sweep")
	}
	return out
}
