// Package capacity answers "how much can this checkpoint serve within its latency objective":
// from the joined requests of a sweep over concurrency levels (each level several AIPerf runs)
// it derives, per run, throughput, goodput, client, Task and queue percentiles, failures,
// offered and achieved rate and whether the client kept up; per level the means with their
// intervals over runs; per row the highest level that meets the objective, the knee where
// throughput saturates and how close it is to the bound the server's lanes and Task time
// allow. The sweep itself (serving, AIPerf, joins) is harness/capacity/sweep.
package capacity

import (
	"fmt"
	"math"

	"github.com/trtmc-qual/trtmc-qual/harness/target"
	"github.com/trtmc-qual/trtmc-qual/harness/timing"
)

// The client keeps up when AIPerf sends a request within KeepUpMS, or KeepUpShare of the median
// client latency, of issuing its credit (p95 over the run): later than that, the load the server
// saw was set by the client, not by the level. Or when the server was saturated anyway: in a
// closed loop a late send costs the server only when it leaves a lane idle, and when the median
// request waited for a lane at least SaturatedQueueShare of the median Task time, every lane had
// work queued behind it and the server, not the client, set the pace.
const (
	KeepUpMS            = 5.0
	KeepUpShare         = 0.05
	SaturatedQueueShare = 0.10
)

// Request is one measured request of a run, joined to its server record.
type Request struct {
	ClientMS, TaskMS, QueueMS float64
	CreditNS, StartNS, EndNS  int64 // AIPerf's credit issue, send and answer times
	AudioSeconds              float64
	Failed                    bool
}

// Run is one AIPerf run's figures at one level.
type Run struct {
	Requests      int     `json:"requests"`
	Failures      int     `json:"failures"`
	DurationS     float64 `json:"duration_s"`         // first send to last answer
	Throughput    float64 `json:"throughput_rps"`     // answered requests per second (the achieved rate)
	Goodput       float64 `json:"goodput_rps"`        // requests within the objective per second
	AIPerfGoodput float64 `json:"aiperf_goodput_rps"` // AIPerf's own (--goodput), 0 when it reported none
	OfferedRPS    float64 `json:"offered_rps"`        // credits AIPerf issued per second, first credit to last answer (achieved: Throughput)
	ClientP50MS   float64 `json:"client_p50_ms"`
	ClientP95MS   float64 `json:"client_p95_ms"`
	TaskP50MS     float64 `json:"task_p50_ms"`
	TaskP95MS     float64 `json:"task_p95_ms"`
	QueueP50MS    float64 `json:"queue_p50_ms"`
	QueueP95MS    float64 `json:"queue_p95_ms"`
	RTF           float64 `json:"rtf,omitempty"`        // Σ Task time / Σ audio time (speech)
	InFlight      float64 `json:"achieved_concurrency"` // Σ client latency / duration
	LatenessP95MS float64 `json:"lateness_p95_ms"`      // AIPerf credit issued → request sent
	LateBoundMS   float64 `json:"lateness_bound_ms"`    // the most lateness that still keeps up
	// Saturated says the median request waited for a lane (SaturatedQueueShare of the Task p50).
	Saturated    bool `json:"server_saturated"`
	ClientKeptUp bool `json:"client_kept_up"` // sent on time, or the server saturated anyway
	Meets        bool `json:"meets_objective"`
}

// good says a request meets the objective on its own (goodput counts these).
func good(o target.Objective, r Request) bool {
	if r.Failed || r.ClientMS > o.ClientP95MS {
		return false
	}
	return o.MaxRTF == 0 || r.AudioSeconds == 0 || r.TaskMS/(r.AudioSeconds*1000) <= o.MaxRTF
}

// LateBound is the lateness p95 a run may have and still count as the client keeping up.
func LateBound(o target.Objective, clientP50MS float64) float64 {
	ms, share := o.LateMS, o.LateShare
	if ms == 0 {
		ms = KeepUpMS
	}
	if share == 0 {
		share = KeepUpShare
	}
	return max(ms, share*clientP50MS)
}

// Figures derives one run's figures from its measured requests. A run without credit times
// cannot show the client kept up, and is marked as not having done so.
func Figures(reqs []Request, o target.Objective) (Run, error) {
	if len(reqs) == 0 {
		return Run{}, fmt.Errorf("no measured requests")
	}
	var client, task, queue, late []float64
	first, last := int64(math.MaxInt64), int64(math.MinInt64)
	firstCredit := int64(math.MaxInt64)
	nGood, taskSum, audio, clientSum := 0, 0.0, 0.0, 0.0
	r := Run{Requests: len(reqs)}
	for _, q := range reqs {
		if q.EndNS < q.StartNS {
			return Run{}, fmt.Errorf("a request answered (%d ns) before it was sent (%d ns)", q.EndNS, q.StartNS)
		}
		first, last = min(first, q.StartNS), max(last, q.EndNS)
		if q.CreditNS > 0 {
			late = append(late, float64(q.StartNS-q.CreditNS)/1e6)
			firstCredit = min(firstCredit, q.CreditNS)
		}
		if q.Failed {
			r.Failures++
			continue
		}
		client, task, queue = append(client, q.ClientMS), append(task, q.TaskMS), append(queue, q.QueueMS)
		clientSum, taskSum, audio = clientSum+q.ClientMS, taskSum+q.TaskMS, audio+q.AudioSeconds
		if good(o, q) {
			nGood++
		}
	}
	r.DurationS = float64(last-first) / 1e9
	if r.DurationS > 0 {
		r.Throughput = float64(len(client)) / r.DurationS
		r.Goodput = float64(nGood) / r.DurationS
		r.InFlight = clientSum / 1e3 / r.DurationS
	}
	// Over the run's whole window, not the credits' own span: in a closed loop the first N credits
	// go out at once, and a run of N requests would otherwise offer an unbounded rate.
	if len(late) > 0 && last > firstCredit {
		r.OfferedRPS = float64(len(late)) / (float64(last-firstCredit) / 1e9)
	}
	if len(client) > 0 {
		r.ClientP50MS, r.ClientP95MS = timing.Percentile(client, 50), timing.Percentile(client, 95)
		r.TaskP50MS, r.TaskP95MS = timing.Percentile(task, 50), timing.Percentile(task, 95)
		r.QueueP50MS, r.QueueP95MS = timing.Percentile(queue, 50), timing.Percentile(queue, 95)
	}
	if audio > 0 {
		r.RTF = taskSum / (audio * 1000)
	}
	r.LateBoundMS = LateBound(o, r.ClientP50MS)
	r.Saturated = len(client) > 0 && r.QueueP50MS > 0 && r.QueueP50MS >= SaturatedQueueShare*r.TaskP50MS
	if len(late) == len(reqs) {
		r.LatenessP95MS = timing.Percentile(late, 95)
		r.ClientKeptUp = r.LatenessP95MS <= r.LateBoundMS || r.Saturated
	}
	r.Meets = len(client) > 0 && r.Failures <= o.MaxFailures && r.ClientP95MS <= o.ClientP95MS &&
		(o.MaxRTF == 0 || r.RTF <= o.MaxRTF)
	return r, nil
}
