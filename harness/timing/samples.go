package timing

import (
	"fmt"
	"sort"

	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
)

// Samples turns joined measured requests into timing samples, ordered by request id: client
// latency from AIPerf's metrics export, Task time from the server record. Warmup requests are
// excluded from steady state. It also returns the client and Task latencies for plotting. The
// caller's pairs are not reordered. qual verify calls it on stored artifacts.
func Samples(pairs []join.Pair, metricsRecords []aiperfexport.MetricRecord) ([]Sample, []float64, []float64, error) {
	latency := map[string]float64{}
	for _, m := range metricsRecords {
		if v, ok := m.LatencyMS(); ok {
			latency[m.Metadata.XRequestID] = v
		}
	}
	sorted := append([]join.Pair(nil), pairs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].ID < sorted[j].ID })
	var samples []Sample
	var client, task []float64
	for _, p := range sorted {
		if p.Client.Metadata.Phase != aiperfexport.PhaseProfiling {
			continue
		}
		lat, ok := latency[p.ID]
		if !ok {
			return nil, nil, nil, fmt.Errorf("request %s has no request_latency in profile_export.jsonl", p.ID)
		}
		s := Sample{ClientMS: lat, TaskMS: p.Server.Timing.ModelCallMS,
			StartNS: p.Client.Metadata.RequestStartNS, EndNS: p.Client.Metadata.RequestEndNS}
		if o := p.Server.Output; o != nil {
			s.AudioSeconds, s.Images = o.AudioSeconds, len(o.Images)
		}
		samples = append(samples, s)
		client, task = append(client, s.ClientMS), append(task, s.TaskMS)
	}
	return samples, client, task, nil
}

// RunSamples is Samples over several AIPerf runs, each sample tagged with its run: a request
// belongs to the run whose per-request metrics export names it. The rates Summarize derives
// are per run, so every caller that has the runs (the checkpoint flow, the statistics over
// runs, qual verify) reads the samples through here.
func RunSamples(pairs []join.Pair, runs []aiperfexport.Exports) ([]Sample, []float64, []float64, error) {
	if len(runs) == 0 {
		return nil, nil, nil, fmt.Errorf("no AIPerf run to take samples from")
	}
	var samples []Sample
	var client, task []float64
	for i, r := range runs {
		s, c, t, err := Samples(PairsOf(pairs, r), r.Metrics)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("run %d: %w", i+1, err)
		}
		for j := range s {
			s[j].Run = i
		}
		samples, client, task = append(samples, s...), append(client, c...), append(task, t...)
	}
	return samples, client, task, nil
}

// PairsOf are the pairs one run's per-request metrics export names.
func PairsOf(pairs []join.Pair, run aiperfexport.Exports) []join.Pair {
	ids := map[string]bool{}
	for _, m := range run.Metrics {
		ids[m.Metadata.XRequestID] = true
	}
	var mine []join.Pair
	for _, p := range pairs {
		if ids[p.ID] {
			mine = append(mine, p)
		}
	}
	return mine
}

// ByRun splits tagged samples by run, in run order.
func ByRun(samples []Sample) [][]Sample {
	var out [][]Sample
	for _, s := range samples {
		for len(out) <= s.Run {
			out = append(out, nil)
		}
		out[s.Run] = append(out[s.Run], s)
	}
	return out
}
