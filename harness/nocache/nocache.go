// Package nocache checks that a server does not cache results (MLPerf TEST04's idea): one
// input the run already sent is sent again several times, and its repeats must not all be served
// more than Margin faster (Task time, the records' model_call_ms) than both that input's first
// occurrence and the native Task on it. A server that answered repeats from a cache would report
// the cache lookup, not the Task: every repeat would be too fast to be true.
//
// Why every repeat and both baselines: on the reference server (2 shared cores) honest repeats
// were up to 19% faster than their single first occurrence (whisper-tiny-en: 1338–1463 ms
// against 1736 ms) and up to 17% faster than a native run in a fresh process (sphinx-tidigits:
// 11.5–13.1 ms against 14.3 ms), while a cache answers in a fraction of a millisecond: the
// rule that the median beat either baseline failed every honest ASR row.
package nocache

import (
	"fmt"

	"github.com/trtmc-qual/trtmc-qual/harness/timing"
)

// Margin is how much faster than its baselines every repeat must be for the row to fail: a cache
// answers in a fraction of the Task's time, while honest repeats of millisecond Tasks on a loaded
// machine came in up to 41% under both baselines (sphinx-tidigits: 14.3 ms against a first
// occurrence of 24.3 ms and a native run of 21.2 ms). MLPerf TEST04's 10% (AdvisoryMargin) is
// recorded as an advisory, not failed on.
const Margin = 0.50

// AdvisoryMargin is MLPerf TEST04's margin: repeats this much faster are noted in the evidence.
const AdvisoryMargin = 0.10

// Failure is the reason a row fails this check.
const Failure = "may cache results"

// Repeat is one repeated request and what the server recorded for it.
type Repeat struct {
	RequestID string  `json:"request_id"`
	Status    int     `json:"status"`
	TaskMS    float64 `json:"model_call_ms"`
	ClientMS  float64 `json:"client_ms"` // wall time of the request as the harness saw it
	Output    string  `json:"output"`    // the comparable output (the stage's identity rule)
}

// Check is the evidence of the no-caching check of one row.
type Check struct {
	Input          string   `json:"input"`            // the repeated input's id
	FirstRequestID string   `json:"first_request_id"` // its first occurrence in the AIPerf run
	FirstPhase     string   `json:"first_phase"`
	FirstTaskMS    float64  `json:"first_model_call_ms"`
	FirstOutput    string   `json:"first_output"`
	NativeTaskMS   *float64 `json:"native_task_ms,omitempty"` // the native run's public Task call on that input (nil: its target does not print it)
	Concurrency    int      `json:"concurrency"`              // repeats in flight at once (the stage's AIPerf concurrency)
	Repeats        []Repeat `json:"repeats"`
	RepeatMedianMS float64  `json:"repeat_median_model_call_ms"`
	SlowestRepeat  float64  `json:"slowest_repeat_model_call_ms"` // the figure judged
	BaselineMS     float64  `json:"baseline_ms"`                  // min(first occurrence, native)
	Margin         float64  `json:"margin"`
	Rule           string   `json:"rule"`
	Records        string   `json:"records,omitempty"`  // the repeats' server records, relative to the run directory
	Advisory       string   `json:"advisory,omitempty"` // faster than TEST04's 10%, within Margin
	Failures       []string `json:"failures,omitempty"`
	Passed         bool     `json:"passed"`
}

// Rule states the check in words, for the evidence and the report.
func Rule() string {
	return fmt.Sprintf("the row %s when even the slowest repeat of an input took more than %.0f%% less model_call_ms than both its first occurrence and the native run on it (a cache serves every repeat from the cache)", Failure, Margin*100)
}

// Judge fills the median and the verdict from the figures already in c.
func Judge(c *Check) {
	c.Margin, c.Rule, c.Failures = Margin, Rule(), nil
	var tasks []float64
	for _, r := range c.Repeats {
		switch {
		case r.Status != 200:
			c.Failures = append(c.Failures, fmt.Sprintf("repeat %s: HTTP %d", r.RequestID, r.Status))
		case r.Output != c.FirstOutput:
			c.Failures = append(c.Failures, fmt.Sprintf("repeat %s answered %q, its first occurrence %q", r.RequestID, r.Output, c.FirstOutput))
		default:
			tasks = append(tasks, r.TaskMS)
		}
	}
	if len(tasks) == 0 {
		c.Failures = append(c.Failures, "no repeat was answered")
		c.Passed = false
		return
	}
	c.RepeatMedianMS = timing.Percentile(tasks, 50)
	c.SlowestRepeat = timing.Percentile(tasks, 100)
	c.BaselineMS = c.FirstTaskMS
	if c.NativeTaskMS != nil {
		c.BaselineMS = min(c.BaselineMS, *c.NativeTaskMS)
	}
	if c.SlowestRepeat < (1-AdvisoryMargin)*c.BaselineMS {
		c.Advisory = fmt.Sprintf("every repeat was more than %.0f%% faster than both baselines (slowest %.3f ms, baseline %.3f ms): within this machine's noise for short Tasks, but worth a look", AdvisoryMargin*100, c.SlowestRepeat, c.BaselineMS)
	}
	if c.SlowestRepeat < (1-Margin)*c.BaselineMS {
		c.Failures = append(c.Failures, fmt.Sprintf("%s: every repeat of %s was served more than %.0f%% faster than both its first occurrence %s (%.3f ms) and the native Task (%s): the slowest took %.3f ms",
			Failure, c.Input, Margin*100, c.FirstRequestID, c.FirstTaskMS, nativeText(c.NativeTaskMS), c.SlowestRepeat))
	}
	c.Passed = len(c.Failures) == 0
}

func nativeText(ms *float64) string {
	if ms == nil {
		return "not printed by this target"
	}
	return fmt.Sprintf("%.3f ms", *ms)
}
