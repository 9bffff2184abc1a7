package spec

import (
	"encoding/json"
	"strings"
	"testing"
)

func flag(args []string, name string) (string, bool) {
	for i, a := range args {
		if a == name && i+1 < len(args) {
			return args[i+1], true
		}
	}
	return "", false
}

// AIPerf 0.13.0 refuses --tokenizer with audio_transcription; every other endpoint gets the
// offline tokenizer so that nothing is downloaded.
func TestArgsTokenizerByEndpoint(t *testing.T) {
	for _, ep := range []string{AudioTranscription, ImageGeneration, Chat} {
		args, err := Profile{Model: "m", URL: "http://s:8000", EndpointType: ep, RequestCount: 8, WarmupCount: 2}.Args()
		if err != nil {
			t.Fatal(err)
		}
		tok, has := flag(args, "--tokenizer")
		if (ep == AudioTranscription) == has || (has && tok != OfflineTokenizer) {
			t.Errorf("%s: --tokenizer %q present=%v", ep, tok, has)
		}
		// The prompt corpus only matters where a tokenizer builds one (see SetupOnlyArgs).
		if corpus, set := flag(args, "--prompt-corpus"); set != has || (set && corpus != "random") {
			t.Errorf("%s: --prompt-corpus %q present=%v with --tokenizer present=%v", ep, corpus, set, has)
		}
		if v, _ := flag(args, "--request-count"); v != "8" {
			t.Errorf("%s: --request-count %s", ep, v)
		}
		if v, _ := flag(args, "--warmup-request-count"); v != "2" {
			t.Errorf("%s: --warmup-request-count %s", ep, v)
		}
	}
}

func TestArgsConcurrencyExtraInputsAndKey(t *testing.T) {
	args, err := Profile{EndpointType: ImageGeneration, Concurrency: 0, TimeoutSeconds: 2.5,
		ExtraInputs: map[string]any{"size": "64x64", "num_inference_steps": 4}, APIKey: "secret"}.Args()
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := flag(args, "--concurrency"); v != "1" {
		t.Errorf("concurrency 0 must become 1, got %s", v)
	}
	if v, _ := flag(args, "--request-timeout-seconds"); v != "2.5" {
		t.Errorf("timeout %s", v)
	}
	extra, _ := flag(args, "--extra-inputs")
	var got map[string]any
	if err := json.Unmarshal([]byte(extra), &got); err != nil || got["size"] != "64x64" || got["num_inference_steps"] != 4.0 {
		t.Errorf("--extra-inputs %q: %v", extra, err)
	}
	if v, _ := flag(args, "--api-key"); v != "secret" {
		t.Errorf("--api-key %q", v)
	}
	if _, err := (Profile{ExtraInputs: map[string]any{"bad": func() {}}}).Args(); err == nil || !strings.Contains(err.Error(), "extra inputs") {
		t.Errorf("unencodable extra inputs: %v", err)
	}
	if args, _ := (Profile{}).Args(); strings.Contains(strings.Join(args, " "), "--api-key") || strings.Contains(strings.Join(args, " "), "--extra-inputs") {
		t.Errorf("empty options added flags: %v", args)
	}
}
