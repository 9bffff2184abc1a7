package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/native/audio"
	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/family"
	"github.com/trtmc-qual/trtmc-qual/native/registry"
	"github.com/trtmc-qual/trtmc-qual/native/task"
	"github.com/trtmc-qual/trtmc-qual/server/servertest"
)

// fakeAnswerer is a test double (labelled as such in its answers) of an audio_text_to_text
// model: it proves the chat route dispatches audio parts by capability and hands the Task the
// question and clip as sent, whatever the family; the real cascade is exercised in
// chat_integration_test.go and FuzzChatContent.
type fakeAnswerer struct{}

func (fakeAnswerer) Tasks() []task.Info { return []task.Info{{Name: task.AudioTextToText}} }
func (f fakeAnswerer) Task(n task.Name) (any, error) {
	if n == task.AudioTextToText {
		return f, nil
	}
	return nil, &task.UnsupportedCapabilityError{Model: "fake-qa", Task: n, Has: []task.Name{task.AudioTextToText}}
}
func (fakeAnswerer) Close() error { return nil }
func (fakeAnswerer) AudioSpec() task.AudioSpec {
	return task.AudioSpec{SampleRate: 16000, Channels: 1, MaxSeconds: 30}
}
func (fakeAnswerer) Answer(_ context.Context, q task.AudioQuestion) (string, error) {
	return fmt.Sprintf("%d samples; you asked: %s", len(q.Audio.Samples), q.Question), nil
}

func newTestServer(t *testing.T, models map[string]task.Model) *Server {
	t.Helper()
	s, err := New(Config{Bundles: []string{"unused"}})
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range models {
		s.models[name] = newServedModel("memory", testBundle(name), m, 1, 4)
		s.order = append(s.order, name)
	}
	s.ready.Store(true)
	t.Cleanup(func() { s.Close() })
	return s
}

func TestChatDispatchesAudioPartsByCapability(t *testing.T) {
	s := newTestServer(t, map[string]task.Model{"fake-qa": fakeAnswerer{}})
	wav := base64.StdEncoding.EncodeToString(audio.EncodePCM16(make([]int16, 1600), 1, 16000))
	body := `{"model":"fake-qa","messages":[{"role":"user","content":[{"type":"text","text":"what is said?"},{"type":"input_audio","input_audio":{"data":"` + wav + `","format":"wav"}}]}],"max_completion_tokens":16}`
	req := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(body))
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, req)
	if w.Code != 200 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	var out struct {
		Choices []struct {
			Message struct{ Content string }
		}
		Timing contract.Timing `json:"trtmc_timing"`
	}
	json.Unmarshal(w.Body.Bytes(), &out)
	if len(out.Choices) != 1 || out.Choices[0].Message.Content != "1600 samples; you asked: what is said?" {
		t.Fatalf("answer: %s", w.Body)
	}
	// Text-only chat needs text_generation, which the fake lacks.
	req = httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(`{"model":"fake-qa","messages":[{"role":"user","content":"hi"}]}`))
	w = httptest.NewRecorder()
	s.Handler().ServeHTTP(w, req)
	if w.Code != 400 || !strings.Contains(w.Body.String(), `"unsupported_capability"`) || !strings.Contains(w.Body.String(), "text_generation") {
		t.Fatalf("text-only chat: %d %s", w.Code, w.Body)
	}
}

func TestCheckDuplicateKeys(t *testing.T) {
	cases := map[string]bool{
		`{"a":1,"b":2}`:                       false,
		`{"a":1,"a":2}`:                       true,
		`{"a":{"x":1,"x":2}}`:                 true,
		`{"a":[{"x":1},{"x":2}],"b":{"x":1}}`: false,
		`[{"a":1,"a":1}]`:                     true,
		`{"a":{"b":1},"c":3,"a":0}`:           true,
	}
	for in, dup := range cases {
		_, err := checkDuplicateKeys([]byte(in))
		if (err != nil) != dup {
			t.Errorf("%s: err %v, want duplicate=%v", in, err, dup)
		}
	}
}

func testBundle(profile string) *bundle.Bundle {
	return &bundle.Bundle{Header: bundle.Header{Profile: profile}, SHA256: strings.Repeat("0", 64)}
}

// addCascadeModel serves the real cascade audio-QA reduced profile (PocketSphinx AN4 +
// templated reader) in s as "sphinxqa-an4-l0", so that chat fuzzing reaches a real Task.
func addCascadeModel(f *testing.F, s *Server) {
	f.Helper()
	path := servertest.BuildBundle(f, "sphinxqa", "sphinxqa-an4-l0", f.TempDir())
	l, err := registry.Load(path, family.LoadOptions{Lanes: 2})
	if err != nil {
		f.Fatal(err)
	}
	s.models["sphinxqa-an4-l0"] = newServedModel(path, l.Bundle, l.Model, 2, 8)
	s.order = append(s.order, "sphinxqa-an4-l0")
}

// TestChatAnswersTheLastUserMessage: system, developer and assistant turns and earlier user
// text are not part of the question; the clip may come from an earlier user turn; OpenAI's
// no-op parameters pass and the others are refused naming the parameter.
func TestChatAnswersTheLastUserMessage(t *testing.T) {
	s := newTestServer(t, map[string]task.Model{"fake-qa": fakeAnswerer{}})
	wav := base64.StdEncoding.EncodeToString(audio.EncodePCM16(make([]int16, 1600), 1, 16000))
	audioPart := `{"type":"input_audio","input_audio":{"data":"` + wav + `","format":"wav"}}`
	user := func(q string, withAudio bool) string {
		parts := `{"type":"text","text":"` + q + `"}`
		if withAudio {
			parts += "," + audioPart
		}
		return `{"role":"user","content":[` + parts + `]}`
	}
	post := func(extra, messages string) (int, map[string]any) {
		body := `{"model":"fake-qa"` + extra + `,"messages":[` + messages + `]}`
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(body)))
		var out map[string]any
		json.Unmarshal(w.Body.Bytes(), &out)
		return w.Code, out
	}
	answer := func(out map[string]any) string {
		choices, _ := out["choices"].([]any)
		if len(choices) != 1 {
			return fmt.Sprint(out)
		}
		return choices[0].(map[string]any)["message"].(map[string]any)["content"].(string)
	}
	const want = "1600 samples; you asked: which digits?"
	system := `{"role":"system","content":"You are a helpful assistant."}`
	answered := map[string]string{
		"system then user":          system + "," + user("which digits?", true),
		"developer, named user":     `{"role":"developer","content":"be brief"},{"role":"user","name":"ann","content":[{"type":"text","text":"which digits?"},` + audioPart + `]}`,
		"prior turn with the clip":  system + "," + user("how many words?", true) + `,{"role":"assistant","content":"two"},` + user("which digits?", false),
		"assistant without content": user("how many words?", true) + `,{"role":"assistant","content":null},` + user("which digits?", false),
	}
	for name, msgs := range answered {
		code, out := post("", msgs)
		if code != 200 || answer(out) != want || out["created"].(float64) <= 0 {
			t.Errorf("%s: %d %v, want 200 %q with created", name, code, out, want)
		}
	}
	noops := `,"n":1,"modalities":["text"],"user":"u-1","response_format":{"type":"text"},"logprobs":false,"temperature":0,"max_tokens":5`
	if code, out := post(noops, user("which digits?", true)); code != 200 || answer(out) != want {
		t.Errorf("no-op parameters: %d %v", code, out)
	}
	refused := map[string]struct{ extra, messages, code, param string }{
		"n 2":               {`,"n":2`, user("q", true), contract.CodeUnsupportedOption, "n"},
		"audio modality":    {`,"modalities":["text","audio"]`, user("q", true), contract.CodeUnsupportedOption, "modalities"},
		"json format":       {`,"response_format":{"type":"json_object"}`, user("q", true), contract.CodeUnsupportedOption, "response_format"},
		"logprobs":          {`,"logprobs":true`, user("q", true), contract.CodeUnsupportedOption, "logprobs"},
		"temperature":       {`,"temperature":0.7`, user("q", true), contract.CodeUnsupportedOption, "temperature"},
		"top_p":             {`,"top_p":0.5`, user("q", true), contract.CodeUnsupportedOption, "top_p"},
		"max_tokens 0":      {`,"max_tokens":0`, user("q", true), contract.CodeInvalidValue, "max_tokens"},
		"unknown":           {`,"beam":2`, user("q", true), contract.CodeUnknownField, "beam"},
		"last is assistant": {"", user("q", true) + `,{"role":"assistant","content":"two"}`, contract.CodeInvalidValue, "messages"},
		"tool turn":         {"", `{"role":"tool","content":"x"},` + user("q", true), contract.CodeUnsupportedOption, "messages"},
	}
	for name, c := range refused {
		code, out := post(c.extra, c.messages)
		e, _ := out["error"].(map[string]any)
		if code != 400 || e["code"] != c.code || e["param"] != c.param {
			t.Errorf("%s: %d %v, want 400 %s param %s", name, code, out, c.code, c.param)
		}
	}
	if _, out := post(`,"beam":2`, user("q", true)); out["error"].(map[string]any)["param"] != "beam" {
		t.Errorf("unknown field: param %v", out["error"])
	}
}
