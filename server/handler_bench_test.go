package server

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkTranscribeHandler is the per-request path of trtmc-server without the network: the
// handler serves the 1 s multipart upload of BenchmarkPeerOverhead to the no-op Task, writing
// its record to a real JSONL file. It prints ns/op and allocs/op, the server's own cost per
// request, so that a change to the request path shows up in figures before and after.
func BenchmarkTranscribeHandler(b *testing.B) {
	s, err := New(Config{Bundles: []string{"unused"}, Lanes: 16, QueueDepth: 1024, RecordsPath: b.TempDir() + "/records.jsonl"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	s.models["noop"] = newServedModel("memory", testBundle("noop"), noopTranscriber{}, 16, 1024)
	s.order = []string{"noop"}
	s.ready.Store(true)
	h := s.Handler()
	payload, contentType := oneSecondUpload()
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest(http.MethodPost, "/v1/audio/transcriptions", bytes.NewReader(payload))
		r.Header.Set("Content-Type", contentType)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
	}
}
