package timing

import (
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
)

func pair(id, phase string, taskMS float64) join.Pair {
	var p join.Pair
	p.ID = id
	p.Client.Metadata = aiperfexport.Metadata{XRequestID: id, Phase: phase, RequestStartNS: 1, RequestEndNS: 2}
	p.Server = contract.Record{RequestID: id, Timing: contract.Timing{ModelCallMS: taskMS}, Output: &contract.RecordOutput{AudioSeconds: 2}}
	return p
}

func metric(id string, ms float64) aiperfexport.MetricRecord {
	var m aiperfexport.MetricRecord
	m.Metadata.XRequestID = id
	m.Metrics = map[string]struct {
		Value any    `json:"value"`
		Unit  string `json:"unit"`
	}{"request_latency": {Value: ms, Unit: "ms"}}
	return m
}

func TestSamplesExcludeWarmupAndLeaveTheCallersOrder(t *testing.T) {
	pairs := []join.Pair{pair("c", aiperfexport.PhaseProfiling, 3), pair("w", aiperfexport.PhaseWarmup, 9), pair("a", aiperfexport.PhaseProfiling, 1)}
	samples, client, task, err := Samples(pairs, []aiperfexport.MetricRecord{metric("a", 10), metric("c", 30), metric("w", 90)})
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != 2 || client[0] != 10 || client[1] != 30 || task[0] != 1 || task[1] != 3 || samples[0].AudioSeconds != 2 {
		t.Errorf("samples %+v client %v task %v", samples, client, task)
	}
	if pairs[0].ID != "c" || pairs[1].ID != "w" || pairs[2].ID != "a" {
		t.Errorf("the caller's pairs were reordered: %s %s %s", pairs[0].ID, pairs[1].ID, pairs[2].ID)
	}
	if _, _, _, err := Samples(pairs, []aiperfexport.MetricRecord{metric("a", 10)}); err == nil {
		t.Error("a measured request without request_latency was accepted")
	}
}
