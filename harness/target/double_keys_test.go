package target

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
)

// trtmcKeys are the keys TRTMC's serving app can emit in each JSON object the double serves, by
// where the object is (a path of keys, "[]" for an array's items); the double may emit fewer
// where TRTMC's are optional, never others.
func trtmcKeys() map[string][]string {
	timing := []string{"queue_ms", "model_call_ms", "handler_ms", "peak_memory_mb"} // app.py @1797a247 execute
	observation := []string{
		"input_audio_seconds", "output_tokens", "text", "first_partial_ms", // benchmark_worker.cpp @ca938e40 run_transcribe
		"generated_images", "batch_size", "generated_frames", "media_count", "output_elements", "height", "width", "channels",
		"num_frames", "media_type", "image_artifacts", "frame_artifacts", // run_generate_image, image_observation
		"media_digest", "latent_replay", // app.py @1797a247 execute, digests.py @7d4725ab
	}
	return map[string][]string{
		// app.py @1797a247 info(); backends/trtmc.py @7b798a32 describe; cli.py @1797a247 info
		"info": {"backend", "worker", "bundle", "isolate_requests", "operation", "task", "selected_task", "timing_scope",
			"asset_loading_included", "load_ms", "profile", "testcase", "family", "platform", "host", "max_queue", "base_request"},
		"info.platform": {"packages", "cuda", "cudnn", "gpu_arch"},               // platform.py @ca938e40 fingerprint
		"info.host":     {"hostname", "python", "machine", "gpu_name", "driver"}, // platform.py @ca938e40 host_details
		"info.base_request": {"audio_path", "max_new_tokens", "language", "streaming", "chunk_ms", // task_adapters.py @0dd9052f
			"prompt", "negative_prompt", "seed", "num_steps", "guidance_scale", "cfg_scale", "height", "width", "batch_size", "image_path", "seeds"},
		"transcription":                         {"text", "trtmc_timing", "trtmc_observation"}, // app.py @1797a247 transcriptions, respond
		"transcription.trtmc_timing":            timing,
		"transcription.trtmc_observation":       observation,
		"images":                                {"created", "data", "inference_time_s", "peak_memory_mb", "trtmc_timing", "trtmc_observation"}, // images, _media_stats
		"images.data[]":                         {"url"},
		"images.trtmc_timing":                   timing,
		"images.trtmc_observation":              observation,
		"images.trtmc_observation.media_digest": {"frames", "height", "width", "sampled_frames", "thumbnail_size", "thumbnails"},
		"record":                                {"request_id", "route", "operation", "backend", "time", "timing", "observation"}, // execute
		"record.timing":                         timing,
		"record.observation":                    observation,
		"record.observation.media_digest":       {"frames", "height", "width", "sampled_frames", "thumbnail_size", "thumbnails"},
		"error":                                 {"error"}, // _error
		"error.error":                           {"message", "type", "code"},
		"ready":                                 {"status", "operation"}, // ready
		"live":                                  {"status"},
		"models":                                {"object", "data"}, // models
		"models.data[]":                         {"id", "object", "owned_by"},
		"undefined route":                       {"detail"}, // FastAPI's own answer: app.py defines no catch-all
	}
}

// extraKeys lists, for value served at where, every key TRTMC's app does not emit there,
// descending into the objects trtmcKeys describes.
func extraKeys(where string, value any, allowed map[string][]string) []string {
	var out []string
	switch v := value.(type) {
	case map[string]any:
		keys, known := allowed[where]
		if !known {
			return nil
		}
		for k, item := range v {
			if !slices.Contains(keys, k) {
				out = append(out, where+"."+k)
				continue
			}
			out = append(out, extraKeys(where+"."+k, item, allowed)...)
		}
	case []any:
		for _, item := range v {
			out = append(out, extraKeys(where+"[]", item, allowed)...)
		}
	}
	sort.Strings(out)
	return out
}

// servedKeysAreTRTMCs fails the test when a JSON object the double served holds a key TRTMC's app
// does not emit there; /v1/serving/info must hold exactly TRTMC's keys. answer is the executed
// request's body (kind "transcription" or "images"). The refusals it sends leave no record.
func servedKeysAreTRTMCs(t *testing.T, base, kind string, answer []byte) {
	t.Helper()
	allowed := trtmcKeys()
	check := func(where string, raw []byte) map[string]any { // the served object's keys, checked
		t.Helper()
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("%s: not JSON: %v: %.200s", where, err, raw)
		}
		if extra := extraKeys(where, v, allowed); len(extra) > 0 {
			t.Errorf("the double served keys TRTMC's app does not: %s", strings.Join(extra, ", "))
		}
		m, _ := v.(map[string]any)
		return m
	}
	get := func(path string) []byte {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return body
	}
	info := check("info", get("/v1/serving/info"))
	for _, k := range allowed["info"] {
		if _, ok := info[k]; !ok {
			t.Errorf("/v1/serving/info lacks TRTMC's %q", k)
		}
	}
	check("ready", get("/health/ready"))
	check("live", get("/health/live"))
	check("models", get("/v1/models"))
	check("undefined route", get("/v1/no-such-route"))
	check(kind, answer)
	served := map[string]string{"images": "/v1/images/generations", "transcription": "/v1/audio/transcriptions"}[kind]
	// Each refusal TRTMC's app makes of these requests (app.py @1797a247 guarded, _error; openai.py
	// @db5a3def _check_fields, image_generation, transcription), with its status and code.
	for _, r := range []struct {
		route, body string
		status      int
		code        string
	}{
		{"/v1/chat/completions", `{"messages": [{"role": "user", "content": "hi"}]}`, 404, "route_not_served"},
		{"/v1/images/generations", `{"prompt": "x", "no_such_field": 1}`, 400, "invalid_request"},
		{"/v1/images/generations", `{"prompt": "x", "n": 2}`, 400, "invalid_request"},
		{"/v1/images/generations", `{"prompt": "x", "size": "big"}`, 400, "invalid_request"},
		{"/v1/audio/transcriptions", `{}`, 400, "invalid_request"},
	} {
		resp, err := http.Post(base+r.route, "application/json", strings.NewReader(r.body))
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var answer struct {
			Error struct {
				Code string `json:"code"`
			} `json:"error"`
		}
		_ = json.Unmarshal(raw, &answer)
		want := r.status
		if r.route != served {
			want, r.code = 404, "route_not_served" // guarded: a route of an operation this server does not serve
		}
		if resp.StatusCode != want || answer.Error.Code != r.code || resp.Header.Get("X-Request-ID") == "" {
			t.Errorf("%s %s: status %d, code %q, X-Request-ID %q: want %d %q with X-Request-ID", r.route, r.body, resp.StatusCode,
				answer.Error.Code, resp.Header.Get("X-Request-ID"), want, r.code)
		}
		check("error", raw)
	}
}

// recordKeysAreTRTMCs fails the test when a record holds a key TRTMC's app does not write.
func recordKeysAreTRTMCs(t *testing.T, records []byte) {
	t.Helper()
	for _, line := range bytes.Split(bytes.TrimSpace(records), []byte("\n")) {
		var v any
		if err := json.Unmarshal(line, &v); err != nil {
			t.Fatalf("record not JSON: %v", err)
		}
		if extra := extraKeys("record", v, trtmcKeys()); len(extra) > 0 {
			t.Errorf("the double wrote record keys TRTMC's app does not: %s", strings.Join(extra, ", "))
		}
	}
}

// The key check itself catches a key TRTMC does not emit (ours: models[], bundle_sha256) and
// passes TRTMC's own shapes.
func TestServedKeyCheckCatchesKeysTRTMCDoesNotServe(t *testing.T) {
	allowed := trtmcKeys()
	var ours, theirs, record any
	json.Unmarshal([]byte(`{"backend": "trtmc", "bundle": "/b", "models": [{"bundle_sha256": "x"}], "base_request": {"prompt": "p", "trtmc_timing": 1}}`), &ours)
	json.Unmarshal([]byte(`{"backend": "trtmc", "bundle": "/b", "platform": {"gpu_arch": "cpu"}, "base_request": {"prompt": "p"}}`), &theirs)
	json.Unmarshal([]byte(`{"request_id": "a", "timing": {"model_call_ms": 1}, "trtmc_timing": {}, "observation": {"text": "x", "contract_double": "y"}}`), &record)
	if got := extraKeys("info", ours, allowed); strings.Join(got, ",") != "info.base_request.trtmc_timing,info.models" {
		t.Errorf("ours: %v", got)
	}
	if got := extraKeys("info", theirs, allowed); len(got) != 0 {
		t.Errorf("TRTMC's: %v", got)
	}
	if got := extraKeys("record", record, allowed); strings.Join(got, ",") != "record.observation.contract_double,record.trtmc_timing" {
		t.Errorf("record: %v", got)
	}
}
