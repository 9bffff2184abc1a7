package stats

import (
	"fmt"

	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/stats/schema"
	"github.com/trtmc-qual/trtmc-qual/harness/timing"
)

// RunFigureNames are the per-run statistics kept for every run, in report order: the server's
// model-call p50, the client-minus-Task p50 (serving overhead), throughput, and the workload's
// rates (audio-s/s and RTF, or images/s). A figure a run does not have (images/s for ASR) is skipped.
func RunFigureNames() []string {
	return []string{"task_call_p50", "client_minus_task_p50", "request_throughput", "audio_seconds_per_second", "rtf", "images_per_second"}
}

// signedRunFigure is the one run figure that may be negative (a client latency below the Task
// call's, by clock granularity); every other is a rate, a latency or a ratio of them.
const signedRunFigure = "client_minus_task_p50"

// RunOf keeps the per-run figures of one run's timing summary.
func RunOf(index int, s timing.Summary) schema.Run {
	r := schema.Run{Index: index, Requests: s.Requests, Figures: map[string]float64{}}
	for _, name := range RunFigureNames() {
		if v, ok := s.Get(name); ok {
			r.Figures[name] = v
		}
	}
	return r
}

// Summarize computes each figure's interval over runs (a figure must be in every run or in none);
// units maps figure names to units for the report. The tails pooled over runs are harness/timing's
// (a percentile with its order-statistic interval), the one definition of p95/p99.
func Summarize(runs []schema.Run, units map[string]string) (schema.Repeated, error) {
	if len(runs) == 0 {
		return schema.Repeated{}, fmt.Errorf("repeated runs: %w", ErrNoData)
	}
	rep := schema.Repeated{Runs: runs}
	for _, name := range RunFigureNames() {
		var vals []float64
		for _, r := range runs {
			if v, ok := r.Figures[name]; ok {
				vals = append(vals, v)
			}
		}
		if len(vals) == 0 {
			continue
		}
		if len(vals) != len(runs) {
			return rep, fmt.Errorf("figure %s is in %d of %d runs", name, len(vals), len(runs))
		}
		ci := NonNegativeMeanCI
		if name == signedRunFigure {
			ci = MeanCI
		}
		iv, err := ci(vals)
		if err != nil {
			return rep, fmt.Errorf("figure %s: %w", name, err)
		}
		rep.Figures = append(rep.Figures, schema.FigureInterval{Name: name, Unit: units[name], Interval: iv})
	}
	return rep, nil
}

// FromRuns computes a row's repeated-run statistics from its joined requests and each AIPerf
// run's exports (harness/aiperfexport.ReadRuns): a request belongs to the run whose per-request metrics
// export names it. The checkpoint flow and qual verify both call it, so verify recomputes every
// interval from the stored artifacts.
func FromRuns(pairs []join.Pair, runs []aiperfexport.Exports) (schema.Repeated, error) {
	samples, _, _, err := timing.RunSamples(pairs, runs)
	if err != nil {
		return schema.Repeated{}, err
	}
	var out []schema.Run
	units := map[string]string{}
	for i, mine := range timing.ByRun(samples) {
		sum, err := timing.Summarize(mine)
		if err != nil {
			return schema.Repeated{}, fmt.Errorf("run %d: %w", i+1, err)
		}
		for _, f := range sum.Figures {
			units[f.Name] = f.Unit
		}
		out = append(out, RunOf(i+1, sum))
	}
	return Summarize(out, units)
}
