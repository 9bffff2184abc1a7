package contract

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TRTMC's perf-serving app nests the timing under "timing" and the output under
// "observation"; the records parse into the same Record as ours.
func TestTRTMCPerfServingRecordsParse(t *testing.T) {
	data, err := os.ReadFile("testdata/trtmc-perf-serving-records.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	recs, err := ParseRecords(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 {
		t.Fatalf("%d records from 2 lines and a blank one", len(recs))
	}
	asr := recs[0]
	if asr.RequestID != "3b0f6c1e9a2d4f5e8c7b6a5d4e3f2a1b" || asr.Route != "/v1/audio/transcriptions" ||
		asr.Timing != (Timing{QueueMS: 0.12, ModelCallMS: 97.5, HandlerMS: 101.25}) || asr.Output == nil || asr.Output.Text != "go forward ten meters" {
		t.Errorf("ASR record: %+v", asr)
	}
	if img := recs[1]; img.Timing.ModelCallMS != 812 || img.Output != nil {
		t.Errorf("image record (no text in its observation): %+v", img)
	}
}

func TestParseRecordsNamesTheBadLine(t *testing.T) {
	_, err := ParseRecords([]byte("{\"request_id\":\"a\"}\n{\"route\":\"/x\"}\n"))
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("a record without id on line 2: %v", err)
	}
	if _, err := ParseRecords([]byte("{\"request_id\":\"a\"}\nnot json\n")); err == nil {
		t.Error("a line that is not JSON was accepted")
	}
}

// A line with TRTMC's timing and observation is TRTMC's app's record: no producer writes our
// trtmc_timing beside them, and the TRTMC path reads only what TRTMC writes.
func TestATRTMCShapedLineIsReadAsTRTMCs(t *testing.T) {
	r, err := ParseRecord([]byte(`{"request_id":"ours","trtmc_timing":{"model_call_ms":5},"timing":{"model_call_ms":9},"observation":{}}`))
	if err != nil || r.RequestID != "ours" || r.Timing.ModelCallMS != 9 {
		t.Errorf("%+v %v", r, err)
	}
}

// Every typed body carries trtmc_timing once set, and an images response keeps b64_json and
// url apart in its one item type.
func TestTypedBodiesCarryTiming(t *testing.T) {
	bodies := map[string]TimedBody{"images": &ImagesResponse{Data: []ImageData{{B64JSON: "AAAA"}, {URL: "http://x/a", ExpiresAt: 9}}},
		"transcription": &TranscriptionResponse{Text: "hi"}, "error": &ErrorBody{Error: ErrorDetail{Code: CodeInvalidValue}},
		"chat": &ChatCompletionResponse{Choices: []ChatChoice{{Message: ChatMessage{Role: "assistant", Content: "x"}}}}}
	for name, b := range bodies {
		b.SetTiming(Timing{ModelCallMS: 1.5})
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := ParseResponse(map[string][]string{"X-Request-Id": {"a"}, "Server-Timing": {"model;dur=1.5"}}, raw)
		if err != nil || !resp.HasBodyTiming || resp.Timing.ModelCallMS != 1.5 {
			t.Errorf("%s: %s: %+v %v", name, raw, resp, err)
		}
	}
	var back ImagesResponse
	raw, _ := json.Marshal(bodies["images"])
	if err := json.Unmarshal(raw, &back); err != nil || back.Data[0].B64JSON != "AAAA" || back.Data[0].URL != "" || back.Data[1].URL != "http://x/a" || back.Data[1].B64JSON != "" {
		t.Errorf("round trip: %s → %+v %v", raw, back, err)
	}
}

// TRTMC's generate_image record (app.py execute, digests.py image_digest) becomes one image
// with its artifact and media digest; a compacted digest (no --full-observations) is no image.
func TestTRTMCImageRecordCarriesArtifactAndDigest(t *testing.T) {
	line := `{"request_id": "r9", "route": "/v1/images/generations", "operation": "generate_image", "backend": "trtmc", "time": 1.5,
 "timing": {"queue_ms": 0.1, "model_call_ms": 40.5, "handler_ms": 45}, "observation": {"artifact": "/scratch/r9/output.png",
 "media_digest": {"frames": 1, "height": 256, "width": 128, "sampled_frames": [0], "thumbnail_size": 64, "thumbnails": [[1, 2, 3]]}}}`
	r, err := ParseRecord([]byte(line))
	if err != nil || r.Status != 200 || r.Output == nil || len(r.Output.Images) != 1 {
		t.Fatalf("%+v %v", r, err)
	}
	img := r.Output.Images[0]
	if img.Artifact != "/scratch/r9/output.png" || img.Width != 128 || img.Height != 256 || img.Digest == nil || len(img.Digest.Thumbnails[0]) != 3 || img.SHA256 != "" {
		t.Fatalf("image %+v", img)
	}
	compacted := strings.Replace(line, `"thumbnails": [[1, 2, 3]]`, `"thumbnails": {"$array_length": 1}`, 1)
	if r, err := ParseRecord([]byte(compacted)); err != nil || r.Output != nil {
		t.Fatalf("a compacted digest was read as an image: %+v %v", r.Output, err)
	}
}

// Progress counts only requests to the row's inference route: for each stage's route, a records
// file holding every route the server serves (health, serving info, /metrics scrapes, the other
// stages' routes), in both record shapes, and a line still being written, counts that route's
// complete records alone.
func TestCountRouteCountsOnlyTheInferenceRoute(t *testing.T) {
	routes := []string{"/v1/audio/transcriptions", "/v1/images/generations", "/v1/chat/completions"}
	other := []string{"/metrics", "/health/live", "/health/ready", "/v1/serving/info", "/v1/models"}
	for _, route := range routes {
		var data []byte
		want := 0
		for i, r := range append(append([]string{}, other...), routes...) {
			n := 3 + i%4 // every route several times
			for j := range n {
				var line string
				if j%2 == 0 {
					line = fmt.Sprintf(`{"request_id":"r%d-%d","method":"POST","route":%q,"status":200}`, i, j, r)
				} else { // TRTMC's serving app's shape (app.py @1797a247 execute)
					line = fmt.Sprintf(`{"request_id":"r%d-%d","route":%q,"operation":"transcribe","backend":"trtmc","time":1.5,"timing":{"queue_ms":0,"model_call_ms":1,"handler_ms":2},"observation":{"text":"x"}}`, i, j, r)
				}
				data = append(data, line+"\n"...)
			}
			if r == route {
				want += n
			}
		}
		partial := append(append([]byte{}, data...), fmt.Sprintf(`{"request_id":"late","route":%q`, route)...)
		if got := CountRoute(partial, route); got != want {
			t.Errorf("%s: counted %d, want %d", route, got, want)
		}
	}
}
