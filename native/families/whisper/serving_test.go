package whisper_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/trtmc-qual/trtmc-qual/native/audio"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/families/whisper"
	"github.com/trtmc-qual/trtmc-qual/native/family"
	"github.com/trtmc-qual/trtmc-qual/native/family/asrgate"
	"github.com/trtmc-qual/trtmc-qual/native/family/familytest"
	"github.com/trtmc-qual/trtmc-qual/server"
)

// serve starts trtmc-server in process on a whisper-tiny-en bundle with one lane.
func serve(t *testing.T) (*httptest.Server, string, string) {
	t.Helper()
	b, _ := familytest.Build(t, whisper.Family{}, "whisper-tiny-en")
	records := filepath.Join(t.TempDir(), "records.jsonl")
	s, err := server.New(server.Config{Bundles: []string{b.Path}, Lanes: 1, QueueDepth: 4, RecordsPath: records})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Load(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return ts, records, b.Path
}

func transcribeHTTP(t *testing.T, url string, wav []byte) (int, string) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	w, _ := mw.CreateFormFile("file", "clip.wav")
	w.Write(wav)
	mw.WriteField("model", "whisper-tiny-en")
	mw.Close()
	resp, err := http.Post(url+"/v1/audio/transcriptions", mw.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

// workerPIDs finds this process's whisper worker children.
func workerPIDs(t *testing.T) []int {
	t.Helper()
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var out []int
	for _, d := range dirs {
		stat, err1 := os.ReadFile(filepath.Join(d, "stat"))
		cmdline, err2 := os.ReadFile(filepath.Join(d, "cmdline"))
		if err1 != nil || err2 != nil || !strings.Contains(string(cmdline), "worker.py") {
			continue
		}
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(os.Getpid()) {
			pid, _ := strconv.Atoi(filepath.Base(d))
			out = append(out, pid)
		}
	}
	return out
}

type record struct {
	Status    int    `json:"status"`
	ErrorCode string `json:"error_code"`
}

func readRecords(t *testing.T, path string) []record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []record
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// TestServerSurvivesAWorkerKilledMidRequest: through the real server, a worker killed during a
// request gives a coded 500 and one record; the worker is restarted and the next request is
// served with the upstream transcript. Audio over one window is refused with its code.
func TestServerSurvivesAWorkerKilledMidRequest(t *testing.T) {
	ts, records, _ := serve(t)
	set, err := dataset.ReadASR(filepath.Join(familytest.RepoRoot(), "golden/asr/sphinx-en-us/dataset.json"))
	if err != nil {
		t.Fatal(err)
	}
	clips, err := set.Materialize(familytest.RepoRoot(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var pcm []int16
	for len(pcm) < 28*16000 {
		for _, c := range clips[:5] {
			wav, _ := os.ReadFile(c.Path)
			a, _ := audio.DecodeWAV(wav)
			pcm = append(pcm, audio.ToPCM16(a.Samples)...)
		}
	}
	pids := workerPIDs(t)
	if len(pids) != 1 {
		t.Fatalf("worker processes %v, want one", pids)
	}
	go func() {
		time.Sleep(500 * time.Millisecond) // the 28 s clip takes seconds in the worker
		syscall.Kill(pids[0], syscall.SIGKILL)
	}()
	status, body := transcribeHTTP(t, ts.URL, audio.EncodePCM16(pcm[:28*16000], 1, 16000))
	if status != http.StatusInternalServerError || !strings.Contains(body, `"code":"internal_error"`) || !strings.Contains(body, "crashed mid-request") {
		t.Fatalf("killed worker: %d %s", status, body)
	}
	ref, err := asrgate.ReadUpstream(filepath.Join(familytest.RepoRoot(), "golden/asr/whisper-tiny-en/upstream-float32.json"))
	if err != nil {
		t.Fatal(err)
	}
	wav, _ := os.ReadFile(clips[5].Path)
	status, body = transcribeHTTP(t, ts.URL, wav)
	if status != http.StatusOK || !strings.Contains(body, ref.Transcripts[5].Text) {
		t.Fatalf("after the restart: %d %s, want %q", status, body, ref.Transcripts[5].Text)
	}
	if now := workerPIDs(t); len(now) != 1 || now[0] == pids[0] {
		t.Fatalf("workers after the restart %v (killed %d)", now, pids[0])
	}
	long := audio.EncodePCM16(make([]int16, 31*16000), 1, 16000)
	if status, body = transcribeHTTP(t, ts.URL, long); status != http.StatusBadRequest || !strings.Contains(body, "audio_too_long") {
		t.Fatalf("31 s clip: %d %s", status, body)
	}
	recs := readRecords(t, records)
	if len(recs) != 3 || recs[0].Status != 500 || recs[0].ErrorCode != "internal_error" || recs[1].Status != 200 || recs[2].ErrorCode != "audio_too_long" {
		t.Fatalf("records %+v, want one per request: 500 internal_error, 200, 400 audio_too_long", recs)
	}
}

// TestServerNotReadyWhenWorkersCannotStart: an interpreter without faster-whisper fails the
// load with the reason; the server never turns ready.
func TestServerNotReadyWhenWorkersCannotStart(t *testing.T) {
	b, _ := familytest.Build(t, whisper.Family{}, "whisper-tiny-en")
	s, err := server.New(server.Config{Bundles: []string{b.Path}, Lanes: 1, Host: family.Host{Python: "/usr/bin/python3"}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	if err := s.Load(); err == nil || !strings.Contains(err.Error(), "failed to start") || !strings.Contains(err.Error(), "ModuleNotFoundError") {
		t.Fatalf("load: err = %v", err)
	}
	resp, err := http.Get(ts.URL + "/health/ready")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("ready after a failed load: %d", resp.StatusCode)
	}
}
