package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/stats"
	"github.com/trtmc-qual/trtmc-qual/harness/timing"
)

// Perf are a row's performance cells, computed once for qualification.md and report.html so
// a figure reads the same in both: the value is the row's timing figure (for a rate, the mean
// over AIPerf runs of each run's own rate, harness/timing) and, with several runs, the
// half-width of its interval over runs beside it (a row of one run carries OneRunMark once).
type Perf struct {
	ClientP50, ClientP95, TaskP50, TaskP95, Overhead string // tails with n and their interval
	Throughput                                       string // req/s
	Rate                                             string // RTF and audio-s/s, or images/s
}

// PerfOf is a row's cells; a figure the row does not have is "—", never a 0 that reads as measured.
func PerfOf(r evidence.Result) Perf {
	p := Perf{ClientP50: "—", ClientP95: "—", TaskP50: "—", TaskP95: "—", Overhead: "—", Throughput: "—", Rate: "—"}
	if r.Timing == nil {
		return p
	}
	p.ClientP50, p.TaskP50 = FigureCell(r, "client_latency_p50"), FigureCell(r, "task_call_p50")
	p.Overhead = FigureCell(r, "client_minus_task_p50")
	p.ClientP95, p.TaskP95 = TailCell(r, "client_latency", 95), TailCell(r, "task_call", 95)
	if _, ok := r.Timing.Get("request_throughput"); ok {
		p.Throughput = FigureCell(r, "request_throughput") + " req/s"
	}
	if _, ok := r.Timing.Get("rtf"); ok {
		p.Rate = fmt.Sprintf("RTF %s (%s audio-s/s)", FigureCell(r, "rtf"), FigureCell(r, "audio_seconds_per_second"))
	} else if _, ok := r.Timing.Get("images_per_second"); ok {
		p.Rate = FigureCell(r, "images_per_second") + " images/s"
	}
	return p
}

// FigureCell is one timing figure as every report prints it: four significant digits, and
// with several runs its 95% half-width over runs (inconclusive past the 5% rule).
func FigureCell(r evidence.Result, name string) string {
	if r.Timing == nil {
		return "—"
	}
	v, ok := r.Timing.Get(name)
	if !ok {
		return "—"
	}
	cell := formatFigure(v)
	if !timing.IsRunMean(name) {
		return cell // a pooled figure: the means over runs of per-run figures are another figure
	}
	if iv, ok := intervalOf(r.Repeated, name); ok && iv.CI != nil {
		cell += spread(iv)
		if iv.Inconclusive {
			cell += " " + inconclusiveMark
		}
	}
	return cell
}

// oneRunMark is what a row of a single AIPerf run carries, once, in every table that shows its
// figures over runs (after its throughput, after its runs × requests): no ± is not a figure
// without spread, it is a figure with no interval.
const oneRunMark = "1 run: no interval"

// OneRunMark is oneRunMark in parentheses, after a space, for a row of one run; "" otherwise.
func OneRunMark(r evidence.Result) string {
	if r.Timing == nil || runsOf(r) > 1 {
		return ""
	}
	return " (" + oneRunMark + ")"
}

// runsOf is how many AIPerf runs a row's figures are over.
func runsOf(r evidence.Result) int {
	switch {
	case r.Repeated != nil:
		return len(r.Repeated.Runs)
	case r.AIPerf != nil:
		return max(r.AIPerf.Runs, 1)
	}
	return 1
}

// formatFigure is the one number format of the reports' timing figures: four significant
// digits, whole numbers from 1000 up (15710 ms, not 1.571e+04).
func formatFigure(v float64) string {
	if math.Abs(v) >= 1000 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.4g", v)
}

// formatHalfWidth is a half-width to two significant digits, never in exponent form (190, not
// 1.9e+02).
func formatHalfWidth(v float64) string {
	if v == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	rounded, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 2, 64), 64)
	return strconv.FormatFloat(rounded, 'f', -1, 64)
}

// spread is how a mean's interval over runs reads beside it: ± its half-width, or, for a figure
// that cannot be negative whose interval was cut at 0 (stats.NonNegativeMeanCI), the interval
// itself, which ± would show reaching below 0.
func spread(iv evidence.Interval) string {
	if iv.CI != nil && strings.HasSuffix(iv.Rule, stats.NonNegativeCut) {
		return fmt.Sprintf(" (95%%: [%s, %s])", formatFigure(iv.CI.Lower), formatFigure(iv.CI.Upper))
	}
	return " ± " + formatHalfWidth(iv.HalfWidth)
}

func intervalOf(rep *evidence.Repeated, name string) (evidence.Interval, bool) {
	if rep == nil {
		return evidence.Interval{}, false
	}
	for _, f := range rep.Figures {
		if f.Name == name {
			return f.Interval, true
		}
	}
	return evidence.Interval{}, false
}

// StageCells are a stage's verdict-table cells, shared by both reports: counted rows qualified
// over the target's counted rows, and rows run over the target's rows (a smoke run, a focus or
// a shard runs fewer; the denominators stay the target's).
func StageCells(s evidence.Stage) (qualified, rows string) {
	q, counted, _ := evidence.StageCounts(s)
	sc := evidence.StageScope(s)
	if sc.Total == 0 { // blocked, or a stage with no resulting rows: what ran is all there is
		return fmt.Sprintf("%d / %d", q, counted), fmt.Sprint(len(s.Results))
	}
	return fmt.Sprintf("%d / %d", q, max(counted, sc.Counted)), fmt.Sprintf("%d of %d", sc.Selected, sc.Total)
}

// ScopeLine says, under a verdict whose run is no qualification of the target, what it
// covered: the rows it left out, the load it lowered.
func ScopeLine(e evidence.Evidence) string {
	sc := evidence.ScopeOf(e)
	var parts []string
	if sc.Partial() {
		parts = append(parts, fmt.Sprintf("this run selected %d of the target's %d rows; the others are *not selected* in each stage's inventory and nothing is claimed for them", sc.Selected, sc.Total))
	}
	if len(sc.Reduced) > 0 {
		parts = append(parts, fmt.Sprintf("it measured at a load below the target's (%s), so its figures are not a qualification's", strings.Join(sc.Reduced, "; ")))
	}
	if len(parts) == 0 {
		return ""
	}
	return "Scope: " + strings.Join(parts, "; ") + ". A qualification runs every row at the target's load (make qualify)."
}
