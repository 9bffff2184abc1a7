package claim

import (
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
)

// pair is a joined request: AIPerf's send/receive times, the server's arrival/answer (0: a record
// without them), its queue and Task time.
func pair(id, phase string, clientStart, clientEnd, srvStart, srvEnd int64, queueMS, taskMS float64, status int) (join.Pair, aiperfexport.RawRecord) {
	var p join.Pair
	p.ID = id
	p.Client.Metadata.Phase, p.Client.Metadata.RequestStartNS, p.Client.Metadata.RequestEndNS = phase, clientStart, clientEnd
	p.Client.Status = status
	p.Server = contract.Record{RequestID: id, Status: status, StartUnixNS: srvStart, EndUnixNS: srvEnd, Timing: contract.Timing{QueueMS: queueMS, ModelCallMS: taskMS}}
	raw := aiperfexport.RawRecord{RequestHeaders: map[string]string{"X-Request-ID": id}}
	return p, raw
}

func TestRunSpansAreTheRunsRequestsOnTheServersClock(t *testing.T) {
	w, rw := pair("w1", aiperfexport.PhaseWarmup, 0, 0, 10e9, 11e9, 0, 900, 200)
	m, rm := pair("m1", aiperfexport.PhaseProfiling, 0, 0, 10.5e9, 12.5e9, 500, 1400, 200)
	f, rf := pair("m2", aiperfexport.PhaseProfiling, 11e9, 11.2e9, 0, 0, 0, 0, 503)    // no server times: AIPerf's
	other, _ := pair("x1", aiperfexport.PhaseProfiling, 0, 0, 20e9, 21e9, 0, 900, 200) // another run's
	spans := RunSpans([]join.Pair{w, m, f, other}, aiperfexport.Exports{Raw: []aiperfexport.RawRecord{rw, rm, rf}})
	if len(spans) != 3 {
		t.Fatalf("%d spans, want the run's 3: %+v", len(spans), spans)
	}
	want := []struct {
		arrival, queue, task, end float64
		warmup, failed            bool
	}{{0, 0, 0.9, 1, true, false}, {0.5, 0.5, 1.4, 2.5, false, false}, {1, 0, 0, 1.2, false, true}}
	for i, s := range spans {
		g := want[i]
		if !nearSeconds(s.ArrivalS, g.arrival) || !nearSeconds(s.QueueS, g.queue) || !nearSeconds(s.TaskS, g.task) || !nearSeconds(s.EndS, g.end) || s.Warmup != g.warmup || s.Failed != g.failed {
			t.Errorf("span %d = %+v, want %+v", i, s, g)
		}
	}
}

func nearSeconds(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
