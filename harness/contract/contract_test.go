package contract

import (
	"bufio"
	"net/http"
	"os"
	"strings"
	"testing"
)

// TRTMC's serving app and trtmc-server answer in the same contract; these fixtures are written
// in TRTMC's spelling (x_request_id, flat timing fields, lower-case headers).

func TestTRTMCRecordsParseLikeOurs(t *testing.T) {
	f, err := os.Open("testdata/trtmc-records.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []Record
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		r, err := ParseRecord(sc.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	if len(recs) != 2 {
		t.Fatalf("%d records", len(recs))
	}
	first := recs[0]
	if first.RequestID != "7f9c2f9e-3c1a-4c39-9d51-0e8f2c6b1a11" || first.Route != "/v1/audio/transcriptions" || first.Status != 200 ||
		first.Timing.ModelCallMS != 183.2 || first.Timing.HandlerMS != 186.9 || first.Output == nil || first.Output.Text != "go forward ten meters" {
		t.Errorf("first record: %+v", first)
	}
	if recs[1].Status != 429 || recs[1].ErrorCode != "server_busy" {
		t.Errorf("second record: %+v", recs[1])
	}
	ours := []byte(`{"request_id":"abc","route":"/v1/audio/transcriptions","status":200,"trtmc_timing":{"queue_ms":1,"model_call_ms":2,"handler_ms":3},"output":{"text":"x"}}`)
	r, err := ParseRecord(ours)
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
	flat := []byte(`{"x_request_id": "req-2", "model_call_ms": 5}`)
	if r, _ := ParseRecord(flat); r.Status != 0 {
		t.Errorf("a flat export without a status got status %d", r.Status)
	}
}
