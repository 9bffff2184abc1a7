// Package nocache checks that a server does not cache results (MLPerf TEST04's idea): one
// input the run already sent is sent again several times, and its repeats must not be served
// more than Margin faster (Task time, the records' model_call_ms) than that input's first
// occurrence, nor faster than the native Task runs on it. A server that answered a repeat from
// a cache would report the cache lookup, not the Task: its figures would be too fast to be true.
package nocache

import (
	"fmt"

	"github.com/trtmc-qual/trtmc-qual/harness/timing"
)

// Margin is how much faster than a baseline a repeat's median Task time may be (MLPerf TEST04
// allows 10% between the repeated-sample and the distinct-sample runs).
const Margin = 0.10

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
	Margin         float64  `json:"margin"`
	Rule           string   `json:"rule"`
	Records        string   `json:"records,omitempty"` // the repeats' server records, relative to the run directory
	Failures       []string `json:"failures,omitempty"`
	Passed         bool     `json:"passed"`
}

// Rule states the check in words, for the evidence and the report.
func Rule() string {
	return fmt.Sprintf("the median model_call_ms of an input's repeats must not be more than %.0f%% below its first occurrence's, nor below the native run's by more than that: otherwise the row %s", Margin*100, Failure)
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
	floor := (1 - Margin)
	if c.RepeatMedianMS < floor*c.FirstTaskMS {
		c.Failures = append(c.Failures, fmt.Sprintf("%s: repeats of %s took %.3f ms (median model_call_ms), %.0f%% less than its first occurrence %s (%.3f ms)",
			Failure, c.Input, c.RepeatMedianMS, 100*(1-c.RepeatMedianMS/c.FirstTaskMS), c.FirstRequestID, c.FirstTaskMS))
	}
	if c.NativeTaskMS != nil && c.RepeatMedianMS < floor**c.NativeTaskMS {
		c.Failures = append(c.Failures, fmt.Sprintf("%s: repeats of %s took %.3f ms (median model_call_ms), faster than the native Task runs on it (%.3f ms)",
			Failure, c.Input, c.RepeatMedianMS, *c.NativeTaskMS))
	}
	c.Passed = len(c.Failures) == 0
}
