package contract

import (
	"encoding/json"
	"reflect"
	"testing"
)

// A transcribe record of TRTMC's app carries the worker's observation {input_audio_seconds,
// output_tokens, text} (benchmark_worker.cpp @ca938e40 run_transcribe; app.py @1797a247 execute):
// the clip length is read, so the timing claim can derive audio seconds per second, RTF and RTFx.
func TestTRTMCTranscribeRecordCarriesTheClipLength(t *testing.T) {
	line := []byte(`{"request_id": "req-7", "route": "/v1/audio/transcriptions", "operation": "transcribe", "backend": "trtmc", "time": 1796031909.3, "timing": {"queue_ms": 0.2, "model_call_ms": 310.5, "handler_ms": 311.0}, "observation": {"input_audio_seconds": 11.2, "output_tokens": 5, "text": "go forward ten meters now"}}`)
	r, err := ParseRecord(line)
	if err != nil || r.Output == nil || r.Output.Text != "go forward ten meters now" || r.Output.AudioSeconds != 11.2 {
		t.Fatalf("%+v %v", r.Output, err)
	}
}

// A TRTMC record is read only through TRTMCRecord: for every key of our own record's spelling,
// adding it (with a value that would change the result if read) to a line of TRTMC's app leaves
// the parsed record as TRTMC's keys alone say, so nothing the app does not write is taken for a
// TRTMC output.
func TestTRTMCRecordReadsNoKeyOfOurSpelling(t *testing.T) {
	trtmc := map[string]any{}
	line := `{"request_id": "req-7", "route": "/v1/audio/transcriptions", "operation": "transcribe", "backend": "trtmc", "time": 1.5, "timing": {"queue_ms": 0.2, "model_call_ms": 310.5, "handler_ms": 311.0}, "observation": {"input_audio_seconds": 11.2, "output_tokens": 1, "text": "go"}}`
	if err := json.Unmarshal([]byte(line), &trtmc); err != nil {
		t.Fatal(err)
	}
	want, err := ParseRecord([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	seed, one := int64(7), 2.5
	ours, err := json.Marshal(Record{RequestID: "x", ClientRequestID: "c", Method: "POST", Route: "/r", Model: "m", BundleSHA256: "b",
		InputSHA256: "i", Output: &RecordOutput{Text: "ours", AudioSeconds: 9, Images: []RecordImage{{SHA256: "s"}}, Steps: 3, Guidance: &one, Seed: &seed,
			Precision: "fp16", Count: 2}, Status: 500, ErrorCode: "e", StartUnixNS: 1, EndUnixNS: 2, Timing: Timing{1, 2, 3}, Attempt: 2})
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(ours, &fields); err != nil {
		t.Fatal(err)
	}
	for key, value := range fields {
		if _, theirs := trtmc[key]; theirs {
			continue
		}
		with := map[string]any{}
		for k, v := range trtmc {
			with[k] = v
		}
		with[key] = value
		raw, _ := json.Marshal(with)
		got, err := ParseRecord(raw)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("a TRTMC record with our %q read as %+v (%v), want %+v", key, got, err, want)
		}
	}
}
