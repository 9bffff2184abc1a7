// Package figures draws one row's pictures from its joined requests: the latency plot and the
// per-run timelines (the figures themselves are claims, harness/claim). The checkpoint flow
// calls it once per row.
package figures

import (
	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/plot"
	"github.com/trtmc-qual/trtmc-qual/harness/timing"
)

// Plot draws the latency plot (title) at plotPath from the joined pairs and each run's exports:
// client latency against the Task call of every measured request.
func Plot(pairs []join.Pair, runs []aiperfexport.Exports, title, plotPath string) error {
	_, client, task, err := timing.RunSamples(pairs, runs)
	if err != nil {
		return err
	}
	return plot.WriteLatencySVG(plotPath, title, client, task)
}
