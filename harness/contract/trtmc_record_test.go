package contract

import "testing"

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
