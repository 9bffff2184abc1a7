package nocache

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"testing"
)

func TestRequestReplaysAIPerfPayloads(t *testing.T) {
	wav := []byte("RIFF....WAVEfmt fake clip bytes")
	form := map[string]any{"model": "sphinx-en-us", "file": map[string]any{"b64_data": base64.StdEncoding.EncodeToString(wav), "filename": "audio.wav", "content_type": "audio/wav"},
		"stream": false, "temperature": 0.5, "n": 1.0}
	req, err := Request(context.Background(), "http://x/v1/audio/transcriptions", form, "id-1")
	if err != nil {
		t.Fatal(err)
	}
	if err := req.ParseMultipartForm(1 << 20); err != nil {
		t.Fatal(err)
	}
	f, h, err := req.FormFile("file")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(f)
	if string(got) != string(wav) || h.Filename != "audio.wav" || h.Header.Get("Content-Type") != "audio/wav" {
		t.Fatalf("file part %q %q %q", got, h.Filename, h.Header.Get("Content-Type"))
	}
	// aiohttp_transport.py _build_form_data: booleans lower-cased, numbers as Python prints them
	for k, want := range map[string]string{"model": "sphinx-en-us", "stream": "false", "temperature": "0.5", "n": "1"} {
		if v := req.FormValue(k); v != want {
			t.Errorf("field %s = %q, want %q", k, v, want)
		}
	}
	if req.Header.Get("X-Request-ID") != "id-1" {
		t.Fatal("X-Request-ID not sent")
	}
	body := map[string]any{"model": "procdiff", "prompt": "a red square", "size": "64x64"}
	req, err = Request(context.Background(), "http://x/v1/images/generations", body, "id-2")
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if raw, _ := io.ReadAll(req.Body); json.Unmarshal(raw, &back) != nil || back["prompt"] != "a red square" || req.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("JSON body %v (%s)", back, req.Header.Get("Content-Type"))
	}
}
