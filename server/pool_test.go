package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/native/audio"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// hashTranscriber is a test double that answers with the hash of the samples it was given,
// read twice during the call, 2 ms apart: what the Task saw, to compare with what the server
// recorded, and whether the samples changed under it (a buffer given back too early).
type hashTranscriber struct{ noopTranscriber }

func (h hashTranscriber) Task(name task.Name) (any, error) {
	if name == task.SpeechTranscription {
		return h, nil
	}
	return nil, &task.UnsupportedCapabilityError{Model: "hash", Task: name}
}

func (hashTranscriber) Transcribe(_ context.Context, a task.Audio, _ task.TranscribeConfig) (task.Transcript, error) {
	first := a.SHA256()
	time.Sleep(2 * time.Millisecond)
	if again := a.SHA256(); again != first {
		return task.Transcript{Text: "samples changed during the call: " + first + " then " + again}, nil
	}
	return task.Transcript{Text: first}, nil
}

// Uploads and samples reuse buffers across requests: clips of different lengths and formats,
// sent concurrently and in turn, each reach the Task intact and are recorded with their own
// input_sha256, the one DecodeWAV + Audio.SHA256 give (the 1 s silence's pinned value too).
func TestPooledBuffersKeepEveryClipItsOwn(t *testing.T) {
	dir := t.TempDir()
	s, err := New(Config{Bundles: []string{"unused"}, Lanes: 4, QueueDepth: 1024, RecordsPath: dir + "/records.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	s.models["hash"] = newServedModel("memory", testBundle("hash"), hashTranscriber{}, 4, 1024)
	s.order = []string{"hash"}
	s.ready.Store(true)
	clips := [][]byte{audio.EncodePCM16(make([]int16, 16000), 1, 16000)}
	for _, n := range []int{16000, 3000, 40000, 16001} {
		pcm := make([]int16, n)
		for i := range pcm {
			pcm[i] = int16(i*(n%97+1) - n)
		}
		clips = append(clips, audio.EncodePCM16(pcm, 1, 16000))
	}
	want := make([]string, len(clips))
	for i, c := range clips {
		a, err := audio.DecodeWAV(c)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = a.SHA256()
	}
	if want[0] != "f9ab8a4037bce53d5a919726a948886404a1be7d88ac74fb9882c355bfc8fd45" {
		t.Fatalf("1 s of silence hashes %s", want[0])
	}
	h := s.Handler()
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 40 {
				c := (w + i) % len(clips)
				id := fmt.Sprintf("pool-%d-%d", w, i)
				rec := post(t, h, id, clips[c])
				var body struct{ Text string }
				if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &body) != nil || body.Text != want[c] {
					t.Errorf("%s (clip %d): %d %s, want the Task to see %s", id, c, rec.Code, rec.Body, want[c])
				}
			}
		})
	}
	wg.Wait()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(dir + "/records.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	for sc := bufio.NewScanner(f); sc.Scan(); n++ {
		var r contract.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		var w, i int
		fmt.Sscanf(r.RequestID, "pool-%d-%d", &w, &i)
		if c := (w + i) % len(clips); r.InputSHA256 != want[c] || r.Output == nil || r.Output.Text != want[c] {
			t.Errorf("record %s: input_sha256 %s, output %+v, want %s", r.RequestID, r.InputSHA256, r.Output, want[c])
		}
	}
	if n != 8*40 {
		t.Errorf("%d records for %d requests", n, 8*40)
	}
}

func post(t *testing.T, h http.Handler, id string, wav []byte) *httptest.ResponseRecorder {
	payload, contentType := clipUpload(wav, "hash")
	r := httptest.NewRequest(http.MethodPost, "/v1/audio/transcriptions", bytes.NewReader(payload))
	r.Header.Set("Content-Type", contentType)
	r.Header.Set("X-Request-ID", id)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// panickyTranscriber panics inside its Task call, as a family bug would.
type panickyTranscriber struct{ noopTranscriber }

func (p panickyTranscriber) Task(name task.Name) (any, error) {
	if name == task.SpeechTranscription {
		return p, nil
	}
	return p.noopTranscriber.Task(name)
}

func (panickyTranscriber) Transcribe(context.Context, task.Audio, task.TranscribeConfig) (task.Transcript, error) {
	panic("family bug")
}

// A Task that panics is 500 internal_error with one record, and gives its only lane back: the
// next request on that model is answered (with the Task on the handler's goroutine, a panic
// would otherwise unwind past the lane's release and the record).
func TestPanickingTaskIs500AndGivesItsLaneBack(t *testing.T) {
	records := t.TempDir() + "/records.jsonl"
	s, err := New(Config{Bundles: []string{"unused"}, Lanes: 1, QueueDepth: 0, RecordsPath: records,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	s.models["panicky"] = newServedModel("memory", testBundle("panicky"), panickyTranscriber{}, 1, 0)
	s.order = []string{"panicky"}
	s.ready.Store(true)
	h := s.Handler()
	payload, contentType := clipUpload(audio.EncodePCM16(make([]int16, 16000), 1, 16000), "panicky")
	for i := range 2 { // with the lane leaked, the second would be 429 server_busy
		r := httptest.NewRequest(http.MethodPost, "/v1/audio/transcriptions", bytes.NewReader(payload))
		r.Header.Set("Content-Type", contentType)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusInternalServerError || !strings.Contains(w.Body.String(), contract.CodeInternal) {
			t.Fatalf("request %d: %d %s", i, w.Code, w.Body)
		}
	}
	if err := s.Close(); err != nil { // no Task call or handler left behind
		t.Fatal(err)
	}
	data, err := os.ReadFile(records)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(string(data), "\n"); lines != 2 || strings.Count(string(data), `"error_code":"internal_error"`) != 2 {
		t.Fatalf("records: %s", data)
	}
}
