// Package figures derives one row's timing figures from its joined requests: the steady-state
// summary over measured requests, with several AIPerf runs the intervals over runs, and the
// latency plot, the per-run timelines and the gate's corpus figures with their intervals. The
// checkpoint flow calls it once per row.
package figures

import (
	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/plot"
	"github.com/trtmc-qual/trtmc-qual/harness/stats"
	"github.com/trtmc-qual/trtmc-qual/harness/stats/schema"
	"github.com/trtmc-qual/trtmc-qual/harness/timing"
)

// Row are a row's figures.
type Row struct {
	Timing   timing.Summary
	Repeated *schema.Repeated // nil with one run
}

// Of computes them from the joined pairs and each run's exports (every rate per run, see
// timing.Summarize), and draws the latency plot (title) at plotPath.
func Of(pairs []join.Pair, runs []aiperfexport.Exports, title, plotPath string) (Row, error) {
	samples, client, task, err := timing.RunSamples(pairs, runs)
	if err != nil {
		return Row{}, err
	}
	var r Row
	if r.Timing, err = timing.Summarize(samples); err != nil {
		return r, err
	}
	if len(runs) > 1 { // statistics over runs: every interval from the runs' own requests
		rep, err := stats.FromRuns(pairs, runs)
		if err != nil {
			return r, err
		}
		r.Repeated = &rep
	}
	return r, plot.WriteLatencySVG(plotPath, title, client, task)
}
