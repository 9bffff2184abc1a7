package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/native/audio"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// FuzzTranscriptionMultipart sends arbitrary multipart bodies to the transcription route of a
// server with a no-op model: every answer is 200 or a JSON error with a stable code and the
// request id, and exactly one record per request is written.
func FuzzTranscriptionMultipart(f *testing.F) {
	var good bytes.Buffer
	mw := multipart.NewWriter(&good)
	mw.SetBoundary("qualboundary")
	w, _ := mw.CreateFormFile("file", "a.wav")
	w.Write(audio.EncodePCM16(make([]int16, 160), 1, 16000))
	mw.WriteField("model", "noop")
	mw.Close()
	f.Add(good.Bytes())
	f.Add([]byte("--qualboundary\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nnoop\r\n--qualboundary--\r\n"))
	f.Add([]byte("--qualboundary\r\nContent-Disposition: form-data; name=\"file\"; filename=\"x\"\r\n\r\nRIFF\r\n--qual"))
	f.Add([]byte{})
	s := fuzzServer(f)
	h := s.Handler()
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest(http.MethodPost, "/v1/audio/transcriptions", bytes.NewReader(body))
		req.Header.Set("Content-Type", "multipart/form-data; boundary=qualboundary")
		checkAnswer(t, h, req)
	})
}

// FuzzChatContent sends arbitrary JSON bodies to the chat route.
func FuzzChatContent(f *testing.F) {
	f.Add(`{"model":"noop","messages":[{"role":"user","content":"hi"}]}`)
	f.Add(`{"model":"noop","messages":[{"role":"user","content":[{"type":"text","text":"q"},{"type":"input_audio","input_audio":{"data":"UklGRg==","format":"wav"}}]}]}`)
	f.Add(`{"model":"noop","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"x"}}]}],"stream":true}`)
	f.Add(`{"model":"noop","messages":null}`)
	// Audio-QA shapes: two audio parts, no text part, empty question, wrong format, bad base64.
	f.Add(`{"model":"noop","messages":[{"role":"user","content":[{"type":"text","text":"q"},{"type":"input_audio","input_audio":{"data":"UklGRg==","format":"wav"}},{"type":"input_audio","input_audio":{"data":"UklGRg==","format":"wav"}}]}]}`)
	f.Add(`{"model":"noop","messages":[{"role":"user","content":[{"type":"input_audio","input_audio":{"data":"UklGRg==","format":"wav"}}]}]}`)
	f.Add(`{"model":"noop","messages":[{"role":"user","content":[{"type":"text","text":"  "},{"type":"input_audio","input_audio":{"data":"UklGRg==","format":"wav"}}]}]}`)
	f.Add(`{"model":"noop","messages":[{"role":"user","content":[{"type":"text","text":"How many words are spoken?"},{"type":"input_audio","input_audio":{"data":"@@","format":"mp3"}}]}]}`)
	f.Add(`{"model":"noop","messages":[{"role":"user","content":[{"type":"text","text":"Which digits are spoken?"},{"type":"input_audio","input_audio":{"data":"UklGRg==","format":"wav"}}]},{"role":"user","content":"What is the last word?"}]}`)
	f.Add(`[1,2,3]`)
	silence := base64.StdEncoding.EncodeToString(audio.EncodePCM16(make([]int16, 1600), 1, 16000))
	f.Add(`{"model":"sphinxqa-an4-l0","messages":[{"role":"user","content":[{"type":"text","text":"How many words are spoken?"},{"type":"input_audio","input_audio":{"data":"` + silence + `","format":"wav"}}]}]}`)
	f.Add(`{"model":"sphinxqa-an4-l0","messages":[{"role":"user","content":[{"type":"text","text":"Why?"},{"type":"input_audio","input_audio":{"data":"` + silence + `","format":"wav"}}]}]}`)
	s := fuzzServer(f)
	addCascadeModel(f, s)
	h := s.Handler()
	f.Fuzz(func(t *testing.T, body string) {
		req := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		checkAnswer(t, h, req)
	})
}

// flatImager is a test double of the text_to_image Task: a flat grey image of the requested
// size, after the same validation a family does. Its images are never reported as results.
type flatImager struct{}

func (flatImager) Tasks() []task.Info { return []task.Info{{Name: task.TextToImage}} }
func (g flatImager) Task(name task.Name) (any, error) {
	if name == task.TextToImage {
		return g, nil
	}
	return nil, &task.UnsupportedCapabilityError{Model: "flat", Task: name}
}
func (flatImager) Close() error { return nil }
func (flatImager) ImageSpec() task.ImageSpec {
	return task.ImageSpec{Sizes: [][2]int{{8, 8}}, MinSteps: 1, MaxSteps: 4, MaxGuidance: 10, MaxCount: 2, DefaultSteps: 1, DefaultGuide: 1}
}
func (g flatImager) GenerateImage(_ context.Context, req task.ImageRequest) ([]*image.NRGBA, error) {
	spec := g.ImageSpec()
	if req.Width != 8 || req.Height != 8 || req.Steps < spec.MinSteps || req.Steps > spec.MaxSteps ||
		req.Count < 1 || req.Count > spec.MaxCount || !(req.Guidance >= 0 && req.Guidance <= spec.MaxGuidance) {
		return nil, task.Invalid("unsupported_setting", "flat double: %dx%d steps %d n %d guidance %v", req.Width, req.Height, req.Steps, req.Count, req.Guidance)
	}
	out := make([]*image.NRGBA, req.Count)
	for i := range out {
		out[i] = image.NewNRGBA(image.Rect(0, 0, 8, 8))
	}
	return out, nil
}

// FuzzJSONBodies sends arbitrary JSON bodies to the images and chat routes (the first byte of
// the input picks the route): every answer is 200 or a JSON error with a stable code, never a
// 5xx; a body holding a key that is not lowercase-exact is never accepted; and a record is
// written for every request.
func FuzzJSONBodies(f *testing.F) {
	for _, seed := range []string{
		`i{"model":"flat","prompt":"a kite","size":"8x8","n":2,"seed":3,"num_inference_steps":2,"guidance_scale":1.5}`,
		`i{"model":"flat","prompt":"a kite","response_format":"url"}`,
		`i{"model":"flat","prompt":"x","Prompt":"y"}`,
		`i{"model":"flat","prompt":"x","size":"+8x08"}`,
		`i{"model":"flat","prompt":"x","seed":1e400}`,
		`i{"model":"flat","prompt":"x","ſeed":1}`,
		`i[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[`,
		`c{"model":"flat","messages":[{"role":"user","content":"hi"}]}`,
		`c{"model":"noop","messages":[{"role":"user","content":[{"type":"text","text":"q"},{"type":"input_audio","input_audio":{"data":"UklGRg==","format":"wav"}}]}]}`,
		`c{"model":"noop","messages":[{"role":"user","Content":"hi"}]}`,
		`c{"model":"noop","messages":[{"role":"user","content":"a","content":"b"}]}`,
	} {
		f.Add(seed)
	}
	s := fuzzServer(f)
	h := s.Handler()
	f.Fuzz(func(t *testing.T, in string) {
		if in == "" {
			return
		}
		path, body := "/v1/images/generations", in[1:]
		if in[0] == 'c' {
			path = "/v1/chat/completions"
		}
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		before := s.records.count()
		code := checkAnswer(t, h, req)
		if after := s.records.count(); after != before+1 {
			t.Fatalf("%d records written for one request", after-before)
		}
		if code == http.StatusOK && hasNonCanonicalKey(body) {
			t.Fatalf("accepted a body with a key that is not lowercase-exact: %.200q", body)
		}
	})
}

// hasNonCanonicalKey says a body that parses as JSON holds an object key with a capital or a
// rune that folds onto an ASCII letter (an independent check of the pre-pass, by full decode).
func hasNonCanonicalKey(body string) bool {
	var v any
	if json.Unmarshal([]byte(body), &v) != nil {
		return false
	}
	var walk func(any) bool
	walk = func(v any) bool {
		switch t := v.(type) {
		case map[string]any:
			for k, e := range t {
				if isCaseVariant(k) || walk(e) {
					return true
				}
			}
		case []any:
			for _, e := range t {
				if walk(e) {
					return true
				}
			}
		}
		return false
	}
	return walk(v)
}

func fuzzServer(f *testing.F) *Server {
	s, err := New(Config{Bundles: []string{"unused"}, MaxBodyBytes: 1 << 20, RecordsPath: os.DevNull}) // records counted, not kept
	if err != nil {
		f.Fatal(err)
	}
	s.models["noop"] = newServedModel("memory", testBundle("noop"), noopTranscriber{}, 2, 8)
	s.models["flat"] = newServedModel("memory", testBundle("flat"), flatImager{}, 2, 8)
	s.order = []string{"flat", "noop"}
	s.ready.Store(true)
	f.Cleanup(func() { s.Close() })
	return s
}

// checkAnswer serves req and checks the answer's shape; it returns the status.
func checkAnswer(t *testing.T, h http.Handler, req *http.Request) int {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Header().Get("X-Request-ID") == "" || !strings.Contains(rec.Header().Get("Server-Timing"), "model;dur=") {
		t.Fatalf("answer %d without request id or Server-Timing", rec.Code)
	}
	if rec.Code == http.StatusOK {
		return rec.Code
	}
	var e struct {
		Error struct{ Code, Message, Type string } `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error.Code == "" || e.Error.Message == "" {
		t.Fatalf("status %d body %q is not a JSON error with a stable code", rec.Code, rec.Body.String())
	}
	if rec.Code >= 500 {
		t.Fatalf("server error %d: %s", rec.Code, rec.Body.String())
	}
	return rec.Code
}
