package capacity

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/timing"
)

// RunRequests are one AIPerf run's measured requests among a level's joined pairs: client
// latency as the qualification derives it (timing.Samples), the server's queue_ms and AIPerf's
// credit time beside it.
func RunRequests(pairs []join.Pair, run aiperfexport.Exports) ([]Request, error) {
	inRun := map[string]bool{}
	for _, r := range run.Raw {
		inRun[r.HeaderRequestID()] = true
	}
	var mine []join.Pair
	for _, p := range pairs {
		if inRun[p.ID] && p.Client.Metadata.Phase == aiperfexport.PhaseProfiling {
			mine = append(mine, p)
		}
	}
	samples, _, _, err := timing.Samples(mine, run.Metrics) // in the pairs' order: by ID
	if err != nil {
		return nil, err
	}
	if len(samples) != len(mine) {
		return nil, fmt.Errorf("%d samples of %d measured requests", len(samples), len(mine))
	}
	out := make([]Request, len(samples))
	for i, s := range samples {
		p := mine[i]
		out[i] = Request{ClientMS: s.ClientMS, TaskMS: s.TaskMS, QueueMS: p.Server.Timing.QueueMS, CreditNS: p.Client.Metadata.CreditIssuedNS,
			StartNS: s.StartNS, EndNS: s.EndNS, AudioSeconds: s.AudioSeconds, Failed: p.Client.Status != 200 || p.Server.Status != 200}
	}
	return out, nil
}

// AIPerfGoodput is AIPerf's own goodput of a run (profile_export_aiperf.json "goodput": requests
// per second within --goodput's SLO); 0 when AIPerf reported none.
func AIPerfGoodput(runDir string) (float64, error) {
	data, err := os.ReadFile(filepath.Join(runDir, "profile_export_aiperf.json"))
	if err != nil {
		return 0, fmt.Errorf("AIPerf summary: %w", err)
	}
	var summary struct {
		Goodput *struct {
			Avg float64 `json:"avg"`
		} `json:"goodput"`
	}
	if err := json.Unmarshal(data, &summary); err != nil {
		return 0, fmt.Errorf("AIPerf summary %s: %w", runDir, err)
	}
	if summary.Goodput == nil {
		return 0, nil
	}
	return summary.Goodput.Avg, nil
}
