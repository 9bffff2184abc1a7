package capacity

import (
	"fmt"
	"io"

	"github.com/trtmc-qual/trtmc-qual/harness/stats/schema"
)

// Write prints a row's capacity as a Markdown table (one line per level, figures the mean over
// its runs), then the verdict and the notes.
func Write(w io.Writer, res Result) {
	fmt.Fprintf(w, "\n### %s (%s): objective client p95 ≤ %.0f ms", res.Profile, res.Stage, res.Objective.ClientP95MS)
	if res.Objective.MaxRTF > 0 {
		fmt.Fprintf(w, ", RTF ≤ %.3g", res.Objective.MaxRTF)
	}
	fmt.Fprintf(w, ", failures ≤ %d; %d lanes\n\n", res.Objective.MaxFailures, res.Lanes)
	fmt.Fprintln(w, "| concurrency | runs | throughput req/s (95% CI) | goodput req/s | AIPerf goodput | offered / achieved req/s | in flight | client p50/p95 ms | Task p50/p95 ms | queue p50/p95 ms | RTF | failures | lateness p95 ms (bound) | client kept up | checked | meets |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, l := range res.Levels {
		m := meanRun(l.Runs)
		fmt.Fprintf(w, "| %d | %d | %s | %s | %.3g | %.3g / %.3g | %.2f | %.0f / %.0f | %.0f / %.0f | %.0f / %.0f | %.3g | %d | %.1f (%.1f) | %s | %s | %s |\n",
			l.Concurrency, len(l.Runs), Interval(l.Throughput), Interval(l.Goodput), m.AIPerfGoodput, m.OfferedRPS, m.Throughput, m.InFlight,
			m.ClientP50MS, m.ClientP95MS, m.TaskP50MS, m.TaskP95MS, m.QueueP50MS, m.QueueP95MS, m.RTF, m.Failures, m.LatenessP95MS, m.LateBoundMS,
			yes(l.ClientKeptUp), yes(l.Checked), yes(l.Meets))
	}
	fmt.Fprintln(w)
	knee := fmt.Sprintf("knee at concurrency %d", res.Knee)
	if res.Knee == 0 {
		knee = "no knee (no level the client kept up with)"
	}
	if res.Throughput != nil {
		fmt.Fprintf(w, "capacity: concurrency %d, %s req/s; %s; bound (%d lanes × 1/Task p50 at the lowest level) %.3g req/s: the capacity is %.0f%% of it\n",
			res.Capacity, Interval(*res.Throughput), knee, res.Lanes, res.Bound, 100*res.BoundShare)
	} else {
		fmt.Fprintf(w, "capacity: none within the objective; %s; bound %.3g req/s\n", knee, res.Bound)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(w, "- note: %s\n", n)
	}
	fmt.Fprintf(w, "- rule: %s\n", res.Rule)
}

// meanRun is the mean of each figure over runs (failures: the sum; lateness: the worst run).
func meanRun(runs []Run) Run {
	var m Run
	if len(runs) == 0 {
		return m
	}
	for _, r := range runs {
		m.AIPerfGoodput += r.AIPerfGoodput
		m.OfferedRPS, m.Throughput, m.InFlight = m.OfferedRPS+r.OfferedRPS, m.Throughput+r.Throughput, m.InFlight+r.InFlight
		m.ClientP50MS, m.ClientP95MS = m.ClientP50MS+r.ClientP50MS, m.ClientP95MS+r.ClientP95MS
		m.TaskP50MS, m.TaskP95MS = m.TaskP50MS+r.TaskP50MS, m.TaskP95MS+r.TaskP95MS
		m.QueueP50MS, m.QueueP95MS, m.RTF = m.QueueP50MS+r.QueueP50MS, m.QueueP95MS+r.QueueP95MS, m.RTF+r.RTF
		m.Failures += r.Failures
		if r.LatenessP95MS >= m.LatenessP95MS {
			m.LatenessP95MS, m.LateBoundMS = r.LatenessP95MS, r.LateBoundMS
		}
	}
	n := float64(len(runs))
	for _, f := range []*float64{&m.AIPerfGoodput, &m.OfferedRPS, &m.Throughput, &m.InFlight, &m.ClientP50MS, &m.ClientP95MS,
		&m.TaskP50MS, &m.TaskP95MS, &m.QueueP50MS, &m.QueueP95MS, &m.RTF} {
		*f /= n
	}
	return m
}

// Interval prints a mean with its 95% interval over runs.
func Interval(iv schema.Interval) string {
	if iv.CI == nil {
		return fmt.Sprintf("%.3g (n=%d, no interval)", iv.Mean, iv.N)
	}
	return fmt.Sprintf("%.3g [%.3g, %.3g] (n=%d)", iv.Mean, iv.CI.Lower, iv.CI.Upper, iv.N)
}

func yes(b bool) string { return map[bool]string{true: "yes", false: "**no**"}[b] }
