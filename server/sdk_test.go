package server_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	st "github.com/trtmc-qual/trtmc-qual/server/servertest"
)

// The SDK compatibility test drives the real binary through the official OpenAI SDKs, pinned
// (server/sdktest): the Python SDK from its venv and the Node SDK from its npm install, both
// installed by `make deps`. Each SDK runs the same calls (sdktest/sdk_check.py, .cjs) and prints
// what it saw; one table here judges both, against what plain HTTP gets from the same server.

// sdkCache is where `make deps` installs the SDKs: $QUAL_CACHE, else ~/.cache/trtmc-qual.
func sdkCache(t *testing.T) string {
	t.Helper()
	if dir := os.Getenv("QUAL_CACHE"); dir != "" {
		return dir
	}
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatalf("no QUAL_CACHE and no home directory: %v", err)
	}
	return filepath.Join(home, ".cache", "trtmc-qual")
}

// sdkRunner runs one SDK's check script with a JSON config and returns what it printed.
type sdkRunner struct {
	name    string
	command func(cfg string) *exec.Cmd
}

// sdkRunners finds both pinned SDKs; a missing one fails the test (never a skip).
func sdkRunners(t *testing.T) (python string, runners []sdkRunner) {
	t.Helper()
	cache := sdkCache(t)
	python = filepath.Join(cache, "openai-sdk-venv", "bin", "python")
	modules := filepath.Join(cache, "openai-sdk-node", "node_modules")
	if _, err := os.Stat(python); err != nil {
		t.Fatalf("the pinned OpenAI Python SDK is missing (run `make deps`): %v", err)
	}
	if _, err := os.Stat(filepath.Join(modules, "openai", "package.json")); err != nil {
		t.Fatalf("the pinned OpenAI Node SDK is missing (run `make deps`): %v", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is missing (run `make deps`): %v", err)
	}
	dir := filepath.Join(st.RepoRoot(), "server", "sdktest")
	return python, []sdkRunner{
		{"python", func(cfg string) *exec.Cmd { return exec.Command(python, filepath.Join(dir, "sdk_check.py"), cfg) }},
		{"node", func(cfg string) *exec.Cmd {
			cmd := exec.Command(node, filepath.Join(dir, "sdk_check.cjs"), cfg)
			cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
			return cmd
		}},
	}
}

// sdkExpected is what plain HTTP gets from the server for the calls the SDKs make.
type sdkExpected struct {
	transcript, answer        string
	imageSHA, defaultImageSHA string
	models                    []string
}

func TestOpenAISDKs(t *testing.T) {
	f := setup(t)
	python, runners := sdkRunners(t)
	const asr, qa, img = "sphinx-en-us", "sphinxqa-an4-l0", "procdiff-small-l0"
	bundles := []string{f.enUS, imageBundle(t, img), qaBundle(t)}
	// One lane and no queue, so that a long transcription makes the next one 429 server_busy.
	open := st.Start(t, f.server, bundles, "--lanes", "1", "--queue", "0")
	keyFile := filepath.Join(t.TempDir(), "key")
	os.WriteFile(keyFile, []byte("sdk-s3cret\n"), 0o600)
	keyed := st.Start(t, f.server, bundles, "--api-key-file", keyFile)

	clipPath := "/usr/share/pocketsphinx/test/data/cards/005.wav"
	clip := cardsClip(t, "005")
	const question, firstQuestion, prompt = "Which digits are spoken?", "How many words are spoken?", "a red kite"
	want := sdkExpected{models: []string{img, asr, qa}}
	want.transcript = plainJSON(t, st.Do(t, transcription(t, open.URL, asr, clip)))["text"].(string)
	want.answer = chatAnswer(t, plainJSON(t, st.Do(t, st.JSONPost(t, open.URL+"/v1/chat/completions", chatBody(qa, textPart(question), audioPart(clip))))))
	if other := chatAnswer(t, plainJSON(t, st.Do(t, st.JSONPost(t, open.URL+"/v1/chat/completions", chatBody(qa, textPart(firstQuestion), audioPart(clip)))))); other == want.answer {
		t.Fatalf("the two questions have one answer %q: the chat check could not tell which was answered", other)
	}
	want.imageSHA = plainImageSHA(t, open.URL, `{"model":"`+img+`","prompt":"`+prompt+`","size":"128x128","seed":7,"num_inference_steps":6,"guidance_scale":5.0}`)
	want.defaultImageSHA = plainImageSHA(t, open.URL, `{"model":"`+img+`","prompt":"`+prompt+`","size":"128x128"}`)
	if want.imageSHA == want.defaultImageSHA {
		t.Fatal("seed/steps/guidance do not change the image: the extra_body check could not fail")
	}

	// Each SDK gets its own one-lane server, so the two (and the README example on the first
	// server) run at once: most of their time is the SDKs' retry back-off, not the server's work.
	for _, sdk := range runners {
		t.Run(sdk.name, func(t *testing.T) {
			t.Parallel()
			open := st.Start(t, f.server, bundles, "--lanes", "1", "--queue", "0")
			cfg, _ := json.Marshal(map[string]string{"url": open.URL, "key_url": keyed.URL, "key": "sdk-s3cret",
				"asr_model": asr, "qa_model": qa, "image_model": img, "clip": clipPath, "prompt": prompt,
				"long_clip": "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0870.wav",
				"question":  question, "first_question": firstQuestion, "id_prefix": sdk.name})
			before := len(open.RecordLines(t))
			var stderr bytes.Buffer
			cmd := sdk.command(string(cfg))
			cmd.Stderr = &stderr
			stdout, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s SDK check: %v\n%s", sdk.name, err, stderr.String())
			}
			var obs map[string]any
			if err := json.Unmarshal(stdout, &obs); err != nil {
				t.Fatalf("%s SDK check printed no JSON: %v\n%s\n%s", sdk.name, err, stdout, stderr.String())
			}
			t.Logf("%s SDK %v", sdk.name, obs["sdk_version"])
			checkSDKObservations(t, obs, want, sdk.name)
			checkSDKRetries(t, obs, readRecords(t, open)[before:], sdk.name)
		})
	}
	t.Run("README example", func(t *testing.T) {
		t.Parallel()
		runReadmeExample(t, python, open.URL, clip, want.transcript)
	})
}

func plainJSON(t *testing.T, r st.Response) map[string]any {
	t.Helper()
	if r.Status != 200 || r.JSON == nil {
		t.Fatalf("plain HTTP: %d %s", r.Status, r.Body)
	}
	return r.JSON
}

func chatAnswer(t *testing.T, body map[string]any) string {
	t.Helper()
	choices, _ := body["choices"].([]any)
	if len(choices) != 1 {
		t.Fatalf("chat: %v", body)
	}
	return choices[0].(map[string]any)["message"].(map[string]any)["content"].(string)
}

func plainImageSHA(t *testing.T, url, body string) string {
	t.Helper()
	data, err := base64.StdEncoding.DecodeString(plainJSON(t, imageRequest(t, url, body))["data"].([]any)[0].(map[string]any)["b64_json"].(string))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// refused is the observation of a call the SDK raised on: its error class and the error object.
func refused(class string, status int, code string, param any) map[string]any {
	return map[string]any{"error": map[string]any{"class": class, "status": status, "code": code, "param": param}}
}

// checkSDKObservations holds every expectation of the calls both SDKs make.
func checkSDKObservations(t *testing.T, obs map[string]any, w sdkExpected, sdk string) {
	t.Helper()
	png := func(sha string) map[string]any { return map[string]any{"status": 200, "png": true, "sha256": sha} }
	deniedArtifact := map[string]any{"status": 401, "code": contract.CodeUnauthorized}
	models := make([]any, len(w.models))
	for i, id := range w.models {
		models[i] = map[string]any{"id": id, "object": "model", "owned_by": "trtmc-qual"}
	}
	expect := map[string]any{
		"transcribe_json":        map[string]any{"text": w.transcript, "request_id": sdk + "-transcribe"},
		"transcribe_text":        map[string]any{"text": w.transcript},
		"transcribe_verbose":     map[string]any{"text": w.transcript, "language": "en", "segments": []any{map[string]any{"start": 0, "text": w.transcript}}},
		"transcribe_stream":      refused("BadRequestError", 400, contract.CodeUnsupportedOption, "stream"),
		"transcribe_words":       refused("BadRequestError", 400, contract.CodeUnsupportedOption, "timestamp_granularities"),
		"transcribe_temperature": refused("BadRequestError", 400, contract.CodeUnsupportedOption, "temperature"),
		"image_b64":              map[string]any{"count": 1, "png": true, "sha256": w.imageSHA},
		"image_url":              map[string]any{"download": png(w.imageSHA)},
		"image_url_key": map[string]any{"download": png(w.imageSHA), "tampered": deniedArtifact,
			"unsigned": deniedArtifact, "unsigned_with_key": png(w.imageSHA)},
		"image_noops":             map[string]any{"count": 1},
		"image_quality_hd":        refused("BadRequestError", 400, contract.CodeUnsupportedOption, "quality"),
		"chat":                    map[string]any{"content": w.answer, "role": "assistant", "model": "sphinxqa-an4-l0", "object": "chat.completion"},
		"chat_noops":              map[string]any{"content": w.answer},
		"chat_n2":                 refused("BadRequestError", 400, contract.CodeUnsupportedOption, "n"),
		"models_list":             map[string]any{"models": models},
		"models_retrieve":         map[string]any{"id": "sphinx-en-us", "object": "model", "owned_by": "trtmc-qual"},
		"models_retrieve_missing": refused("NotFoundError", 404, contract.CodeModelNotFound, "model"),
		"wrong_model":             refused("NotFoundError", 404, contract.CodeModelNotFound, "model"),
		"wrong_key":               refused("AuthenticationError", 401, contract.CodeUnauthorized, nil),
		"keyed_models":            []any{w.models[0], w.models[1], w.models[2]},
	}
	for name, exp := range expect {
		if got, ok := obs[name]; !ok || !subsetOf(exp, got) {
			t.Errorf("%s: the %s SDK saw %s, want (at least) %s", name, sdk, mustMarshal(got), mustMarshal(exp))
		}
	}
	// Values known only as "set": created times, the verbose segment's end, request ids.
	positive := map[string]any{"image_b64.created": dig(obs, "image_b64", "created"), "chat.created": dig(obs, "chat", "created"),
		"models_retrieve.created": dig(obs, "models_retrieve", "created")}
	for _, m := range asList(dig(obs, "models_list", "models")) {
		positive["models_list.created "+fmt.Sprint(dig(m, "id"))] = dig(m, "created")
	}
	for name, v := range positive {
		if n, ok := v.(float64); !ok || n <= 0 {
			t.Errorf("%s = %v, want a Unix time", name, v)
		}
	}
	if seg := asList(dig(obs, "transcribe_verbose", "segments")); len(seg) != 1 || dig(seg[0], "end") != dig(obs, "transcribe_verbose", "duration") {
		t.Errorf("verbose_json: want one segment ending at the clip's duration: %s", mustMarshal(obs["transcribe_verbose"]))
	}
	generated := regexp.MustCompile(`^srv-[0-9a-f]+$`)
	for _, name := range []string{"chat", "transcribe_stream", "wrong_key", "wrong_model"} {
		id := dig(obs, name, "request_id")
		if id == nil {
			id = dig(obs, name, "error", "request_id")
		}
		if s, _ := id.(string); !generated.MatchString(s) {
			t.Errorf("%s: the %s SDK saw request id %v, want the server's srv-… id", name, sdk, id)
		}
	}
}

// checkSDKRetries: with the model's one lane held, a call's first attempt is 429 server_busy
// and the SDK retries it (max_retries 2, honouring Retry-After): either a retry is served once
// the lane is free, or all three attempts are refused and the SDK raises RateLimitError.
func checkSDKRetries(t *testing.T, obs map[string]any, recs []contract.Record, sdk string) {
	t.Helper()
	for _, phase := range []string{"busy", "busy_own_id"} {
		if text, _ := dig(obs, phase, "blocker", "text").(string); text == "" {
			t.Errorf("%s: the long request holding the lane was not served: %s", phase, mustMarshal(dig(obs, phase, "blocker")))
		}
	}
	refusedAttempts := 0
	for _, r := range recs {
		if strings.HasPrefix(r.RequestID, "srv-") && r.ClientRequestID == "" && r.ErrorCode == contract.CodeServerBusy {
			refusedAttempts++
		}
	}
	call := dig(obs, "busy", "call")
	switch text, served := dig(call, "text").(string); {
	case served && text != "" && refusedAttempts >= 1 && refusedAttempts <= 2:
	case !served && refusedAttempts == 3 && subsetOf(refused("RateLimitError", 429, contract.CodeServerBusy, nil), call):
	default:
		t.Errorf("busy: the %s SDK saw %s after %d attempts refused 429 (want 1-2 then served, or 3 then RateLimitError)", sdk, mustMarshal(call), refusedAttempts)
	}
	// The client's own X-Request-ID: a 429 before any Task work leaves the id free, so the SDK's
	// retries under the same id are served or refused busy again, never duplicate_request_id;
	// every attempt is recorded under that id with its attempt number.
	ownID := sdk + "-busy"
	var attempts []contract.Record
	for _, r := range recs {
		if r.RequestID == ownID {
			attempts = append(attempts, r)
		}
	}
	ownCall := dig(obs, "busy_own_id", "call")
	switch text, served := dig(ownCall, "text").(string); {
	case served && text != "":
	case !served && subsetOf(refused("RateLimitError", 429, contract.CodeServerBusy, nil), ownCall):
	default:
		t.Errorf("busy_own_id: the %s SDK saw %s (want the transcript, or RateLimitError server_busy after its retries)", sdk, mustMarshal(ownCall))
	}
	if len(attempts) < 1 || len(attempts) > 3 {
		t.Fatalf("busy_own_id: %d records under the client's id %s, want 1-3 attempts", len(attempts), ownID)
	}
	for i, r := range attempts {
		last := i == len(attempts)-1
		switch {
		case r.Attempt != i+1:
			t.Errorf("busy_own_id: record %d has attempt %d, want %d", i, r.Attempt, i+1)
		case r.Status == 200 && last:
		case r.Status == 429 && r.ErrorCode == contract.CodeServerBusy:
		default:
			t.Errorf("busy_own_id: attempt %d recorded %d %s (want 429 server_busy, or 200 for the last)", r.Attempt, r.Status, r.ErrorCode)
		}
	}
}

// runReadmeExample runs the Python example of server/README.md as written there.
func runReadmeExample(t *testing.T, python, url string, clip []byte, transcript string) {
	readme, err := os.ReadFile(filepath.Join(st.RepoRoot(), "server", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	section, ok := strings.CutPrefix(string(readme)[strings.Index(string(readme), "## Use it from the OpenAI SDK"):], "## Use it from the OpenAI SDK")
	m := regexp.MustCompile("(?s)```python\n(.*?)```").FindStringSubmatch(section)
	if !ok || m == nil {
		t.Fatal("server/README.md has no python example under \"## Use it from the OpenAI SDK\"")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "example.py"), []byte(m[1]), 0o644)
	os.WriteFile(filepath.Join(dir, "clip.wav"), clip, 0o644)
	cmd := exec.Command(python, "example.py")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+url+"/v1", "OPENAI_API_KEY=unused")
	out, err := cmd.CombinedOutput()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err != nil || len(lines) != 2 || lines[0] != transcript || !strings.HasPrefix(lines[1], url+"/v1/artifacts/") {
		t.Fatalf("README example: %v\n%s\nwant the transcript %q, then an artifact url", err, out, transcript)
	}
	if r := st.Do(t, get(t, lines[1])); r.Status != 200 || !bytes.HasPrefix(r.Body, []byte("\x89PNG")) {
		t.Errorf("README example's url: %d", r.Status)
	}
}

// subsetOf says got holds everything want does: maps key by key (extra keys allowed), lists
// element by element (same length), numbers by value, the rest equal.
func subsetOf(want, got any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range w {
			if gv, ok := g[k]; !ok || !subsetOf(v, gv) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !subsetOf(w[i], g[i]) {
				return false
			}
		}
		return true
	case int:
		return got == float64(w)
	}
	return reflect.DeepEqual(want, got)
}

// dig follows keys through decoded JSON objects (nil where one is missing).
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

func asList(v any) []any { l, _ := v.([]any); return l }

func mustMarshal(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
