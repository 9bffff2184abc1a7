package contract

import (
	"encoding/json"
	"strconv"

	"github.com/trtmc-qual/trtmc-qual/harness/mediadigest"
)

// What the harness reads from TRTMC's serving app (apps/perf_serving/trtmc_perf_serving in
// NVIDIA/TensorRT-Model-Connect). Each struct holds only the members the harness uses, spelled
// as the app writes them; TRTMCDecoders lists them so that a test ties every member to a row
// of the contract double's fidelity table (suites/targets/testdata/trtmc-double/README.md).

// TRTMCServingInfo is GET /v1/serving/info: app.py @1797a247 info() merges the backend's
// identity (backends/trtmc.py @7b798a32 describe: backend, worker, bundle, isolate_requests and
// the worker's ready event's operation, task, selected_task, timing_scope,
// asset_loading_included, load_ms), cli.py @1797a247's info (profile, testcase, family,
// platform, host), max_queue and base_request. It names no sha256: the harness hashes the
// bundle it mounted itself.
type TRTMCServingInfo struct {
	Bundle      string         `json:"bundle"`
	Task        string         `json:"task"`
	TimingScope string         `json:"timing_scope"`
	LoadMS      *float64       `json:"load_ms"`
	Profile     string         `json:"profile"`
	Testcase    string         `json:"testcase"`
	Family      string         `json:"family"`
	BaseRequest map[string]any `json:"base_request"`
}

// TRTMCRecord is one line of the app's --records file (app.py @1797a247 execute): written only
// for an executed request, after the call and before the answer.
type TRTMCRecord struct {
	RequestID   string            `json:"request_id"`
	Route       string            `json:"route"`
	Timing      *Timing           `json:"timing"`
	Observation *TRTMCObservation `json:"observation"`
}

// TRTMCObservation is the worker's observation as the app records it: transcribe's
// {input_audio_seconds, output_tokens, text} (benchmark_worker.cpp @ca938e40 run_transcribe);
// generate_image's image_artifacts (file names beside the request's artifact base,
// benchmark_worker.cpp @ca938e40 run_generate_image), artifact or path (what app.py @1797a247
// _artifact_url answers as a file:// URL) and the media_digest the app adds (digests.py
// @7d4725ab add_media_digests).
type TRTMCObservation struct {
	Text              *string             `json:"text"`
	InputAudioSeconds *float64            `json:"input_audio_seconds"`
	ImageArtifacts    []string            `json:"image_artifacts"`
	Artifact          string              `json:"artifact"`
	Path              string              `json:"path"`
	Digest            *mediadigest.Digest `json:"media_digest"`
}

// TRTMCTranscription is the 200 answer of /v1/audio/transcriptions (app.py @1797a247
// transcriptions + respond): {text, trtmc_timing, trtmc_observation}.
type TRTMCTranscription struct {
	Text *string `json:"text"`
}

// ImageReply is the members of an images answer the harness reads: data[].url (TRTMC's app,
// app.py @1797a247 images: {"created", "data": [{"url"}], "inference_time_s", "trtmc_timing",
// "trtmc_observation"}) or data[].b64_json (the reference target; TRTMC never answers one).
type ImageReply struct {
	Data []struct {
		URL     string `json:"url"`
		B64JSON string `json:"b64_json"`
	} `json:"data"`
}

// TRTMCError is the app's error answer (app.py @1797a247 _error), with X-Request-ID when the
// request got one.
type TRTMCError struct {
	Error struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    string `json:"code"`
	} `json:"error"`
}

// TRTMCDecoders are the decode types the harness applies to a TRTMC-kind target's serving
// output, by the output's name in the fidelity table.
func TRTMCDecoders() map[string]any {
	return map[string]any{
		"serving/info":  TRTMCServingInfo{},
		"record":        TRTMCRecord{},
		"transcription": TRTMCTranscription{},
		"images":        ImageReply{},
		"error":         TRTMCError{},
		"answer":        Timed{}, // the identity step compares every 200 answer's trtmc_timing with its record's
	}
}

// HeaderRequestID is the request's id: sent by the harness, answered by TRTMC's app on every
// answer and error that got one (app.py @1797a247 _headers, _error, _REQUEST_ID).
const HeaderRequestID = "X-Request-ID"

// TRTMCHeaders are the answer headers the harness reads from a TRTMC-kind server (the refusal
// probe reads the id an error answered with); a test ties each to a fidelity row.
func TRTMCHeaders() []string { return []string{HeaderRequestID} }

// BaseRequestReads are the members of serving/info.base_request the harness reads (a map, so
// TRTMCDecoders cannot list them): the language (BaseLanguage) and each native value
// (NativeFromBase). A test ties each to a fidelity row, as it does the decoders' members.
func BaseRequestReads() []string {
	out := []string{baseLanguage}
	for _, f := range baseNative() {
		out = append(out, f.key)
	}
	return append(out, baseNegativePrompt)
}

const (
	baseLanguage       = "language"
	baseNegativePrompt = "negative_prompt"
)

// BaseLanguage is the served base request's language, and whether the operation takes one at
// all (the key is present: task_adapters.py @0dd9052f always writes it for a transcription).
func BaseLanguage(base map[string]any) (string, bool) {
	v, ok := base[baseLanguage]
	if !ok {
		return "", false
	}
	s, _ := v.(string)
	return s, true
}

// baseField is a numeric base-request member the native run takes, under the target's
// placeholder name, when the worker would treat it as set.
type baseField struct {
	key, value string
	set        func(float64) bool
}

func baseNative() []baseField {
	positive := func(v float64) bool { return v > 0 }
	nonNegative := func(v float64) bool { return v >= 0 }
	return []baseField{
		{"max_new_tokens", "max_tokens", positive}, {"num_steps", "steps", positive}, {"guidance_scale", "guidance", nonNegative},
		{"cfg_scale", "cfg_scale", nonNegative}, {"height", "height", positive}, {"width", "width", positive}, {"seed", "seed", nonNegative},
	}
}

// UnmarshalJSON reads an observation whose media_digest may be compacted (app.py @1797a247
// compact: without --full-observations its thumbnails become {"$array_length": n}): such a
// digest is no digest, and the other members are still read.
func (o *TRTMCObservation) UnmarshalJSON(b []byte) error {
	type plain TRTMCObservation
	var p plain
	if err := json.Unmarshal(b, &p); err == nil {
		*o = TRTMCObservation(p)
		return nil
	}
	var rest struct {
		plain
		Digest json.RawMessage `json:"media_digest"`
	}
	if err := json.Unmarshal(b, &rest); err != nil {
		return err
	}
	*o = TRTMCObservation(rest.plain)
	o.Digest = nil
	return nil
}

// NativeFromBase are the native-run values a served base request sets: each number the worker
// treats as set (its unset markers are -1 or 0: benchmark_worker.cpp @ca938e40 image_config,
// run_transcribe) under the target's placeholder name, and a non-empty negative prompt. The run
// derives the native twin's flags from it, and qual verify re-derives them from the stored copy.
func NativeFromBase(base map[string]any) map[string]string {
	out := map[string]string{}
	for _, f := range baseNative() {
		if v, ok := base[f.key].(float64); ok && f.set(v) {
			out[f.value] = strconv.FormatFloat(v, 'g', -1, 64)
		}
	}
	if v, ok := base[baseNegativePrompt].(string); ok && v != "" {
		out[baseNegativePrompt] = v
	}
	return out
}
