package claim

import (
	"fmt"
	"math"

	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/timing"
)

// Pictures are the data a row's pictures are drawn from (harness/report draws them): its
// measured requests' client latency and Task time, the same samples its timing claim is
// derived from, and per AIPerf run its joined requests (warmup included) as spans on the
// server's clock. The suite's report and `qual verify` both take them from here, so a picture
// is re-derived from the stored files like any figure.
type Pictures struct {
	ClientMS, TaskMS []float64 // ClientMS[i] and TaskMS[i] are one measured request
	Runs             [][]Span  // per AIPerf run, in run order; a run without requests has none
}

// Span is one request in seconds from its run's first arrival: it arrived, waited QueueS for a
// lane, ran the Task for TaskS, and was answered at EndS.
type Span struct {
	ArrivalS, QueueS, TaskS, EndS float64
	Warmup, Failed                bool
}

// Pictures derives the row's picture data from its loaded files.
func (a *Artifacts) Pictures() (Pictures, error) {
	if !a.Served() {
		return Pictures{}, fmt.Errorf("the row's AIPerf exports and server records did not load: %w", a.servedErr)
	}
	_, client, task, err := timing.RunSamples(a.Join.Pairs, a.Runs)
	if err != nil {
		return Pictures{}, err
	}
	p := Pictures{ClientMS: client, TaskMS: task}
	for _, run := range a.Runs {
		p.Runs = append(p.Runs, RunSpans(a.Join.Pairs, run))
	}
	return p, nil
}

// RunSpans are the run's joined requests in seconds from its first arrival. The server's clock
// gives arrival and answer; a record without them (TRTMC's records carry none) falls back to
// AIPerf's send and receive times.
func RunSpans(pairs []join.Pair, run aiperfexport.Exports) []Span {
	inRun := map[string]bool{}
	for _, r := range run.Raw {
		inRun[r.HeaderRequestID()] = true
	}
	type timed struct {
		start, end int64
		p          join.Pair
	}
	var ts []timed
	origin := int64(math.MaxInt64)
	for _, p := range pairs {
		if !inRun[p.ID] {
			continue
		}
		start, end := p.Server.StartUnixNS, p.Server.EndUnixNS
		if start == 0 || end < start {
			start, end = p.Client.Metadata.RequestStartNS, p.Client.Metadata.RequestEndNS
		}
		origin = min(origin, start)
		ts = append(ts, timed{start, end, p})
	}
	spans := make([]Span, 0, len(ts))
	for _, t := range ts {
		tm := t.p.Server.Timing
		spans = append(spans, Span{ArrivalS: float64(t.start-origin) / 1e9, QueueS: tm.QueueMS / 1e3, TaskS: tm.ModelCallMS / 1e3,
			EndS: float64(t.end-origin) / 1e9, Warmup: t.p.Client.Metadata.Phase == aiperfexport.PhaseWarmup,
			Failed: t.p.Client.Status != 200 || t.p.Server.Status != 200 || t.p.Client.HasError()})
	}
	return spans
}
