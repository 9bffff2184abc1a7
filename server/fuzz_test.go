package server

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/native/audio"
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
	f.Add(`[1,2,3]`)
	s := fuzzServer(f)
	h := s.Handler()
	f.Fuzz(func(t *testing.T, body string) {
		req := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		checkAnswer(t, h, req)
	})
}

func fuzzServer(f *testing.F) *Server {
	s, err := New(Config{Bundles: []string{"unused"}, MaxBodyBytes: 1 << 20})
	if err != nil {
		f.Fatal(err)
	}
	s.models["noop"] = newServedModel("memory", testBundle("noop"), noopTranscriber{}, 2, 8)
	s.order = []string{"noop"}
	s.ready.Store(true)
	f.Cleanup(func() { s.Close() })
	return s
}

func checkAnswer(t *testing.T, h http.Handler, req *http.Request) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Header().Get("X-Request-ID") == "" || !strings.Contains(rec.Header().Get("Server-Timing"), "model;dur=") {
		t.Fatalf("answer %d without request id or Server-Timing", rec.Code)
	}
	if rec.Code == http.StatusOK {
		return
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
}
