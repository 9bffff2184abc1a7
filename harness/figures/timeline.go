package figures

import (
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/plot"
)

// timelineDPI keeps a timeline legible in the report at a few tens of kilobytes.
const timelineDPI = 96

// Timelines draws one timeline per AIPerf run into dir (timeline-run-NN.png) from the joined
// requests, warmup included: each request's server arrival, queue_ms, model_call_ms and answer
// on the server's lanes, warmup shaded, failures marked. It returns the files written.
func Timelines(pairs []join.Pair, runs []aiperfexport.Exports, lanes int, profile, dir string) ([]string, error) {
	var paths []string
	for i, run := range runs {
		spans := RunSpans(pairs, run)
		if len(spans) == 0 {
			continue
		}
		title := fmt.Sprintf("%s: AIPerf run %d of %d, seen from the server", profile, i+1, len(runs))
		png, err := plot.Timeline{Title: title, Lanes: max(1, lanes), Spans: spans}.PNG(timelineDPI)
		if err != nil {
			return paths, err
		}
		path := filepath.Join(dir, fmt.Sprintf("timeline-run-%02d.png", i+1))
		if err := os.WriteFile(path, png, 0o644); err != nil {
			return paths, fmt.Errorf("write timeline: %w", err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// RunSpans are the run's joined requests in seconds from its first arrival. The server's clock
// gives arrival and answer; a record without them (TRTMC's records carry none) falls back to
// AIPerf's send and receive times.
func RunSpans(pairs []join.Pair, run aiperfexport.Exports) []plot.Span {
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
	spans := make([]plot.Span, 0, len(ts))
	for _, t := range ts {
		tm := t.p.Server.Timing
		spans = append(spans, plot.Span{ArrivalS: float64(t.start-origin) / 1e9, QueueS: tm.QueueMS / 1e3, TaskS: tm.ModelCallMS / 1e3,
			EndS: float64(t.end-origin) / 1e9, Warmup: t.p.Client.Metadata.Phase == aiperfexport.PhaseWarmup,
			Failed: t.p.Client.Status != 200 || t.p.Server.Status != 200 || t.p.Client.HasError()})
	}
	return spans
}
