package contract

import (
	"bufio"
	"net/http"
	"os"
	"strings"
	"testing"
)

// TRTMC's serving app writes one spelling of a record (app.py @1797a247 execute); an invented
// flat spelling (x_request_id, top-level timing and text, status_code) is not TRTMC's and is not
// read as one: a line with no request_id is refused, and flat timing or text never fill a record.
func TestOnlyTRTMCsRecordSpellingIsRead(t *testing.T) {
	if _, err := ParseRecord([]byte(`{"x_request_id": "7f9c", "endpoint": "/v1/audio/transcriptions", "status_code": 200, "model_call_ms": 183.2, "text": "go"}`)); err == nil {
		t.Error("a record with x_request_id and no request_id was accepted")
	}
	r, err := ParseRecord([]byte(`{"request_id": "a", "model_call_ms": 183.2, "text": "go", "status_code": 200}`))
	if err != nil || r.Timing.ModelCallMS != 0 || r.Output != nil || r.Status != 0 {
		t.Errorf("flat members filled a record: %+v %v", r, err)
	}
	ours := []byte(`{"request_id":"abc","route":"/v1/audio/transcriptions","status":200,"trtmc_timing":{"queue_ms":1,"model_call_ms":2,"handler_ms":3},"output":{"text":"x"}}`)
	r, err = ParseRecord(ours)
	if err != nil || r.RequestID != "abc" || r.Timing.ModelCallMS != 2 || r.Output.Text != "x" {
		t.Errorf("our record: %+v %v", r, err)
	}
	if _, err := ParseRecord([]byte(`{"route":"/x"}`)); err == nil {
		t.Error("a record without any id was accepted")
	}
}

func TestTRTMCResponseParses(t *testing.T) {
	raw, err := os.ReadFile("testdata/trtmc-response.http")
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(string(raw))), nil)
	if err != nil {
		t.Fatal(err)
	}
	body := strings.SplitN(string(raw), "\n\n", 2)[1]
	r, err := ParseResponse(resp.Header, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if r.RequestID != "7f9c2f9e-3c1a-4c39-9d51-0e8f2c6b1a11" || r.ServerTimingMS != 183.2 || r.Timing.QueueMS != 0.41 || !r.HasBodyTiming {
		t.Errorf("parsed %+v", r)
	}
	h := http.Header{}
	h.Set("X-Request-ID", "a")
	h.Set("Server-Timing", "model;dur=10")
	if _, err := ParseResponse(h, []byte(`{"trtmc_timing":{"model_call_ms":12}}`)); err == nil {
		t.Error("Server-Timing disagreeing with trtmc_timing was accepted")
	}
	h.Del("Server-Timing")
	if _, err := ParseResponse(h, nil); err == nil {
		t.Error("a response without Server-Timing was accepted")
	}
	for header, want := range map[string]float64{"model;dur=1.5": 1.5, "queue;dur=3, model;dur=\"2\"": 2, "model;desc=x;dur=7": 7} {
		if got, ok := ServerTimingModel(header); !ok || got != want {
			t.Errorf("%q: %v %v", header, got, ok)
		}
	}
}

// TestTRTMCAppRecordMeansServed: TRTMC's perf-serving app (apps/perf_serving/trtmc_perf_serving/app.py
// @1797a247, execute) writes {"request_id","route","operation","backend","time","timing","observation"}
// only after the operation ran and never a status; such a record is a served request.
func TestTRTMCAppRecordMeansServed(t *testing.T) {
	line := []byte(`{"request_id": "req-1", "route": "/v1/audio/transcriptions", "operation": "transcribe", "backend": "trtmc", "time": 1796031909.33, "timing": {"queue_ms": 0.1, "model_call_ms": 96.4, "handler_ms": 97.0}, "observation": {"text": "go forward"}}`)
	r, err := ParseRecord(line)
	if err != nil || r.Status != 200 || r.Timing.ModelCallMS != 96.4 || r.Output == nil || r.Output.Text != "go forward" {
		t.Fatalf("%+v %v", r, err)
	}
}
