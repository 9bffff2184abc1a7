// Package nocache checks that a server does not serve cached results (MLPerf TEST04's idea,
// made measurable): on the warm server, at the row's concurrency, k repeats of one input X
// (identical bytes) are sent interleaved with k fresh variants of X that cost the same but
// cannot be served from an exact-match cache (the workload says what a fresh variant is:
// the Workload's FreshVariant). A cache shows as repeats served faster than fresh inputs.
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
	"math"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/stats"
	"github.com/trtmc-qual/trtmc-qual/harness/timing"
)

// Margin is MLPerf TEST04's margin: repeats significantly more than this fraction faster than
// fresh variants (model_call_ms) fail the row.
const Margin = 0.10

// NativeFloor is the bound against the native run: a repeat median under this fraction of the
// native run's Task time on X is faster than the Task can run. The native run is a cold process,
// measured 15–25% slower than a warm lane, so half (not TEST04's 10%) is the bound that holds.
// The native run comes minutes after the repeats, and a load that trebled in between once put
// an honest row's repeats (4.8 s) under half its native run (14.9 s): the floor also asks the
// repeats to be under half the server's own first sight of X in the AIPerf run (no cache can
// have served that), so one moved baseline alone never fails a row.
const NativeFloor = 0.5

// Level is the confidence level of the paired interval. The rule fails on its upper bound
// alone and only beyond the margin: an honest row fails at most (1 − Level)/2 of the time
// whatever the load does, and far less in every load measured (README).
const Level = 0.90

// MinK is the fewest repeats (and fresh variants) the check sends: the fewest pairs with which a
// 30% cache speedup fails at least 99% of the time under per-request noise of 15% (README).
const MinK = 16

// Failure is the reason a row fails this check.
const Failure = "may cache results"

// floorMS is the smallest Task time compared: a cached answer recorded as 0 ms then compares as
// the fastest possible one, not as −∞ on a log scale.
const floorMS = 1e-3

// K is how many repeats and fresh variants a row at concurrency sends: max(MinK, 2×concurrency),
// so every lane serves several of each.
func K(concurrency int) int { return max(MinK, 2*concurrency) }

// Rule states the check in words, for the evidence and the report.
func Rule() string {
	return fmt.Sprintf("the row %s when the %.0f%% Wilcoxon signed-rank interval of the paired Hodges–Lehmann ratio of "+
		"model_call_ms, repeat i of one input / fresh variant i of equal cost (sent side by side, same server, same "+
		"concurrency), lies wholly below %.2f (significantly more than %.0f%% faster: MLPerf TEST04), or when the "+
		"repeats' median is under %.0f%% of both the native run's Task time on the input and the server's first sight of it "+
		"in the AIPerf run (faster than the Task can run; the native run is a cold process)", Failure, Level*100, 1-Margin, Margin*100, NativeFloor*100)
}

// Judge fills n's medians, paired ratio and verdict from its requests, the input's output and
// the native time.
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
	d := logRatios(n)
	n.Pairs = len(d)
	if len(d) == 0 {
		n.Failures = append(n.Failures, fmt.Sprintf("nothing to compare: %d repeats and %d fresh variants answered, no pair of both", len(repeats), len(fresh)))
		n.Passed = false
		return
	}
	n.RepeatMedianMS, n.FreshMedianMS = median(repeats), median(fresh)
	sh, err := stats.SignedRank(d, Level)
	if err != nil {
		n.Failures = append(n.Failures, fmt.Sprintf("paired ratio: %v", err))
		n.Passed = false
		return
	}
	n.Method = sh.Method
	n.ShiftFraction = math.Exp(sh.Estimate) - 1
	n.ShiftFractionCI = evidence.Bounds{Lower: math.Exp(sh.CI.Lower) - 1, Upper: math.Exp(sh.CI.Upper) - 1}
	if n.ShiftFractionCI.Upper < -Margin {
		n.Failures = append(n.Failures, fmt.Sprintf("%s: %d repeats of %s were served significantly more than %.0f%% faster than the %d fresh variants beside them: median %.3f ms against %.3f ms, paired ratio %.3f (%.0f%% interval %.3f to %.3f)",
			Failure, len(d), n.Input, Margin*100, len(d), n.RepeatMedianMS, n.FreshMedianMS, 1+n.ShiftFraction, Level*100, 1+n.ShiftFractionCI.Lower, 1+n.ShiftFractionCI.Upper))
	}
	if under := func(ms *float64) bool { return ms != nil && n.RepeatMedianMS < NativeFloor**ms }; under(n.NativeTaskMS) && (n.FirstSightTaskMS == nil || under(n.FirstSightTaskMS)) {
		first := ""
		if n.FirstSightTaskMS != nil {
			first = fmt.Sprintf(" and of the server's first sight of it, %.3f ms", *n.FirstSightTaskMS)
		}
		n.Failures = append(n.Failures, fmt.Sprintf("%s: the repeats of %s took a median %.3f ms, under %.0f%% of the native run's %.3f ms%s: faster than the Task can run",
			Failure, n.Input, n.RepeatMedianMS, NativeFloor*100, *n.NativeTaskMS, first))
	}
	n.Passed = len(n.Failures) == 0
}

// logRatios are ln(repeat i / fresh i) over the pairs whose two requests were both answered:
// repeat i and fresh variant i were sent side by side, so what the machine's load did to both
// cancels in their ratio.
func logRatios(n *evidence.NoCache) []float64 {
	var d []float64
	for i := range min(len(n.Repeats), len(n.Fresh)) {
		r, f := n.Repeats[i], n.Fresh[i]
		if r.Status == 200 && f.Status == 200 {
			d = append(d, math.Log(max(r.TaskMS, floorMS))-math.Log(max(f.TaskMS, floorMS)))
		}
	}
	return d
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
