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
