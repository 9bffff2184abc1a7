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
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/native/audio"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
	"github.com/trtmc-qual/trtmc-qual/native/registry"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// clipUpload is the multipart body of a transcription request: the WAV as its file field and
// the model, with its content type.
func clipUpload(wav []byte, model string) (payload []byte, contentType string) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "clip.wav") // writes to a bytes.Buffer cannot fail
	fw.Write(wav)
	mw.WriteField("model", model)
	mw.Close()
	return body.Bytes(), mw.FormDataContentType()
}

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
	payload, contentType := clipUpload(audio.EncodePCM16(make([]int16, 16000), 1, 16000), "noop")
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
							Timing contract.Timing `json:"trtmc_timing"`
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

// BenchmarkServerSphinxThroughput serves the real sphinx-en-us bundle over loopback HTTP and
// reports audio-seconds per second for the pinned clips at concurrency 1 and 2.
func BenchmarkServerSphinxThroughput(b *testing.B) {
	m, err := manifest.Read(filepath.Join(repoRoot(), "native", "families", "sphinx", "manifests", "sphinx-en-us.json"))
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "en-us.bundle")
	if _, err := registry.Build(m, path); err != nil {
		b.Fatal(err)
	}
	s, err := New(Config{Bundles: []string{path}, Lanes: 2, QueueDepth: 16})
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Load(); err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	set, err := dataset.ReadASR(filepath.Join(repoRoot(), m.Testcases[0].Dataset))
	if err != nil {
		b.Fatal(err)
	}
	clips, err := set.Materialize(repoRoot(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	type upload struct {
		body        []byte
		contentType string
	}
	var uploads []upload
	audioSeconds := 0.0
	for _, c := range clips {
		wav, _ := os.ReadFile(c.Path)
		payload, contentType := clipUpload(wav, "sphinx-en-us")
		uploads = append(uploads, upload{payload, contentType})
		audioSeconds += c.Duration
	}
	for _, conc := range []int{1, 2} {
		b.Run(fmt.Sprintf("concurrency=%d", conc), func(b *testing.B) {
			for b.Loop() {
				var wg sync.WaitGroup
				for range conc {
					wg.Go(func() {
						for _, u := range uploads {
							resp, err := http.Post(ts.URL+"/v1/audio/transcriptions", u.contentType, bytes.NewReader(u.body))
							if err != nil || resp.StatusCode != 200 {
								b.Errorf("status %v err %v", resp, err)
								return
							}
							io.Copy(io.Discard, resp.Body)
							resp.Body.Close()
						}
					})
				}
				wg.Wait()
			}
			b.ReportMetric(float64(conc)*audioSeconds*float64(b.N)/b.Elapsed().Seconds(), "audio-s/s")
		})
	}
}

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..")
}
