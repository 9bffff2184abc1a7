package capacity

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
)

// exported is one request as AIPerf exports it (raw and metrics) and as the server recorded it.
func exported(t *testing.T, id, phase string, credit, start int64, latencyMS, queueMS float64) (aiperfexport.RawRecord, aiperfexport.MetricRecord, join.Pair) {
	t.Helper()
	meta := fmt.Sprintf(`{"x_request_id":%q,"benchmark_phase":%q,"credit_issued_ns":%d,"request_start_ns":%d,"request_end_ns":%d}`,
		id, phase, credit, start, start+int64(latencyMS*1e6))
	var raw aiperfexport.RawRecord
	var m aiperfexport.MetricRecord
	if err := json.Unmarshal([]byte(`{"metadata":`+meta+`,"status":200,"request_headers":{"X-Request-ID":"`+id+`"}}`), &raw); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(fmt.Sprintf(`{"metadata":%s,"metrics":{"request_latency":{"value":%g,"unit":"ms"}}}`, meta, latencyMS)), &m); err != nil {
		t.Fatal(err)
	}
	rec := contract.Record{RequestID: id, Status: 200, Timing: contract.Timing{QueueMS: queueMS, ModelCallMS: latencyMS / 2},
		Output: &contract.RecordOutput{AudioSeconds: 3}}
	return raw, m, join.Pair{ID: id, Client: raw, Server: rec}
}

// A run's requests are its own measured ones: not its warmup, not another run's.
func TestRunRequestsAreTheRunsMeasuredOnes(t *testing.T) {
	var run1, run2 aiperfexport.Exports
	var pairs []join.Pair
	for _, r := range []struct {
		id, phase string
		run       *aiperfexport.Exports
		queue     float64
	}{{"a", aiperfexport.PhaseWarmup, &run1, 0}, {"b", aiperfexport.PhaseProfiling, &run1, 7}, {"c", aiperfexport.PhaseProfiling, &run1, 9}, {"d", aiperfexport.PhaseProfiling, &run2, 11}} {
		raw, m, p := exported(t, r.id, r.phase, 1000, 3000, 100, r.queue)
		r.run.Raw, r.run.Metrics = append(r.run.Raw, raw), append(r.run.Metrics, m)
		pairs = append(pairs, p)
	}
	reqs, err := RunRequests(pairs, run1)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 2 || reqs[0].QueueMS != 7 || reqs[1].QueueMS != 9 {
		t.Fatalf("run 1's requests %+v, want b and c", reqs)
	}
	for _, r := range reqs {
		if r.ClientMS != 100 || r.TaskMS != 50 || r.CreditNS != 1000 || r.StartNS != 3000 || r.AudioSeconds != 3 || r.Failed {
			t.Fatalf("request %+v", r)
		}
	}
	if reqs, _ := RunRequests(pairs, run2); len(reqs) != 1 || reqs[0].QueueMS != 11 {
		t.Fatalf("run 2's requests %+v, want d", reqs)
	}
}

func TestAIPerfGoodput(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(dir, "profile_export_aiperf.json"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"goodput":{"unit":"requests/sec","avg":1.26}}`)
	if g, err := AIPerfGoodput(dir); err != nil || g != 1.26 {
		t.Fatalf("goodput %v %v, want 1.26", g, err)
	}
	write(`{"request_throughput":{"avg":2}}`)
	if g, err := AIPerfGoodput(dir); err != nil || g != 0 {
		t.Fatalf("no goodput: %v %v", g, err)
	}
	if _, err := AIPerfGoodput(t.TempDir()); err == nil {
		t.Fatal("a run without its summary has a goodput")
	}
}
