package server_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/native/audio"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/server"
	st "github.com/trtmc-qual/trtmc-qual/server/servertest"
)

// fixture is built once: the real binaries and reference bundles.
type fixture struct {
	server, native string
	an4, tidigits  string
	enUS           string
}

func setup(t *testing.T) *fixture {
	t.Helper()
	dir := sharedDir(t)
	f := &fixture{
		server:   serverBinary(dir),
		native:   filepath.Join(dir, "trtmc-native"),
		an4:      filepath.Join(dir, "sphinx-an4-l0.bundle"),
		tidigits: filepath.Join(dir, "sphinx-tidigits.bundle"),
		enUS:     filepath.Join(dir, "sphinx-en-us.bundle"),
	}
	return f
}

// serverBinary is the binary under test: the one TestMain built, or $SERVERTEST_SERVER_BIN
// (an older build, to observe what a regression test sees on the code before a fix).
func serverBinary(dir string) string {
	if bin := os.Getenv("SERVERTEST_SERVER_BIN"); bin != "" {
		return bin
	}
	return filepath.Join(dir, "trtmc-server")
}

// sharedDir is filled by TestMain.
func sharedDir(t testing.TB) string {
	dir := os.Getenv("SERVERTEST_DIR")
	if dir == "" {
		t.Fatal("TestMain did not prepare the fixture")
	}
	return dir
}

func TestMain(m *testing.M) {
	if addr := os.Getenv(server.PeerServeEnv); addr != "" {
		fmt.Fprintln(os.Stderr, server.ServeNoopForBench(addr))
		os.Exit(1)
	}
	dir, err := os.MkdirTemp("", "servertest-")
	if err != nil {
		panic(err)
	}
	os.Setenv("SERVERTEST_DIR", dir)
	tb := &mainTB{}
	st.BuildBinary(tb, "server/cmd/trtmc-server", dir)
	st.BuildBinary(tb, "native/cmd/trtmc-native", dir)
	for _, p := range []string{"sphinx-an4-l0", "sphinx-tidigits", "sphinx-en-us"} {
		st.BuildBundle(tb, "sphinx", p, dir)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func cardsClip(t *testing.T, n string) []byte {
	t.Helper()
	data, err := os.ReadFile("/usr/share/pocketsphinx/test/data/cards/" + n + ".wav")
	if err != nil {
		t.Fatalf("pocketsphinx-testdata missing (run `make deps`): %v", err)
	}
	return data
}

func longClip(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile("/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0870.wav")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func transcription(t *testing.T, url, model string, clip []byte, extra ...st.Field) *http.Request {
	t.Helper()
	fields := append([]st.Field{{Name: "file", File: clip}, {Name: "model", Value: model}}, extra...)
	return st.Multipart(t, url+"/v1/audio/transcriptions", fields...)
}

func TestRoutesAnswerWithTheServingContract(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.an4, f.tidigits})
	req := transcription(t, p.URL, "sphinx-an4-l0", cardsClip(t, "004"))
	req.Header.Set("X-Request-ID", "route-test-1")
	r := st.Do(t, req)
	if r.Status != 200 || r.JSON["text"] != "five five" || r.Header.Get("X-Request-ID") != "route-test-1" {
		t.Fatalf("transcription: %d %s %v", r.Status, r.Body, r.Header)
	}
	timing := r.JSON["trtmc_timing"].(map[string]any)
	if timing["model_call_ms"].(float64) <= 0 || timing["handler_ms"].(float64) < timing["model_call_ms"].(float64) {
		t.Errorf("timing %v: want 0 < model_call_ms <= handler_ms", timing)
	}
	if st := r.Header.Get("Server-Timing"); !strings.HasPrefix(st, fmt.Sprintf("model;dur=%.3f", timing["model_call_ms"])) {
		t.Errorf("Server-Timing %q does not carry model_call_ms %v", st, timing["model_call_ms"])
	}
	text := st.Do(t, transcription(t, p.URL, "sphinx-an4-l0", cardsClip(t, "004"), st.Field{Name: "response_format", Value: "text"}))
	if text.Status != 200 || string(text.Body) != "five five" || !strings.Contains(text.Header.Get("Server-Timing"), "model;dur=") {
		t.Errorf("text format: %d %q", text.Status, text.Body)
	}
	verbose := st.Do(t, transcription(t, p.URL, "sphinx-an4-l0", cardsClip(t, "004"), st.Field{Name: "response_format", Value: "verbose_json"}))
	if verbose.Status != 200 || verbose.JSON["language"] != "en" || verbose.JSON["duration"].(float64) < 1.5 {
		t.Errorf("verbose_json: %d %s", verbose.Status, verbose.Body)
	}
	models := st.Do(t, get(t, p.URL+"/v1/models"))
	if data := models.JSON["data"].([]any); len(data) != 2 {
		t.Errorf("models: %s", models.Body)
	}
	for _, path := range []string{"/health/live", "/health/ready", "/metrics"} {
		if r := st.Do(t, get(t, p.URL+path)); r.Status != 200 || r.Header.Get("X-Request-ID") == "" {
			t.Errorf("%s: %d", path, r.Status)
		}
	}
	st.Do(t, transcription(t, p.URL, "no-such-model", cardsClip(t, "004"))) // one error for trtmc_errors_total
	metrics := st.Do(t, get(t, p.URL+"/metrics"))
	for _, series := range []string{"trtmc_requests_total", "trtmc_task_call_seconds_bucket", "trtmc_queue_depth", "trtmc_errors_total"} {
		if !strings.Contains(string(metrics.Body), series) {
			t.Errorf("/metrics lacks %s", series)
		}
	}
}

func get(t *testing.T, url string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func TestServingInfoSHA256EqualsNativeInspect(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.an4})
	var info contract.ServingInfo
	if err := json.Unmarshal(st.Do(t, get(t, p.URL+"/v1/serving/info")).Body, &info); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(f.native, "inspect", f.an4).Output()
	if err != nil {
		t.Fatal(err)
	}
	var ins struct {
		SHA256 string `json:"sha256"`
	}
	json.Unmarshal(out, &ins)
	if len(info.Models) != 1 || info.Models[0].BundleSHA256 != ins.SHA256 || len(ins.SHA256) != 64 {
		t.Fatalf("serving info %+v, inspect sha %s", info.Models, ins.SHA256)
	}
	if info.Models[0].Profile != "sphinx-an4-l0" || info.Models[0].Tasks[0].Name != "speech_transcription" || len(info.Models[0].Tasks[0].Controls) == 0 {
		t.Errorf("serving info model: %+v", info.Models[0])
	}
}

// errorCase is one bad request with its documented status and stable code.
type errorCase struct {
	name   string
	req    func(t *testing.T, url string) *http.Request
	status int
	code   string
}

func errorCases(t *testing.T) []errorCase {
	clip := cardsClip(t, "004")
	stereo := audio.EncodePCM16(make([]int16, 3200), 2, 16000)
	mp := func(fields ...st.Field) func(*testing.T, string) *http.Request {
		return func(t *testing.T, url string) *http.Request {
			return st.Multipart(t, url+"/v1/audio/transcriptions", fields...)
		}
	}
	js := func(path, body string) func(*testing.T, string) *http.Request {
		return func(t *testing.T, url string) *http.Request { return st.JSONPost(t, url+path, body) }
	}
	file, model := st.Field{Name: "file", File: clip}, st.Field{Name: "model", Value: "sphinx-an4-l0"}
	b64 := base64.StdEncoding.EncodeToString(clip)
	wavWith := func(edit func([]byte) []byte) st.Field {
		return st.Field{Name: "file", File: edit(append([]byte(nil), clip...))}
	}
	setU16 := func(off int, v uint16) func([]byte) []byte {
		return func(b []byte) []byte { b[off], b[off+1] = byte(v), byte(v>>8); return b }
	}
	long := audio.EncodePCM16(make([]int16, 31*16000), 1, 16000)
	img := func(body string) func(*testing.T, string) *http.Request { return js("/v1/images/generations", body) }
	return append([]errorCase{
		{"truncated wav", mp(wavWith(func(b []byte) []byte { return b[:len(b)-7] }), model), 400, audio.CodeInvalidAudio},
		{"lying wav header", mp(wavWith(func(b []byte) []byte { b[40], b[41], b[42], b[43] = 0xff, 0xff, 0xff, 0x7f; return b }), model), 400, audio.CodeInvalidAudio},
		{"8-bit wav", mp(wavWith(setU16(34, 8)), model), 400, audio.CodeUnsupportedAudio},
		{"24-bit wav", mp(wavWith(setU16(34, 24)), model), 400, audio.CodeUnsupportedAudio},
		{"adpcm wav", mp(wavWith(setU16(20, 2)), model), 400, audio.CodeUnsupportedAudio},
		{"zero-length clip", mp(st.Field{Name: "file", File: audio.EncodePCM16(nil, 1, 16000)}, model), 400, "empty_audio"},
		{"over-long clip", mp(st.Field{Name: "file", File: long}, model), 400, "audio_too_long"},
		{"image size", img(`{"model":"procdiff-small-l0","prompt":"x","size":"512x512"}`), 400, "unsupported_size"},
		{"image steps", img(`{"model":"procdiff-small-l0","prompt":"x","num_inference_steps":500}`), 400, "unsupported_steps"},
		{"image guidance", img(`{"model":"procdiff-small-l0","prompt":"x","guidance_scale":99}`), 400, "unsupported_guidance"},
		{"image n", img(`{"model":"procdiff-small-l0","prompt":"x","n":9}`), 400, "unsupported_n"},
		{"missing file", mp(model), 400, contract.CodeMissingField},
		{"missing model", mp(file), 400, contract.CodeMissingField},
		{"unknown model", mp(file, st.Field{Name: "model", Value: "whisper-9"}), 404, contract.CodeModelNotFound},
		{"duplicate field", mp(file, model, model), 400, contract.CodeDuplicateField},
		{"unknown field", mp(file, model, st.Field{Name: "beam", Value: "5"}), 400, contract.CodeUnknownField},
		{"temperature", mp(file, model, st.Field{Name: "temperature", Value: "0.7"}), 400, contract.CodeUnsupportedOption},
		{"prompt", mp(file, model, st.Field{Name: "prompt", Value: "cards"}), 400, contract.CodeUnsupportedOption},
		{"stream true", mp(file, model, st.Field{Name: "stream", Value: "true"}), 400, contract.CodeUnsupportedOption},
		{"word timestamps", mp(file, model, st.Field{Name: "response_format", Value: "verbose_json"}, st.Field{Name: "timestamp_granularities[]", Value: "word"}), 400, contract.CodeUnsupportedOption},
		{"chunking strategy", mp(file, model, st.Field{Name: "chunking_strategy", Value: "auto"}), 400, contract.CodeUnsupportedOption},
		{"bad response_format", mp(file, model, st.Field{Name: "response_format", Value: "srt"}), 400, contract.CodeInvalidValue},
		{"language", mp(file, model, st.Field{Name: "language", Value: "fr"}), 400, "unsupported_language"},
		{"not wav", mp(st.Field{Name: "file", File: []byte("ID3 not audio")}, model), 400, audio.CodeInvalidAudio},
		{"stereo", mp(st.Field{Name: "file", File: stereo}, model), 400, "unsupported_channels"},
		{"wrong rate", mp(file, st.Field{Name: "model", Value: "sphinx-tidigits"}), 400, "unsupported_sample_rate"},
		{"not multipart", js("/v1/audio/transcriptions", `{"model":"sphinx-an4-l0"}`), 400, contract.CodeInvalidMultipart},
		{"image from asr model", js("/v1/images/generations", `{"model":"sphinx-an4-l0","prompt":"a cat"}`), 400, contract.CodeUnsupportedCapability},
		{"image bad json", js("/v1/images/generations", `{"model":`), 400, contract.CodeInvalidJSON},
		{"image unknown field", js("/v1/images/generations", `{"model":"sphinx-an4-l0","prompt":"x","beam":4}`), 400, contract.CodeUnknownField},
		{"image quality hd", js("/v1/images/generations", `{"model":"sphinx-an4-l0","prompt":"x","quality":"hd"}`), 400, contract.CodeUnsupportedOption},
		{"image duplicate key", js("/v1/images/generations", `{"model":"sphinx-an4-l0","prompt":"x","prompt":"y"}`), 400, contract.CodeDuplicateField},
		{"image wrong type", js("/v1/images/generations", `{"model":"sphinx-an4-l0","prompt":"x","n":"two"}`), 400, contract.CodeInvalidValue},
		{"chat audio without capability", js("/v1/chat/completions", `{"model":"sphinx-an4-l0","messages":[{"role":"user","content":[{"type":"text","text":"what card?"},{"type":"input_audio","input_audio":{"data":"`+b64+`","format":"wav"}}]}]}`), 400, contract.CodeUnsupportedCapability},
		{"chat text without capability", js("/v1/chat/completions", `{"model":"sphinx-an4-l0","messages":[{"role":"user","content":"hello"}]}`), 400, contract.CodeUnsupportedCapability},
		{"chat unknown part", js("/v1/chat/completions", `{"model":"sphinx-an4-l0","messages":[{"role":"user","content":[{"type":"video","video":"x"}]}]}`), 400, contract.CodeInvalidValue},
		{"unknown route", func(t *testing.T, url string) *http.Request { return get(t, url+"/v2/nothing") }, 404, contract.CodeNotFound},
		{"wrong method", func(t *testing.T, url string) *http.Request { return get(t, url+"/v1/audio/transcriptions") }, 405, contract.CodeMethodNotAllowed},
		{"artifact traversal", func(t *testing.T, url string) *http.Request {
			return get(t, url+"/v1/artifacts/..%2F..%2Fetc%2Fpasswd")
		}, 404, contract.CodeNotFound},
		{"invalid request id", func(t *testing.T, url string) *http.Request {
			r := get(t, url+"/v1/models")
			r.Header.Set("X-Request-ID", "has space")
			return r
		}, 400, contract.CodeInvalidRequestID},
	}, chatErrorCases(t)...) // the audio-QA chat rows (chat_integration_test.go)
}

func TestErrorsHaveStatusCodeIDTimingAndOneRecordEach(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.an4, f.tidigits, imageBundle(t, "procdiff-small-l0"), qaBundle(t)})
	cases := errorCases(t)
	if len(cases) < 30 {
		t.Fatalf("the bad-input table has %d cases, want at least 30", len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := st.Do(t, c.req(t, p.URL))
			if r.Status != c.status || r.ErrorCode() != c.code {
				t.Fatalf("got %d %q, want %d %q: %s", r.Status, r.ErrorCode(), c.status, c.code, r.Body)
			}
			e := r.JSON["error"].(map[string]any)
			if e["message"] == "" || e["type"] == "" || r.Header.Get("X-Request-ID") == "" || r.JSON["trtmc_timing"] == nil {
				t.Errorf("error shape incomplete: %s headers %v", r.Body, r.Header)
			}
		})
	}
	if r := st.Do(t, get(t, p.URL+"/health/ready")); r.Status != 200 {
		t.Fatalf("server unhealthy after the bad inputs: %d", r.Status)
	}
	if err := p.Stop(t); err != nil {
		t.Fatalf("server exit: %v\n%s", err, p.Stderr())
	}
	records := readRecords(t, p)[p.StartupRecords:]
	if len(records) != len(cases)+1 {
		t.Fatalf("%d records for %d requests", len(records), len(cases)+1)
	}
	codes := map[string]int{}
	for _, rec := range records {
		codes[rec.ErrorCode]++
	}
	for _, c := range cases {
		if codes[c.code] == 0 {
			t.Errorf("no record with error code %s", c.code)
		}
	}
}

func readRecords(t *testing.T, p *st.Process) []contract.Record {
	t.Helper()
	var out []contract.Record
	for _, line := range p.RecordLines(t) {
		var r contract.Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("record line %q: %v", line, err)
		}
		out = append(out, r)
	}
	return out
}

func TestRequestIDsHonoredGeneratedAndDuplicatesRefused(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.enUS})
	r := st.Do(t, get(t, p.URL+"/v1/models"))
	if id := r.Header.Get("X-Request-ID"); !strings.HasPrefix(id, "srv-") {
		t.Errorf("generated id = %q", id)
	}
	// Hold an id in flight with a long clip, then send it again.
	slow := make(chan st.Response)
	go func() {
		req := transcription(t, p.URL, "sphinx-en-us", longClip(t))
		req.Header.Set("X-Request-ID", "same-id")
		slow <- st.Do(t, req)
	}()
	waitInFlight(t, p.URL, 1)
	dup := get(t, p.URL+"/v1/models")
	dup.Header.Set("X-Request-ID", "same-id")
	if r := st.Do(t, dup); r.Status != 400 || r.ErrorCode() != contract.CodeDuplicateRequestID {
		t.Errorf("duplicate in flight: %d %s", r.Status, r.Body)
	}
	if first := <-slow; first.Status != 200 || first.Header.Get("X-Request-ID") != "same-id" {
		t.Errorf("first request: %d %s", first.Status, first.Body)
	}
	again := get(t, p.URL+"/v1/models")
	again.Header.Set("X-Request-ID", "same-id")
	if r := st.Do(t, again); r.Status != 400 || r.ErrorCode() != contract.CodeDuplicateRequestID {
		t.Errorf("id reused after completion: %d %s (ids are single-use for the server's life)", r.Status, r.Body)
	}
}

func TestBusyServerAnswers429WithRetryAfter(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.enUS}, "--lanes", "1", "--queue", "0")
	var wg sync.WaitGroup
	results := make([]st.Response, 3)
	for i := range results {
		wg.Go(func() { results[i] = st.Do(t, transcription(t, p.URL, "sphinx-en-us", longClip(t))) })
		time.Sleep(100 * time.Millisecond)
	}
	wg.Wait()
	ok, busy := 0, 0
	for _, r := range results {
		switch {
		case r.Status == 200:
			ok++
		case r.Status == 429 && r.ErrorCode() == contract.CodeServerBusy && r.Header.Get("Retry-After") != "":
			busy++
		default:
			t.Errorf("unexpected answer %d %s", r.Status, r.Body)
		}
	}
	if ok != 1 || busy != 2 {
		t.Fatalf("ok=%d busy=%d, want 1 and 2 with one lane and no queue", ok, busy)
	}
}

func TestBodyLimitGives413(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.an4}, "--max-body-mb", "1", "--max-audio-mb", "1")
	big := audio.EncodePCM16(make([]int16, 700_000), 1, 16000) // 1.4 MB
	r := st.Do(t, transcription(t, p.URL, "sphinx-an4-l0", big))
	if r.Status != 413 || r.ErrorCode() != contract.CodeRequestTooLarge {
		t.Fatalf("oversized upload: %d %s", r.Status, r.Body)
	}
}

func TestGracefulShutdownFinishesInFlightAndKeepsEveryRecord(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.enUS})
	results := make(chan st.Response, 2)
	for i := range 2 {
		go func() {
			req := transcription(t, p.URL, "sphinx-en-us", longClip(t))
			req.Header.Set("X-Request-ID", fmt.Sprintf("drain-%d", i))
			results <- st.Do(t, req)
		}()
	}
	waitInFlight(t, p.URL, 2)
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if r := <-results; r.Status != 200 || r.JSON["text"] == "" {
			t.Errorf("in-flight request during drain: %d %s", r.Status, r.Body)
		}
	}
	if err := p.Wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, p.Stderr())
	}
	ids := map[string]int{}
	for _, rec := range readRecords(t, p) {
		ids[rec.RequestID]++
	}
	if ids["drain-0"] != 1 || ids["drain-1"] != 1 {
		t.Fatalf("records after drain: %v", ids)
	}
}

func TestAPIKeyGuardsEveryRouteButHealth(t *testing.T) {
	f := setup(t)
	keyFile := filepath.Join(t.TempDir(), "key")
	os.WriteFile(keyFile, []byte("s3cret\n"), 0o600)
	p := st.Start(t, f.server, []string{f.an4}, "--api-key-file", keyFile)
	for _, path := range []string{"/v1/models", "/v1/serving/info", "/metrics"} {
		if r := st.Do(t, get(t, p.URL+path)); r.Status != 401 || r.ErrorCode() != contract.CodeUnauthorized {
			t.Errorf("%s without key: %d", path, r.Status)
		}
		wrong := get(t, p.URL+path)
		wrong.Header.Set("Authorization", "Bearer s3creT")
		if r := st.Do(t, wrong); r.Status != 401 {
			t.Errorf("%s with a wrong key: %d", path, r.Status)
		}
	}
	req := transcription(t, p.URL, "sphinx-an4-l0", cardsClip(t, "004"))
	req.Header.Set("Authorization", "Bearer s3cret")
	if r := st.Do(t, req); r.Status != 200 {
		t.Errorf("with the key: %d %s", r.Status, r.Body)
	}
	if r := st.Do(t, get(t, p.URL+"/health/ready")); r.Status != 200 {
		t.Errorf("health without key: %d", r.Status)
	}
}

// TestHTTPTranscriptsEqualNativeCLI: for every clip of every pinned ASR selection, the HTTP
// transcript equals `trtmc-native transcribe` on the same clip and bundle.
func TestHTTPTranscriptsEqualNativeCLI(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.an4, f.tidigits, f.enUS})
	root := st.RepoRoot()
	for profile, bundle := range map[string]string{"sphinx-an4-l0": f.an4, "sphinx-tidigits": f.tidigits, "sphinx-en-us": f.enUS} {
		set, err := dataset.ReadASR(filepath.Join(root, "golden", "asr", profile, "dataset.json"))
		if err != nil {
			t.Fatal(err)
		}
		clips, err := set.Materialize(root, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range clips {
			wav, _ := os.ReadFile(c.Path)
			httpOut := st.Do(t, transcription(t, p.URL, profile, wav))
			native, err := exec.Command(f.native, "transcribe", bundle, "--input", c.Path).Output()
			if err != nil {
				t.Fatal(err)
			}
			if httpOut.Status != 200 || httpOut.JSON["text"] != strings.TrimSuffix(string(native), "\n") {
				t.Errorf("%s/%s: HTTP %d %q, native %q", profile, c.ID, httpOut.Status, httpOut.JSON["text"], native)
			}
		}
	}
}

// mainTB lets TestMain use the fixture builders.
type mainTB struct{ testing.TB }

func (mainTB) Helper()                           {}
func (mainTB) Fatal(args ...any)                 { panic(fmt.Sprint(args...)) }
func (mainTB) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

func TestCorruptOrTruncatedBundleFailsAtServeWithAClearMessage(t *testing.T) {
	f := setup(t)
	data, err := os.ReadFile(f.an4)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	truncated, corrupt := filepath.Join(dir, "truncated.bundle"), filepath.Join(dir, "corrupt.bundle")
	os.WriteFile(truncated, data[:len(data)/2], 0o644)
	flipped := append([]byte(nil), data...)
	flipped[len(flipped)-10] ^= 0xff
	os.WriteFile(corrupt, flipped, 0o644)
	for path, want := range map[string]string{truncated: "truncated bundle", corrupt: "does not match its sha256"} {
		out, err := exec.Command(f.server, "--bundle", path, "--addr", "127.0.0.1:0").CombinedOutput()
		if err == nil || !strings.Contains(string(out), want) {
			t.Errorf("%s: err %v, output %s; want it to say %q", filepath.Base(path), err, out, want)
		}
	}
}

func TestServerBindsExactlyTheGivenAddress(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.an4})
	port := p.URL[strings.LastIndex(p.URL, ":")+1:]
	tcp, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		t.Fatal(err)
	}
	portHex := fmt.Sprintf("%04X", mustAtoi(t, port))
	listening := []string{}
	for _, line := range strings.Split(string(tcp), "\n")[1:] {
		fields := strings.Fields(line)
		if len(fields) > 3 && strings.HasSuffix(fields[1], ":"+portHex) && fields[3] == "0A" { // 0A = LISTEN
			listening = append(listening, fields[1])
		}
	}
	if len(listening) != 1 || listening[0] != "0100007F:"+portHex {
		t.Fatalf("listening sockets on port %s: %v, want only 127.0.0.1", port, listening)
	}
}

func TestRecordsHoldHashesNeverRawAudio(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.an4})
	clip := cardsClip(t, "005")
	st.Do(t, transcription(t, p.URL, "sphinx-an4-l0", clip))
	st.Do(t, transcription(t, p.URL, "sphinx-an4-l0", clip, st.Field{Name: "temperature", Value: "0.5"})) // rejected
	if err := p.Stop(t); err != nil {
		t.Fatal(err)
	}
	b64 := base64.StdEncoding.EncodeToString(clip[44:1044])
	for _, line := range p.RecordLines(t)[p.StartupRecords:] {
		if len(line) > 2048 || strings.Contains(line, b64[:64]) {
			t.Fatalf("record carries raw audio (%d bytes): %.200s", len(line), line)
		}
	}
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// waitInFlight waits until the server reports at least n requests inside handlers.
func waitInFlight(t *testing.T, url string, n float64) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if scrape(t, url, "trtmc_requests_in_flight")["trtmc_requests_in_flight"] >= n {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the server never had %v requests in flight", n)
}
