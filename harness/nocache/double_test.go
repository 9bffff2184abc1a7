package nocache

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
	"github.com/trtmc-qual/trtmc-qual/native/audio"
)

// transcriptionDouble is a TEST DOUBLE of the reference server's /v1/audio/transcriptions, as
// strict as the server on what this check relies on (server @52e2b96): a multipart "file" and
// "model" are required and the file must decode as a WAV, its decoded clip's sha256 is the
// record's input_sha256 (server/transcriptions.go); an X-Request-ID must match TRTMC's pattern
// and a reused one is refused (server/requestid.go); every request writes one record with its
// trtmc_timing, and the answer carries the same (server/records.go). Its Task "costs" a figure
// derived from the clip (800–815 ms), reported, not slept: the test asserts the verdict, never
// wall-clock time. With caching set it is the server this check exists to catch: a repeated
// clip is answered from a cache in microseconds without calling the Task.
type transcriptionDouble struct {
	caching bool
	mu      sync.Mutex
	seenIDs map[string]bool
	cache   map[string]string
	records []contract.Record
}

var requestIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$`)

func newDouble(caching bool) *transcriptionDouble {
	return &transcriptionDouble{caching: caching, seenIDs: map[string]bool{}, cache: map[string]string{}}
}

func (d *transcriptionDouble) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	defer d.mu.Unlock()
	id := r.Header.Get("X-Request-ID")
	// Refusals are recorded too, as the real server records every answer (server/README.md).
	refuse := func(code string) {
		d.records = append(d.records, contract.Record{RequestID: id, Method: r.Method, Route: r.URL.Path, Status: http.StatusBadRequest})
		http.Error(w, `{"error":{"code":"`+code+`"}}`, http.StatusBadRequest)
	}
	// As the real server (server/requestid.go): its pattern, no id seen before, none with the
	// server's own "srv-" prefix, and one X-Request-ID header.
	if !requestIDPattern.MatchString(id) || d.seenIDs[id] || strings.HasPrefix(id, "srv-") || len(r.Header.Values("X-Request-ID")) != 1 {
		refuse("invalid_request_id")
		return
	}
	d.seenIDs[id] = true
	f, _, err := r.FormFile("file")
	if err != nil || r.FormValue("model") == "" {
		refuse("invalid_request")
		return
	}
	wav, _ := io.ReadAll(f)
	clip, err := audio.DecodeWAV(wav)
	if err != nil {
		refuse("invalid_audio")
		return
	}
	sha := clip.SHA256()
	text, hit := d.cache[sha]
	timing := contract.Timing{ModelCallMS: 800 + float64(sha[1]%16)}
	if hit && d.caching {
		timing.ModelCallMS = 0.02 // the cache lookup, not the Task
	} else {
		text = "one two three" // every variant of the clip transcribes alike
		d.cache[sha] = text
	}
	timing.HandlerMS = timing.ModelCallMS + 0.5
	d.records = append(d.records, contract.Record{RequestID: id, Method: r.Method, Route: r.URL.Path, InputSHA256: sha, Status: 200,
		Output: &contract.RecordOutput{Text: text}, Timing: timing})
	w.Header().Set("X-Request-ID", id)
	json.NewEncoder(w).Encode(map[string]any{"text": text, "trtmc_timing": timing})
}

// runCheck is the check as a qualification runs it: the run's request of the clip first, then
// k repeats of its payload interleaved with k fresh variants (the ASR workload's), joined to
// the records and judged.
func runCheck(t *testing.T, d *transcriptionDouble) *evidence.NoCache {
	t.Helper()
	srv := httptest.NewServer(d)
	defer srv.Close()
	url := srv.URL + "/v1/audio/transcriptions"
	pcm := make([]int16, 1600)
	for i := range pcm {
		pcm[i] = int16(i * 7)
	}
	payload := map[string]any{"model": "sphinx-en-us", "file": map[string]any{"b64_data": base64.StdEncoding.EncodeToString(audio.EncodePCM16(pcm, 1, 16000)),
		"filename": "audio.wav", "content_type": "audio/wav"}}
	first := Send(context.Background(), srv.Client(), url, []Planned{{RequestID: "aiperf-1", Payload: payload}}, 1)
	if first[0].Err != nil || first[0].Status != 200 {
		t.Fatalf("first request: %v HTTP %d %s", first[0].Err, first[0].Status, first[0].Body)
	}
	w, _ := workload.Get("asr")
	fv := w
	n := &evidence.NoCache{Input: "clip-one", FirstRequestID: "aiperf-1", Output: "one two three", Concurrency: 2}
	n.K = K(n.Concurrency)
	plan, err := Plan(payload, func(i int) (map[string]any, error) { return fv.FreshVariant(payload, i) }, "nocache-sphinx", n.K)
	if err != nil {
		t.Fatal(err)
	}
	answers := Send(context.Background(), srv.Client(), url, plan, n.Concurrency)
	output := func(a Answer, rec contract.Record) (string, error) {
		var body struct{ Text string }
		if err := json.Unmarshal(a.Body, &body); err != nil || body.Text != rec.Output.Text {
			return "", fmt.Errorf("answer %s vs record %q (%v)", a.Body, rec.Output.Text, err)
		}
		return body.Text, nil
	}
	lines, err := Collect(n, answers, d.records, output)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(lines), "\n") != 2*n.K || len(n.Repeats) != n.K || len(n.Fresh) != n.K {
		t.Fatalf("kept %d records, %d repeats and %d fresh, want %d each", strings.Count(string(lines), "\n"), len(n.Repeats), len(n.Fresh), n.K)
	}
	Judge(n)
	return n
}

func TestHonestServerDoublePasses(t *testing.T) {
	n := runCheck(t, newDouble(false))
	if !n.Passed {
		t.Fatalf("an honest server failed: %v", n.Failures)
	}
}

func TestCachingServerDoubleFails(t *testing.T) {
	n := runCheck(t, newDouble(true))
	if n.Passed || !strings.Contains(strings.Join(n.Failures, "; "), Failure) || n.RepeatMedianMS > 1 || n.FreshMedianMS < 800 {
		t.Fatalf("a caching server: passed %v, repeats %.3f ms against fresh %.3f ms, failures %v", n.Passed, n.RepeatMedianMS, n.FreshMedianMS, n.Failures)
	}
}

func TestCollectNamesAMissingRecord(t *testing.T) {
	_, err := Collect(&evidence.NoCache{}, []Answer{{Planned: Planned{RequestID: "a", Repeat: true}, Status: 200}}, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "no server record") {
		t.Fatalf("err %v", err)
	}
}

// A server that writes two records for one answer fails the check, and both records are kept
// for verify to see.
func TestCollectRefusesTwoRecordsForOneAnswer(t *testing.T) {
	rec := contract.Record{RequestID: "a", Status: 200}
	lines, err := Collect(&evidence.NoCache{}, []Answer{{Planned: Planned{RequestID: "a", Repeat: true}, Status: 200}}, []contract.Record{rec, rec}, nil)
	if err == nil || !strings.Contains(err.Error(), "2 server records") {
		t.Fatalf("err %v", err)
	}
	if got := strings.Count(string(lines), "\n"); got != 2 {
		t.Fatalf("kept %d record lines, want both", got)
	}
}

func TestPlanPairsRepeatsAndFreshVariantsInAlternatingOrder(t *testing.T) {
	x := map[string]any{"seed": 1.0}
	plan, err := Plan(x, func(i int) (map[string]any, error) { return map[string]any{"seed": 2.0 + float64(i)}, nil }, "p", 3)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range plan {
		got = append(got, fmt.Sprintf("%s:%v:%v", p.RequestID, p.Repeat, p.Payload["seed"]))
	}
	if want := "p-r1:true:1 p-f1:false:2 p-f2:false:3 p-r2:true:1 p-r3:true:1 p-f3:false:4"; strings.Join(got, " ") != want {
		t.Fatalf("plan %v, want %s", got, want)
	}
}
