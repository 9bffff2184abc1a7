package ceiling

import (
	"encoding/json"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
)

// The instant server keeps no records: a request counts as answered only with status 200, no
// AIPerf error, a request_latency and trtmc_timing in its body; warmup is left out.
func TestClientRequests(t *testing.T) {
	var ex aiperfexport.Exports
	for _, line := range []string{
		`{"metadata":{"x_request_id":"w","benchmark_phase":"warmup","request_start_ns":1,"request_end_ns":2},"status":200,"responses":[{"text":"{\"trtmc_timing\":{\"model_call_ms\":0.01}}"}]}`,
		`{"metadata":{"x_request_id":"ok","benchmark_phase":"profiling","credit_issued_ns":5,"request_start_ns":10,"request_end_ns":20},"status":200,"responses":[{"text":"{\"text\":\"ok\",\"trtmc_timing\":{\"queue_ms\":0,\"model_call_ms\":0.02,\"handler_ms\":0}}"}]}`,
		`{"metadata":{"x_request_id":"untimed","benchmark_phase":"profiling","request_start_ns":10,"request_end_ns":20},"status":200,"responses":[{"text":"{\"text\":\"ok\"}"}]}`,
		`{"metadata":{"x_request_id":"refused","benchmark_phase":"profiling","request_start_ns":10,"request_end_ns":20},"status":503,"responses":[{"text":"{\"trtmc_timing\":{\"model_call_ms\":0.02}}"}]}`,
	} {
		var r aiperfexport.RawRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		ex.Raw = append(ex.Raw, r)
	}
	for _, id := range []string{"ok", "untimed", "refused"} {
		var m aiperfexport.MetricRecord
		if err := json.Unmarshal([]byte(`{"metadata":{"x_request_id":"`+id+`"},"metrics":{"request_latency":{"value":1.5,"unit":"ms"}}}`), &m); err != nil {
			t.Fatal(err)
		}
		ex.Metrics = append(ex.Metrics, m)
	}
	reqs := clientRequests(ex)
	if len(reqs) != 3 {
		t.Fatalf("%d measured requests, want 3 (warmup left out)", len(reqs))
	}
	if ok := reqs[0]; ok.Failed || ok.ClientMS != 1.5 || ok.TaskMS != 0.02 || ok.CreditNS != 5 || ok.StartNS != 10 {
		t.Fatalf("answered request %+v", ok)
	}
	if !reqs[1].Failed || !reqs[2].Failed {
		t.Fatalf("an answer without trtmc_timing or with status 503 counted as answered: %+v", reqs[1:])
	}
}
