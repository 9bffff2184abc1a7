package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/trtmc-qual/trtmc-qual/native/audio"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// noopTranscriber answers at once: what remains of a request's time is the server's own.
type noopTranscriber struct{}

func (noopTranscriber) Tasks() []task.Info { return []task.Info{{Name: task.SpeechTranscription}} }
func (n noopTranscriber) Task(name task.Name) (any, error) {
	if name == task.SpeechTranscription {
		return n, nil
	}
	return nil, &task.UnsupportedCapabilityError{Model: "noop", Task: name}
}
func (noopTranscriber) Close() error { return nil }
func (noopTranscriber) AudioSpec() task.AudioSpec {
	return task.AudioSpec{SampleRate: 16000, Channels: 1, MaxSeconds: 30}
}
func (noopTranscriber) Transcribe(context.Context, task.Audio, task.TranscribeConfig) (task.Transcript, error) {
	return task.Transcript{Text: "ok"}, nil
}

// BenchmarkServerOverhead measures the server's own cost on a 1 s clip upload over loopback:
// handler_ms − model_call_ms (goal p50 <= 0.3 ms, p95 <= 1 ms) and client latency −
// model_call_ms, at concurrency 1 and 16.
func BenchmarkServerOverhead(b *testing.B) {
	s, err := New(Config{Bundles: []string{"unused"}, Lanes: 16, QueueDepth: 1024, RecordsPath: b.TempDir() + "/records.jsonl"})
	if err != nil {
		b.Fatal(err)
	}
	s.models["noop"] = newServedModel("memory", testBundle("noop"), noopTranscriber{}, 16, 1024)
	s.order = []string{"noop"}
	s.ready.Store(true)
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	defer s.Close()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	w, _ := mw.CreateFormFile("file", "clip.wav")
	w.Write(audio.EncodePCM16(make([]int16, 16000), 1, 16000))
	mw.WriteField("model", "noop")
	mw.Close()
	payload, contentType := body.Bytes(), mw.FormDataContentType()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	for _, conc := range []int{1, 16} {
		b.Run(fmt.Sprintf("concurrency=%d", conc), func(b *testing.B) {
			var mu sync.Mutex
			var handler, clientOver []float64
			b.ResetTimer()
			for b.Loop() {
				var wg sync.WaitGroup
				for range conc {
					wg.Go(func() {
						start := time.Now()
						resp, err := client.Post(ts.URL+"/v1/audio/transcriptions", contentType, bytes.NewReader(payload))
						if err != nil {
							b.Error(err)
							return
						}
						data, _ := io.ReadAll(resp.Body)
						resp.Body.Close()
						lat := float64(time.Since(start).Nanoseconds()) / 1e6
						var r struct {
							Timing Timing `json:"trtmc_timing"`
						}
						json.Unmarshal(data, &r)
						mu.Lock()
						handler = append(handler, r.Timing.HandlerMS-r.Timing.ModelCallMS)
						clientOver = append(clientOver, lat-r.Timing.ModelCallMS)
						mu.Unlock()
					})
				}
				wg.Wait()
			}
			b.ReportMetric(pct(handler, 50), "handler-overhead-p50-ms")
			b.ReportMetric(pct(handler, 95), "handler-overhead-p95-ms")
			b.ReportMetric(pct(clientOver, 50), "client-overhead-p50-ms")
			b.ReportMetric(pct(clientOver, 95), "client-overhead-p95-ms")
		})
	}
}

func pct(v []float64, p float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	return s[int(p/100*float64(len(s)-1))]
}
