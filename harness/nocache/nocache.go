// Package nocache checks that a server does not serve cached results (MLPerf TEST04's idea,
// made measurable): on the warm server, at the row's concurrency, k repeats of one input X
// (identical bytes) are sent interleaved with k fresh variants of X that cost the same but
// cannot be served from an exact-match cache (the workload says what a fresh variant is:
// harness/workload.FreshVariants). A cache shows as repeats served faster than fresh inputs.
//
// Why fresh variants and not X's first occurrence or the native run as the baseline: a single
// first occurrence (cold lane, other load) and a native run in a fresh process are noisy
// baselines. On the reference target honest whisper repeats took 1338–1463 ms against a first
// occurrence of 1736 ms, and honest tidigits repeats 11.5–13.1 ms against a native run of
// 14.3 ms: both rules failed honest rows. Fresh variants are served under the same load, on the
// same lanes, at the same time as the repeats.
package nocache

import (
	"fmt"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/stats"
	"github.com/trtmc-qual/trtmc-qual/harness/stats/schema"
	"github.com/trtmc-qual/trtmc-qual/harness/timing"
)

// Margin is MLPerf TEST04's margin: repeats significantly more than this fraction faster than
// fresh variants (model_call_ms) fail the row.
const Margin = 0.10

// NativeFloor is the bound against the native run: a repeat median under this fraction of the
// native run's Task time on X is faster than the Task can run. The native run is a cold process,
// measured 15–25% slower than a warm lane, so half (not TEST04's 10%) is the bound that holds.
const NativeFloor = 0.5

// Level is the confidence level of the shift's interval.
const Level = 0.95

// MinK is the fewest repeats (and fresh variants) the check sends.
const MinK = 8

// Failure is the reason a row fails this check.
const Failure = "may cache results"

// K is how many repeats and fresh variants a row at concurrency sends: max(MinK, 2×concurrency),
// so every lane serves several of each.
func K(concurrency int) int { return max(MinK, 2*concurrency) }

// Rule states the check in words, for the evidence and the report.
func Rule() string {
	return fmt.Sprintf("the row %s when the %.0f%% Mann–Whitney interval of the Hodges–Lehmann shift of model_call_ms, "+
		"repeats of one input − fresh variants of it of equal cost (interleaved, same server, same concurrency), lies wholly "+
		"below −%.0f%% of the fresh median (significantly more than %.0f%% faster: MLPerf TEST04), or when the repeats' median "+
		"is under %.0f%% of the native run's Task time on the input (faster than the Task can run; the native run is a cold process)",
		Failure, Level*100, Margin*100, Margin*100, NativeFloor*100)
}

// Judge fills n's medians, shift and verdict from its requests, the input's output and the
// native time.
func Judge(n *evidence.NoCache) {
	n.Margin, n.NativeFloor, n.Level, n.Rule = Margin, NativeFloor, Level, Rule()
	n.Failures = append(n.Failures, freshness(n)...)
	for _, r := range n.Repeats {
		if r.Status == 200 && r.Output != n.Output {
			n.Failures = append(n.Failures, fmt.Sprintf("repeat %s answered %q, the input's request in the run %q", r.RequestID, r.Output, n.Output))
		}
	}
	repeats, fresh, failed := taskTimes(n.Repeats), taskTimes(n.Fresh), unanswered(n)
	n.Failures = append(n.Failures, failed...)
	if len(repeats) == 0 || len(fresh) == 0 {
		n.Failures = append(n.Failures, fmt.Sprintf("nothing to compare: %d repeats and %d fresh variants answered", len(repeats), len(fresh)))
		n.Passed = false
		return
	}
	n.RepeatMedianMS, n.FreshMedianMS = median(repeats), median(fresh)
	sh, err := stats.HodgesLehmann(fresh, repeats, Level)
	if err != nil {
		n.Failures = append(n.Failures, fmt.Sprintf("shift: %v", err))
		n.Passed = false
		return
	}
	n.ShiftMS, n.ShiftCI, n.Method = sh.Estimate, sh.CI, sh.Method
	if n.FreshMedianMS > 0 {
		n.ShiftFraction = sh.Estimate / n.FreshMedianMS
		n.ShiftFractionCI = schema.Bounds{Lower: sh.CI.Lower / n.FreshMedianMS, Upper: sh.CI.Upper / n.FreshMedianMS}
	}
	if sh.CI.Upper < -Margin*n.FreshMedianMS {
		n.Failures = append(n.Failures, fmt.Sprintf("%s: %d repeats of %s were served significantly more than %.0f%% faster than %d fresh variants: median %.3f ms against %.3f ms, shift %.3f ms (%.0f%% interval %.3f to %.3f ms)",
			Failure, len(repeats), n.Input, Margin*100, len(fresh), n.RepeatMedianMS, n.FreshMedianMS, sh.Estimate, Level*100, sh.CI.Lower, sh.CI.Upper))
	}
	if n.NativeTaskMS != nil && n.RepeatMedianMS < NativeFloor**n.NativeTaskMS {
		n.Failures = append(n.Failures, fmt.Sprintf("%s: the repeats of %s took a median %.3f ms, under %.0f%% of the native run's %.3f ms: faster than the Task can run",
			Failure, n.Input, n.RepeatMedianMS, NativeFloor*100, *n.NativeTaskMS))
	}
	n.Passed = len(n.Failures) == 0
}

// taskTimes are the Task times of the answered requests.
func taskTimes(reqs []evidence.NoCacheRequest) []float64 {
	var out []float64
	for _, r := range reqs {
		if r.Status == 200 {
			out = append(out, r.TaskMS)
		}
	}
	return out
}

// unanswered names every request not answered 200: a failed request fails the row, as in a
// qualification.
func unanswered(n *evidence.NoCache) []string {
	var out []string
	for _, r := range append(append([]evidence.NoCacheRequest(nil), n.Repeats...), n.Fresh...) {
		if r.Status != 200 {
			out = append(out, fmt.Sprintf("request %s: HTTP %d", r.RequestID, r.Status))
		}
	}
	return out
}

// freshness checks, where the server records an input hash, that the repeats were one input
// and every fresh variant another, distinct input: otherwise the comparison proves nothing.
func freshness(n *evidence.NoCache) []string {
	var out []string
	repeated := map[string]bool{}
	for _, r := range n.Repeats {
		if r.InputSHA256 != "" {
			repeated[r.InputSHA256] = true
		}
	}
	if len(repeated) > 1 {
		out = append(out, fmt.Sprintf("the repeats reached the server as %d different inputs, want 1", len(repeated)))
	}
	seen := map[string]string{}
	for _, f := range n.Fresh {
		switch {
		case f.InputSHA256 == "":
		case repeated[f.InputSHA256]:
			out = append(out, fmt.Sprintf("fresh variant %s reached the server as the repeated input (sha256 %s)", f.RequestID, f.InputSHA256))
		case seen[f.InputSHA256] != "":
			out = append(out, fmt.Sprintf("fresh variants %s and %s reached the server as one input (sha256 %s)", seen[f.InputSHA256], f.RequestID, f.InputSHA256))
		default:
			seen[f.InputSHA256] = f.RequestID
		}
	}
	return out
}

func median(xs []float64) float64 { return timing.Percentile(xs, 50) }
