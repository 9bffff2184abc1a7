package server_test

// Regression tests for issue #13, each on the real trtmc-server binary: what an adversarial
// client found (drain timeout, slow clients, JSON bombs, case-variant keys, empty API key, reused
// request ids, unrecorded requests, expired artifacts, echoed values).

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
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
	"github.com/trtmc-qual/trtmc-qual/server"
	st "github.com/trtmc-qual/trtmc-qual/server/servertest"
)

// longerClip is four copies of the 7.1 s LibriVox clip: 28.4 s, under sphinx-en-us's 30 s cap,
// long enough that its decode outlasts a 2 s drain timeout.
func longerClip(t *testing.T) []byte {
	t.Helper()
	a, err := audio.DecodeWAV(longClip(t))
	if err != nil {
		t.Fatal(err)
	}
	pcm := audio.ToPCM16(a.Samples)
	var all []int16
	for range 4 {
		all = append(all, pcm...)
	}
	return audio.EncodePCM16(all, 1, a.SampleRate)
}

// recordsByID groups the records of a stopped server by request id and by client request id.
func recordsByID(t *testing.T, p *st.Process) (byID, byClientID map[string][]contract.Record) {
	t.Helper()
	byID, byClientID = map[string][]contract.Record{}, map[string][]contract.Record{}
	for _, r := range readRecords(t, p) {
		byID[r.RequestID] = append(byID[r.RequestID], r)
		if r.ClientRequestID != "" {
			byClientID[r.ClientRequestID] = append(byClientID[r.ClientRequestID], r)
		}
	}
	return byID, byClientID
}

// exitCode is the exit status of a process that exited by itself; -1 for a signal or a crash.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return -1
		}
		return ee.ExitCode()
	}
	return -1
}

// Item 1: a drain that times out answers the requests left with 503 shutting_down, keeps one
// record each, never frees a model under a running decode, and exits 1 (not a crash). The
// binary is built with -race.
func TestDrainTimeoutAnswersShuttingDownAndNeverCrashes(t *testing.T) {
	f := setup(t)
	bin := f.server
	if os.Getenv("SERVERTEST_SERVER_BIN") == "" {
		bin = st.BuildBinary(t, "server/cmd/trtmc-server", sharedDir(t), "-race")
	}
	p := st.Start(t, bin, []string{f.enUS}, "--drain-timeout", "2s", "--lanes", "1", "--queue", "4")
	clip := longerClip(t)
	results := make(chan st.Response, 2)
	for _, id := range []string{"abort-running", "abort-queued"} {
		go func() {
			req := transcription(t, p.URL, "sphinx-en-us", clip)
			req.Header.Set("X-Request-ID", id)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				results <- st.Response{Status: -1, Body: []byte(err.Error())}
				return
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			results <- st.Response{Status: resp.StatusCode, Body: body, Header: resp.Header}
		}()
		waitInFlight(t, p.URL, 1)
	}
	waitInFlight(t, p.URL, 2)
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if r := <-results; r.Status != 503 || !strings.Contains(string(r.Body), contract.CodeShuttingDown) || r.Header.Get("Retry-After") == "" {
			t.Errorf("in-flight request at drain timeout: %d %s (Retry-After %q)", r.Status, r.Body, r.Header.Get("Retry-After"))
		}
	}
	err := p.Wait()
	stderr := p.Stderr()
	if code := exitCode(err); code != 1 {
		t.Errorf("exit %v (code %d), want exit status 1\n%s", err, code, stderr)
	}
	for _, bad := range []string{"SIGSEGV", "panic:", "DATA RACE", "fatal error"} {
		if strings.Contains(stderr, bad) {
			t.Errorf("server log holds %q:\n%s", bad, stderr)
		}
	}
	byID, _ := recordsByID(t, p)
	for _, id := range []string{"abort-running", "abort-queued"} {
		if recs := byID[id]; len(recs) != 1 || recs[0].Status != 503 || recs[0].ErrorCode != contract.CodeShuttingDown {
			t.Errorf("records of %s: %+v, want one 503 shutting_down", id, recs)
		}
	}
}

// Item 2a: a body trickled slower than the body deadline is cut off with 408, recorded once.
func TestTrickledBodyIsCutOffWith408(t *testing.T) {
	f := setup(t)
	// --max-body-mb 1 sizes the default body deadline to 11 s; no deadline flag is needed.
	p := st.Start(t, f.server, []string{f.an4}, "--max-body-mb", "1", "--max-audio-mb", "1")
	conn, err := net.Dial("tcp", strings.TrimPrefix(p.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v1/images/generations HTTP/1.1\r\nHost: x\r\nX-Request-ID: trickle-1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
	stop := make(chan struct{})
	defer close(stop)
	go func() { // one byte a second, for longer than the deadline, unless answered first
		for range 40 {
			select {
			case <-stop:
				return
			case <-time.After(time.Second):
				conn.Write([]byte(" "))
			}
		}
	}()
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a trickled body within 30 s: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(body), contract.CodeRequestTimeout) {
		t.Fatalf("trickled body: %d %s", resp.StatusCode, body)
	}
	p.Stop(t)
	if byID, _ := recordsByID(t, p); len(byID["trickle-1"]) != 1 || byID["trickle-1"][0].Status != 408 {
		t.Errorf("records of the trickled request: %+v", byID["trickle-1"])
	}
}

// Item 2b: 2,000 idle keep-alive connections do not pin 2,000 goroutines past the idle timeout.
func TestIdleKeepAliveConnectionsAreClosed(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.an4}, "--idle-timeout", "5s")
	base := scrape(t, p.URL, "go_goroutines")["go_goroutines"]
	const conns = 2000
	var open []net.Conn
	defer func() {
		for _, c := range open {
			c.Close()
		}
	}()
	addr := strings.TrimPrefix(p.URL, "http://")
	for i := range conns {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		open = append(open, c)
		fmt.Fprintf(c, "GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n")
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	peak := scrape(t, p.URL, "go_goroutines")["go_goroutines"]
	if peak < base+conns*9/10 { // a few may already have timed out on a slow machine
		t.Fatalf("goroutines %v with %d idle connections open (baseline %v): the connections are not held", peak, conns, base)
	}
	deadline := time.Now().Add(20 * time.Second)
	var now float64
	for time.Now().Before(deadline) {
		if now = scrape(t, p.URL, "go_goroutines")["go_goroutines"]; now < base+50 {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("goroutines: baseline %v, %d idle connections %v, after the idle timeout %v", base, conns, peak, now)
	if now >= base+50 {
		t.Fatalf("goroutines still %v (baseline %v) 20 s after a 5 s idle timeout", now, base)
	}
}

// vmHWM is the peak resident set of a process in bytes.
func vmHWM(t testing.TB, pid int) int64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmHWM")
	return 0
}

// Item 3: two concurrent 30 MB "[[[[..." bodies raise the peak RSS by less than 512 MiB and are
// answered 400 invalid_json.
func TestJSONBombsAreRefusedInBoundedMemory(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{imageBundle(t, "procdiff-small-l0")})
	before := vmHWM(t, p.Pid())
	bomb := strings.Repeat("[", 30_000_000)
	var wg sync.WaitGroup
	results := make([]st.Response, 2)
	for i := range results {
		wg.Go(func() { results[i] = st.Do(t, st.JSONPost(t, p.URL+"/v1/images/generations", bomb)) })
	}
	wg.Wait()
	growth := vmHWM(t, p.Pid()) - before
	t.Logf("peak RSS grew by %d MiB for two concurrent 30 MB bombs", growth>>20)
	for _, r := range results {
		if r.Status != 400 || r.ErrorCode() != contract.CodeInvalidJSON || len(r.Body) > 1024 {
			t.Errorf("bomb: %d %.300s", r.Status, r.Body)
		}
	}
	if growth >= 512<<20 {
		t.Fatalf("peak RSS grew by %d MiB, want < 512", growth>>20)
	}
}

// Items 4 and 9: case-variant keys, a 10^6-digit seed, a non-canonical size and a 1 MB field
// name each get their own stable code, and no error echoes more than ~200 bytes of a value.
func TestStrictBodiesRefuseVariantsAndEchoLittle(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.an4, imageBundle(t, "procdiff-small-l0")})
	huge := strings.Repeat("9", 1_000_000)
	img := `{"model":"procdiff-small-l0",`
	cases := []struct {
		name, path, body string
		status           int
		code             string
	}{
		{"case duplicate", "/v1/images/generations", img + `"prompt":"x","Prompt":"y"}`, 400, contract.CodeDuplicateField},
		{"case duplicate nested", "/v1/chat/completions", `{"model":"sphinx-an4-l0","messages":[{"role":"user","content":"hi","CONTENT":"x"}]}`, 400, contract.CodeDuplicateField},
		{"case variant", "/v1/images/generations", img + `"Prompt":"y"}`, 400, contract.CodeUnknownField},
		{"kelvin-sign variant", "/v1/images/generations", `{"model":"procdiff-small-l0","prompt":"x","n":1,"seed":1,"` + "\u212a" + `":1}`, 400, contract.CodeUnknownField},
		{"long-s variant", "/v1/images/generations", img + `"prompt":"x","` + "\u017f" + `eed":4}`, 400, contract.CodeUnknownField},
		{"nested variant", "/v1/chat/completions", `{"model":"sphinx-an4-l0","messages":[{"Role":"user","content":"hi"}]}`, 400, contract.CodeUnknownField},
		{"10^6-digit seed", "/v1/images/generations", img + `"prompt":"x","seed":` + huge + `}`, 400, contract.CodeInvalidValue},
		{"signed zero-padded size", "/v1/images/generations", img + `"prompt":"x","size":"+128x0128"}`, 400, contract.CodeInvalidValue},
		{"spaced size", "/v1/images/generations", img + `"prompt":"x","size":"128 x128"}`, 400, contract.CodeInvalidValue},
		{"1 MB size value", "/v1/images/generations", img + `"prompt":"x","size":"` + huge + `"}`, 400, contract.CodeInvalidValue},
	}
	for _, c := range cases {
		r := st.Do(t, st.JSONPost(t, p.URL+c.path, c.body))
		if r.Status != c.status || r.ErrorCode() != c.code || len(r.Body) > 1024 {
			t.Errorf("%s: %d %q (%d bytes) %.300s, want %d %s", c.name, r.Status, r.ErrorCode(), len(r.Body), r.Body, c.status, c.code)
		}
	}
	if r := imageRequest(t, p.URL, img+`"prompt":"x","size":"128x128"}`); r.Status != 200 {
		t.Errorf("canonical size refused: %d %s", r.Status, r.Body)
	}
	// A part's headers may take 16 KiB (server/README.md, "Limits"): an 8 KB name is an
	// unknown field, a 1 MB one a part too large; neither is echoed whole.
	for _, c := range []struct {
		size   int
		status int
		code   string
	}{{8 << 10, 400, contract.CodeUnknownField}, {1 << 20, 413, contract.CodeRequestTooLarge}} {
		longName := strings.Repeat("n", c.size)
		r := st.Do(t, transcription(t, p.URL, "sphinx-an4-l0", cardsClip(t, "004"), st.Field{Name: longName, Value: "1"}))
		if r.Status != c.status || r.ErrorCode() != c.code || len(r.Body) > 1024 {
			t.Errorf("%d B field name: %d %q, %d bytes of body, want %d %s", c.size, r.Status, r.ErrorCode(), len(r.Body), c.status, c.code)
		}
	}
}

// Item 9: a 10 GB Content-Length with "Expect: 100-continue" is refused with 413 before the
// body, never invited with "100 Continue".
func TestHugeContentLengthGetsEarly413(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.an4})
	conn, err := net.Dial("tcp", strings.TrimPrefix(p.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v1/audio/transcriptions HTTP/1.1\r\nHost: x\r\nX-Request-ID: expect-1\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 10000000000\r\nExpect: 100-continue\r\n\r\n")
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), contract.CodeRequestTooLarge) {
		t.Fatalf("first answer to a 10 GB upload: %d %s", resp.StatusCode, body)
	}
}

// Item 5: a key file holding only whitespace stops the server from starting.
func TestWhitespaceAPIKeyFileRefusesToStart(t *testing.T) {
	f := setup(t)
	keyFile := filepath.Join(t.TempDir(), "key")
	os.WriteFile(keyFile, []byte(" \n\t\n"), 0o600)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, f.server, "--bundle", f.an4, "--addr", "127.0.0.1:0", "--api-key-file", keyFile).CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("the server ran with a blank key file (authentication off) until killed:\n%s", out)
	}
	if exitCode(err) != 1 || !strings.Contains(string(out), "empty") {
		t.Fatalf("exit %v, output %s; want exit 1 saying the key file is empty", err, out)
	}
}

// Item 6: an X-Request-ID is honored once in the server's life; reuses are refused and their
// records carry a server id, so the join by id stays unambiguous.
func TestReusedRequestIDIsRefusedForTheServersLife(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.an4})
	var statuses []int
	for range 3 {
		req := get(t, p.URL+"/v1/models")
		req.Header.Set("X-Request-ID", "once-only")
		r := st.Do(t, req)
		statuses = append(statuses, r.Status)
		if r.Status == 400 && r.ErrorCode() != contract.CodeDuplicateRequestID {
			t.Errorf("reuse answered %s", r.Body)
		}
	}
	if statuses[0] != 200 || statuses[1] != 400 || statuses[2] != 400 {
		t.Fatalf("statuses %v, want 200 then two 400 duplicate_request_id", statuses)
	}
	p.Stop(t)
	byID, byClient := recordsByID(t, p)
	if len(byID["once-only"]) != 1 || len(byClient["once-only"]) != 2 {
		t.Fatalf("records: %d with id once-only, %d refused reuses", len(byID["once-only"]), len(byClient["once-only"]))
	}
}

// Item 7: requests that never reached a route are recorded too, a client that aborts while
// queued is 499 client_closed_request, and a procdiff lane whose client went away stops
// between steps.
func TestEveryRequestIsRecordedOnce(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.enUS, imageBundle(t, "procdiff-base")}, "--lanes", "1", "--queue", "4")
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req := get(t, p.URL+"//v1/models")
	req.Header.Set("X-Request-ID", "double-slash")
	resp, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("//v1/models: %d, want 404 not_found", resp.StatusCode)
	}
	conn, err := net.Dial("tcp", strings.TrimPrefix(p.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "OPTIONS * HTTP/1.1\r\nHost: x\r\nX-Request-ID: options-star\r\n\r\n")
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if resp, err := http.ReadResponse(bufio.NewReader(conn), nil); err != nil || resp.Header.Get("X-Request-ID") != "options-star" {
		t.Errorf("OPTIONS *: %v %v", resp, err)
	}
	conn.Close()

	// One long decode holds the only lane; the next request queues and its client gives up.
	running := make(chan st.Response, 1)
	go func() {
		r := transcription(t, p.URL, "sphinx-en-us", longClip(t))
		r.Header.Set("X-Request-ID", "holds-lane")
		running <- st.Do(t, r)
	}()
	waitInFlight(t, p.URL, 1)
	ctx, cancel := context.WithCancel(context.Background())
	queued := transcription(t, p.URL, "sphinx-en-us", longClip(t)).WithContext(ctx)
	queued.Header.Set("X-Request-ID", "gives-up")
	gaveUp := make(chan error, 1)
	go func() {
		_, err := http.DefaultClient.Do(queued)
		gaveUp <- err
	}()
	waitGauge(t, p.URL, `trtmc_queue_depth{model="sphinx-en-us"}`, 1)
	cancel()
	<-gaveUp
	if r := <-running; r.Status != 200 {
		t.Errorf("lane holder: %d %s", r.Status, r.Body)
	}

	// A 4-image procdiff-base request is cancelled while it computes: the Task returns early.
	ctx, cancel = context.WithCancel(context.Background())
	imgReq := st.JSONPost(t, p.URL+"/v1/images/generations", `{"model":"procdiff-base","prompt":"a lighthouse","n":4,"num_inference_steps":50}`).WithContext(ctx)
	imgReq.Header.Set("X-Request-ID", "image-cancelled")
	go func() {
		if resp, err := http.DefaultClient.Do(imgReq); err == nil {
			resp.Body.Close()
		}
	}()
	waitGauge(t, p.URL, "trtmc_task_calls_running", 1) // the lane holder is done: this is the image's
	cancel()
	waitGauge(t, p.URL, `trtmc_task_cancelled_total{model="procdiff-base",task="text_to_image"}`, 1)

	p.Stop(t)
	byID, _ := recordsByID(t, p)
	want := map[string]string{"double-slash": contract.CodeNotFound, "options-star": contract.CodeNotFound,
		"gives-up": contract.CodeClientClosed, "image-cancelled": contract.CodeClientClosed, "holds-lane": ""}
	for id, code := range want {
		if recs := byID[id]; len(recs) != 1 || recs[0].ErrorCode != code {
			t.Errorf("records of %s: %+v, want one with error code %q", id, recs, code)
		}
	}
	if recs := byID["gives-up"]; len(recs) == 1 && recs[0].Status != server.StatusClientClosedRequest {
		t.Errorf("client gone while queued recorded as %d", recs[0].Status)
	}
}

// waitGauge waits until a /metrics series (name with labels) reaches v.
func waitGauge(t *testing.T, url, series string, v float64) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if scrape(t, url, series)[series] >= v {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s never reached %v", series, v)
}

// Item 8: an expired url artifact's file is deleted without anyone fetching it, and the
// server's own temp dir is removed at shutdown.
func TestExpiredArtifactsAreDeleted(t *testing.T) {
	f := setup(t)
	dir, tmp := t.TempDir(), t.TempDir()
	l0 := imageBundle(t, "procdiff-small-l0")
	p := st.Start(t, f.server, []string{l0}, "--artifact-ttl", "1s", "--artifact-dir", dir)
	if r := imageRequest(t, p.URL, `{"model":"procdiff-small-l0","prompt":"a kite","response_format":"url"}`); r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	if files, _ := os.ReadDir(dir); len(files) != 1 {
		t.Fatalf("artifact dir holds %d files after one url image", len(files))
	}
	deadline := time.Now().Add(15 * time.Second)
	for files, _ := os.ReadDir(dir); len(files) > 0; files, _ = os.ReadDir(dir) {
		if time.Now().After(deadline) {
			t.Fatalf("expired artifact %s still on disk 15 s after a 1 s TTL", files[0].Name())
		}
		time.Sleep(100 * time.Millisecond)
	}
	owned := st.StartEnv(t, []string{"TMPDIR=" + tmp}, f.server, []string{l0})
	if r := imageRequest(t, owned.URL, `{"model":"procdiff-small-l0","prompt":"a kite","response_format":"url"}`); r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	if err := owned.Stop(t); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "trtmc-artifacts-*")); len(left) != 0 {
		t.Errorf("the server's own artifact dir survived shutdown: %v", left)
	}
}

// Items 1 and 2 together: a body still trickling when a drain times out does not hold the
// shutdown past its grace; its request is recorded once, as 503 shutting_down.
func TestTrickledBodyDoesNotHoldShutdown(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.an4}, "--drain-timeout", "1s")
	conn, err := net.Dial("tcp", strings.TrimPrefix(p.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v1/images/generations HTTP/1.1\r\nHost: x\r\nX-Request-ID: trickle-at-drain\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
	waitInFlight(t, p.URL, 1)
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := exitCode(p.Wait()); code != 1 {
		t.Errorf("exit code %d after a timed-out drain, want 1\n%s", code, p.Stderr())
	}
	byID, _ := recordsByID(t, p)
	if recs := byID["trickle-at-drain"]; len(recs) != 1 || recs[0].Status != 503 || recs[0].ErrorCode != contract.CodeShuttingDown {
		t.Errorf("records of the trickled request: %+v, want one 503 shutting_down", recs)
	}
}
