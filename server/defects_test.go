package server_test

// Regression tests for the defects an adversarial client found in trtmc-server (D1–D12 and
// the retry rule of the request-id ledger), each on the real binary. server/README.md states
// the rules they hold the server to.

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/native/audio"
	st "github.com/trtmc-qual/trtmc-qual/server/servertest"
)

// withID sets X-Request-ID (and more header lines when given several ids).
func withID(req *http.Request, ids ...string) *http.Request {
	for _, id := range ids {
		req.Header.Add("X-Request-ID", id)
	}
	return req
}

// rawExchange sends raw request bytes on a fresh connection and reads answers until the server
// closes it or no byte arrives for the wait.
func rawExchange(t *testing.T, url, request string, wait time.Duration) (answers []*http.Response, closed bool) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, request); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	for {
		conn.SetReadDeadline(time.Now().Add(wait))
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			var ne net.Error
			return answers, !(errorsAs(err, &ne) && ne.Timeout())
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		answers = append(answers, resp)
	}
}

func errorsAs(err error, target *net.Error) bool {
	ne, ok := err.(net.Error)
	if ok {
		*target = ne
	}
	return ok
}

// startWithKey starts the server with an API key file holding key.
func startWithKey(t *testing.T, bin string, bundles []string, key string, extra ...string) *st.Process {
	t.Helper()
	keyFile := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(keyFile, []byte(key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return st.Start(t, bin, bundles, append([]string{"--api-key-file", keyFile}, extra...)...)
}

// D1: an id the server made up cannot be sent back as the client's own.
func TestServerIDsCannotBeSentBackAsClientIDs(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.an4})
	generated := st.Do(t, get(t, p.URL+"/v1/models")).Header.Get("X-Request-ID")
	refused := st.Do(t, withID(get(t, p.URL+"/v1/models"), "has space")).Header.Get("X-Request-ID")
	for _, id := range []string{generated, refused} {
		r := st.Do(t, withID(get(t, p.URL+"/v1/models"), id))
		if r.Status != 400 || r.ErrorCode() != contract.CodeInvalidRequestID {
			t.Errorf("server id %q sent back: %d %s, want 400 %s", id, r.Status, r.Body, contract.CodeInvalidRequestID)
		}
	}
	p.Stop(t)
	byID, _ := recordsByID(t, p)
	for _, id := range []string{generated, refused} {
		if n := len(byID[id]); n != 1 {
			t.Errorf("%d records with request_id %s, want 1", n, id)
		}
	}
}

// D2: a request without the key claims no id; keyless requests cannot evict a keyed client's id.
func TestUnauthenticatedRequestsClaimNoID(t *testing.T) {
	f := setup(t)
	p := startWithKey(t, f.server, []string{f.an4}, "s3cret", "--request-id-memory", "50")
	keyed := func(id string) st.Response {
		req := withID(get(t, p.URL+"/v1/models"), id)
		req.Header.Set("Authorization", "Bearer s3cret")
		return st.Do(t, req)
	}
	if r := st.Do(t, withID(get(t, p.URL+"/v1/models"), "mine-1")); r.Status != 401 {
		t.Fatalf("keyless: %d %s", r.Status, r.Body)
	}
	if r := keyed("mine-1"); r.Status != 200 {
		t.Errorf("keyed client's id after a keyless request took it: %d %s, want 200", r.Status, r.Body)
	}
	if r := keyed("mine-2"); r.Status != 200 {
		t.Fatalf("mine-2: %d %s", r.Status, r.Body)
	}
	for i := range 60 {
		st.Do(t, withID(get(t, p.URL+"/v1/models"), fmt.Sprintf("keyless-%d", i)))
	}
	if r := keyed("mine-2"); r.Status != 400 || r.ErrorCode() != contract.CodeDuplicateRequestID {
		t.Errorf("mine-2 reused after 60 keyless ids: %d %s, want 400 duplicate_request_id", r.Status, r.Body)
	}
}

// fillPipe writes blank lines into the FIFO until it is full, so that the server's next record
// write blocks: the stand-in for a stuck disk. Blank lines are no records (ParseRecords skips them).
func fillPipe(t *testing.T, fifo string) (closeWriter func()) {
	t.Helper()
	// Raw syscalls: an *os.File would park a write to a full pipe in the poller instead of
	// returning EAGAIN.
	w, err := syscall.Open(fifo, syscall.O_WRONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	line := bytes.Repeat([]byte{'\n'}, 512)
	for {
		if _, err := syscall.Write(w, line); err != nil {
			for _, err := syscall.Write(w, line[:1]); err == nil; _, err = syscall.Write(w, line[:1]) {
			}
			return func() { syscall.Close(w) }
		}
	}
}

// fifoSink is a records FIFO read by the test, which can stop reading (a stall) and resume.
type fifoSink struct {
	path string
	fd   int
	buf  bytes.Buffer
}

func newFIFOSink(t *testing.T) *fifoSink {
	t.Helper()
	path := filepath.Join(t.TempDir(), "records.fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	// A one-page pipe (F_SETPIPE_SZ), so that a stall is reached with a few records.
	syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), 1031, 4096)
	t.Cleanup(func() { syscall.Close(fd) })
	return &fifoSink{path: path, fd: fd}
}

// drain reads what the pipe holds now.
func (s *fifoSink) drain() {
	b := make([]byte, 64<<10)
	for {
		n, err := syscall.Read(s.fd, b)
		if n > 0 {
			s.buf.Write(b[:n])
		}
		if err != nil || n <= 0 {
			return
		}
	}
}

// readEvery drains the pipe on a goroutine of its own, waiting period() between reads; stop
// ends it and drains what the pipe still holds.
func (s *fifoSink) readEvery(period func() time.Duration) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			s.drain()
			select {
			case <-quit:
				return
			case <-time.After(period()):
			}
		}
	}()
	return func() { close(quit); <-done; s.drain() }
}

func every(d time.Duration) func() time.Duration { return func() time.Duration { return d } }

// exitWithin waits for the process to exit and returns its exit status; still running after
// bound (a hang), it fails the test.
func exitWithin(t *testing.T, p *st.Process, bound time.Duration) int {
	t.Helper()
	exited := make(chan error, 1)
	go func() { exited <- p.Wait() }()
	select {
	case err := <-exited:
		return exitCode(err)
	case <-time.After(bound):
		t.Fatalf("still running %s after SIGTERM", bound)
		return -1
	}
}

// drainFor keeps reading for d.
func (s *fifoSink) drainFor(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		s.drain()
	}
}

func (s *fifoSink) records(t *testing.T) map[string]contract.Record {
	t.Helper()
	recs, err := contract.ParseRecords(s.buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]contract.Record{}
	for _, r := range recs {
		out[r.RequestID] = r
	}
	return out
}

// D3: with the records file stalled, no byte of a large answer reaches the client; once the
// sink moves again the answer arrives and its record is already out.
func TestNoAnswerLeavesBeforeItsRecord(t *testing.T) {
	f := setup(t)
	sink := newFIFOSink(t)
	stopReading := sink.readEvery(every(10 * time.Millisecond)) // drained while the server starts
	p := st.Start(t, f.server, []string{imageBundle(t, "procdiff-small")}, "--records", sink.path)
	t.Cleanup(func() { syscall.Close(sink.fd) }) // before Stop: a stalled write then fails instead of holding the drain
	stopReading()
	defer fillPipe(t, sink.path)()

	conn, err := net.Dial("tcp", strings.TrimPrefix(p.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"model":"procdiff-small","prompt":"a lighthouse at dusk","size":"256x256","num_inference_steps":4}`
	fmt.Fprintf(conn, "POST /v1/images/generations HTTP/1.1\r\nHost: x\r\nX-Request-ID: stalled-1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	got, err := io.ReadAll(io.LimitReader(conn, 1))
	if len(got) > 0 {
		resp, _ := http.ReadResponse(bufio.NewReader(io.MultiReader(bytes.NewReader(got), conn)), nil)
		t.Fatalf("an answer reached the client while its record could not be written: %v", resp.Status)
	}
	sink.drainFor(time.Second) // the sink moves again: the record is written, then the answer
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer once the sink moved: %v", err)
	}
	n, _ := io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != 200 || n < 16<<10 {
		t.Fatalf("answer %d of %d bytes, want a 200 larger than net/http's buffer", resp.StatusCode, n)
	}
	sink.drain()
	if rec, ok := sink.records(t)["stalled-1"]; !ok || rec.Status != 200 {
		t.Fatalf("record of the stalled request: %+v (found %v)", rec, ok)
	}
}

// D4: an unwritable records file turns every answer into 503 records_unavailable (with
// Retry-After) and readiness off; none is a 2xx.
func TestUnwritableRecordsAnswer503AndTurnReadinessOff(t *testing.T) {
	f := setup(t)
	port := freeLoopbackPort(t)
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	cmd := exec.Command(f.server, "--bundle", f.an4, "--addr", fmt.Sprintf("127.0.0.1:%d", port), "--records", "/dev/full")
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	waitListening(t, url)
	time.Sleep(time.Second) // loading an4 takes well under a second
	for _, path := range []string{"/v1/models", "/health/ready"} {
		r := st.Do(t, get(t, url+path))
		if r.Status != 503 || r.ErrorCode() != contract.CodeRecordsUnavailable || r.Header.Get("Retry-After") == "" {
			t.Errorf("%s with /dev/full records: %d %s (Retry-After %q), want 503 %s", path, r.Status, r.Body, r.Header.Get("Retry-After"), contract.CodeRecordsUnavailable)
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if code := exitCode(cmd.Wait()); code != 1 {
		t.Errorf("exit code %d after records were lost, want 1", code)
	}
}

func freeLoopbackPort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// waitListening waits until the port accepts connections.
func waitListening(t *testing.T, url string) {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://")); err == nil {
			c.Close()
			return
		}
	}
	t.Fatalf("%s never listened", url)
}

// D5: a chat body whose audio could not be accepted is refused from its size, before it is
// decoded: a 22 MiB WAV in a 32 MiB body, and (with a 1 MiB audio limit) a 1.2 MiB WAV that
// fits the body limit.
func TestChatAudioOverTheLimitIsRefusedBeforeDecoding(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{qaBundle(t)}, "--max-body-mb", "32", "--max-audio-mb", "16")
	big := audio.EncodePCM16(make([]int16, 11<<20), 1, 16000) // 22 MiB: its base64 fits the 32 MiB body
	r := st.Do(t, st.JSONPost(t, p.URL+"/v1/chat/completions", chatBody("sphinxqa-an4-l0", textPart("How many words are spoken?"), audioPart(big))))
	if r.Status != 413 || r.ErrorCode() != contract.CodeRequestTooLarge {
		t.Errorf("22 MiB WAV in a chat body: %d %.200s, want 413 %s", r.Status, r.Body, contract.CodeRequestTooLarge)
	}
	small := st.Start(t, f.server, []string{qaBundle(t)}, "--max-audio-mb", "1")
	wav := audio.EncodePCM16(make([]int16, 600_000), 1, 16000) // 1.2 MB
	r = st.Do(t, st.JSONPost(t, small.URL+"/v1/chat/completions", chatBody("sphinxqa-an4-l0", textPart("How many words are spoken?"), audioPart(wav))))
	if r.Status != 413 || r.ErrorCode() != contract.CodeRequestTooLarge {
		t.Errorf("1.2 MB WAV with a 1 MiB audio limit: %d %.200s, want 413 %s", r.Status, r.Body, contract.CodeRequestTooLarge)
	}
}

// D6: a file part of exactly the limit plus one byte is 413, like limit plus two.
func TestFilePartOfLimitPlusOneIs413(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.an4}, "--max-body-mb", "2", "--max-audio-mb", "1")
	for _, extra := range []int{1, 2} {
		file := make([]byte, 1<<20+extra)
		copy(file, audio.EncodePCM16(make([]int16, 16000), 1, 16000))
		r := st.Do(t, transcription(t, p.URL, "sphinx-an4-l0", file))
		if r.Status != 413 || r.ErrorCode() != contract.CodeRequestTooLarge {
			t.Errorf("file part of 1 MiB + %d bytes: %d %.200s, want 413", extra, r.Status, r.Body)
		}
	}
}

// D8: n outside the supported range is refused; n 0 is not "one image".
func TestImageCountZeroIsRefused(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{imageBundle(t, "procdiff-small-l0")})
	for _, n := range []string{"0", "-1"} {
		r := imageRequest(t, p.URL, `{"model":"procdiff-small-l0","prompt":"a kite","n":`+n+`}`)
		if r.Status != 400 {
			t.Errorf("n %s: %d %.200s, want 400", n, r.Status, r.Body)
		}
	}
}

// D9: two X-Request-ID header lines are refused and recorded; neither id is used up.
func TestTwoRequestIDHeadersAreRefusedAndRecorded(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.an4})
	r := st.Do(t, withID(get(t, p.URL+"/v1/models"), "first-of-two", "second-of-two"))
	if r.Status != 400 || r.ErrorCode() != contract.CodeInvalidRequestID {
		t.Fatalf("two X-Request-ID lines: %d %s, want 400 %s", r.Status, r.Body, contract.CodeInvalidRequestID)
	}
	for _, id := range []string{"first-of-two", "second-of-two"} {
		if r := st.Do(t, withID(get(t, p.URL+"/v1/models"), id)); r.Status != 200 {
			t.Errorf("%s after the refused request: %d %s", id, r.Status, r.Body)
		}
	}
	p.Stop(t)
	_, byClient := recordsByID(t, p)
	if recs := byClient["first-of-two, second-of-two"]; len(recs) != 1 || recs[0].Status != 400 {
		t.Errorf("records of the refused request: %+v", recs)
	}
}

// D10: the Bearer scheme is matched without regard to case.
func TestBearerSchemeIsCaseInsensitive(t *testing.T) {
	f := setup(t)
	p := startWithKey(t, f.server, []string{f.an4}, "s3cret")
	for _, scheme := range []string{"bearer", "BEARER", "bEaReR"} {
		req := get(t, p.URL+"/v1/models")
		req.Header.Set("Authorization", scheme+" s3cret")
		if r := st.Do(t, req); r.Status != 200 {
			t.Errorf("%s s3cret: %d %s", scheme, r.Status, r.Body)
		}
	}
}

// D11: a client that resets its connection mid-body is recorded as 499, not as bad JSON.
func TestResetMidBodyIsRecordedAs499(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{imageBundle(t, "procdiff-small-l0")})
	conn, err := net.Dial("tcp", strings.TrimPrefix(p.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "POST /v1/images/generations HTTP/1.1\r\nHost: x\r\nX-Request-ID: reset-mid-body\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"model\":")
	time.Sleep(200 * time.Millisecond)
	conn.(*net.TCPConn).SetLinger(0) // close sends RST
	conn.Close()
	var recs []contract.Record
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end) && len(recs) == 0; time.Sleep(50 * time.Millisecond) {
		byID, _ := recordsByID(t, p)
		recs = byID["reset-mid-body"]
	}
	if len(recs) != 1 || recs[0].Status != 499 || recs[0].ErrorCode != contract.CodeClientClosed {
		t.Fatalf("records of a reset mid-body: %+v, want one 499 %s", recs, contract.CodeClientClosed)
	}
}

// D12: a chunked request beside a Content-Length is answered once and its connection closed,
// so a request smuggled after its body is never served.
func TestChunkedWithContentLengthClosesTheConnection(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.an4})
	smuggled := "GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Request-ID: smuggled\r\n\r\n"
	req := "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nX-Request-ID: carrier\r\nContent-Type: application/json\r\n" +
		"Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n" + smuggled
	answers, closed := rawExchange(t, p.URL, req, 5*time.Second)
	if len(answers) != 1 || !closed {
		t.Fatalf("%d answers, connection closed %v; want one answer and the connection closed", len(answers), closed)
	}
	p.Stop(t)
	if byID, _ := recordsByID(t, p); len(byID["smuggled"]) != 0 {
		t.Errorf("the smuggled request was served: %+v", byID["smuggled"])
	}
}

// HEAD on a GET route answers as GET without a body.
func TestHeadOnGetRoutesAnswersWithoutBody(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.an4})
	for _, path := range []string{"/health/live", "/health/ready", "/v1/models", "/metrics"} {
		req, _ := http.NewRequest(http.MethodHead, p.URL+path, nil)
		r := st.Do(t, req)
		if r.Status != 200 || len(r.Body) != 0 || r.Header.Get("X-Request-ID") == "" {
			t.Errorf("HEAD %s: %d, %d body bytes", path, r.Status, len(r.Body))
		}
	}
}

// The retry rule: a request refused 429 before its Task call leaves its id free; the retry is
// served, and both attempts are recorded under the id with attempt 1 and 2.
func TestRetryAfter429KeepsItsRequestID(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.enUS}, "--lanes", "1", "--queue", "0")
	holder := make(chan st.Response, 1)
	go func() { holder <- st.Do(t, transcription(t, p.URL, "sphinx-en-us", longClip(t))) }()
	waitInFlight(t, p.URL, 1)
	time.Sleep(300 * time.Millisecond) // the holder is inside its Task call
	first := st.Do(t, withID(transcription(t, p.URL, "sphinx-en-us", cardsClip(t, "004")), "sdk-retry"))
	if first.Status != 429 || first.Header.Get("Retry-After") == "" {
		t.Fatalf("first attempt: %d %s (Retry-After %q), want 429 with Retry-After", first.Status, first.Body, first.Header.Get("Retry-After"))
	}
	<-holder
	if r := st.Do(t, withID(transcription(t, p.URL, "sphinx-en-us", cardsClip(t, "004")), "sdk-retry")); r.Status != 200 || r.Header.Get("X-Request-ID") != "sdk-retry" {
		t.Fatalf("retry with the same id: %d %s", r.Status, r.Body)
	}
	if r := st.Do(t, withID(get(t, p.URL+"/v1/models"), "sdk-retry")); r.Status != 400 || r.ErrorCode() != contract.CodeDuplicateRequestID {
		t.Errorf("the id once served: %d %s, want 400 duplicate_request_id", r.Status, r.Body)
	}
	p.Stop(t)
	byID, _ := recordsByID(t, p)
	recs := byID["sdk-retry"]
	if len(recs) != 2 || recs[0].Status != 429 || recs[0].Attempt != 1 || recs[1].Status != 200 || recs[1].Attempt != 2 {
		t.Fatalf("records of sdk-retry: %+v, want 429 attempt 1 then 200 attempt 2", recs)
	}
}

// D7: url artifacts are kept within a quota; past it a url image is refused with a code and a
// record, instead of filling the disk.
func TestURLArtifactsAreKeptWithinAQuota(t *testing.T) {
	f := setup(t)
	dir := t.TempDir()
	p := st.Start(t, f.server, []string{imageBundle(t, "procdiff-small-l0")}, "--artifact-dir", dir, "--artifact-max-files", "2")
	var statuses []int
	for i := range 3 {
		req := withID(st.JSONPost(t, p.URL+"/v1/images/generations", fmt.Sprintf(`{"model":"procdiff-small-l0","prompt":"kite %d","response_format":"url"}`, i)), fmt.Sprintf("quota-%d", i))
		r := st.Do(t, req)
		statuses = append(statuses, r.Status)
		if i == 2 && (r.Status != 507 || r.ErrorCode() != contract.CodeArtifactQuota) {
			t.Errorf("third url image past a 2-file quota: %d %s, want 507 %s", r.Status, r.Body, contract.CodeArtifactQuota)
		}
	}
	if files, _ := os.ReadDir(dir); len(files) != 2 || statuses[0] != 200 || statuses[1] != 200 {
		t.Errorf("statuses %v, %d files kept; want 200, 200 and 2 files", statuses, len(files))
	}
	p.Stop(t)
	if byID, _ := recordsByID(t, p); len(byID["quota-2"]) != 1 || byID["quota-2"][0].ErrorCode != contract.CodeArtifactQuota {
		t.Errorf("records of the refused url image: %+v", byID["quota-2"])
	}
}

// Upload buffers grow from the bytes received: 50 stalled uploads that declare 16 MiB each
// and send 317 bytes hold about what they sent, not 800 MiB of heap.
func TestStalledUploadsHoldWhatTheySent(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.an4}, "--max-body-mb", "32", "--max-audio-mb", "16")
	head := "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.wav\"\r\nContent-Type: audio/wav\r\n\r\nRIFF\xff\xff\xff\x00WAVEfmt "
	head += strings.Repeat("\x00", 317-len(head))
	const conns = 50
	for range conns {
		c, err := net.Dial("tcp", strings.TrimPrefix(p.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "POST /v1/audio/transcriptions HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: %d\r\n\r\n%s", 16<<20, head)
	}
	waitInFlight(t, p.URL, conns)
	time.Sleep(200 * time.Millisecond) // each handler has read what arrived
	heap := scrape(t, p.URL, "go_memstats_heap_alloc_bytes")["go_memstats_heap_alloc_bytes"]
	t.Logf("heap with %d stalled 16 MiB uploads of 317 bytes: %.1f MiB", conns, heap/(1<<20))
	if heap > 128<<20 {
		t.Fatalf("heap %.0f MiB for %d uploads that sent 317 bytes each: buffers sized from the declared length", heap/(1<<20), conns)
	}
}

// What net/http refuses before any handler is recorded too: the answer's status, a server id,
// no route. Each refusal below gets one record, and keep-alive answers of handlers on the same
// connection are not mistaken for refusals.
func TestRefusalsBeforeAnyHandlerAreRecorded(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.an4})
	refusals := map[string]int{
		"POST /v1/models HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n":                               400,
		"POST /v1/models HTTP/1.1\r\nHost: x\r\nContent-Length: 0x10\r\n\r\n":                             400,
		"POST /v1/models HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: identity\r\n\r\n":                      501,
		"GET /v1/models HTTP/2.0\r\nHost: x\r\n\r\n":                                                      505,
		"GET /v1/models HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n":                                           400,
		"GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n":                                                            400,
		"GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Request-ID: a\x00b\r\n\r\n":                              400,
		"POST /v1/models HTTP/1.1\r\nHost: x\r\nExpect: foo\r\nContent-Length: 2\r\n\r\n{}":               417,
		"GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/models HTTP/1.1\r\nHost: x\r\n\r\nGET\r\n\r\n": 400, // two served, then a bad line
	}
	want := map[int]int{}
	for req, status := range refusals {
		answers, _ := rawExchange(t, p.URL, req, 3*time.Second)
		if len(answers) == 0 || answers[len(answers)-1].StatusCode != status {
			t.Errorf("%q: %d answers, want the last %d", req, len(answers), status)
		}
		want[status]++
	}
	p.Stop(t)
	got := map[int]int{}
	for _, r := range readRecords(t, p)[p.StartupRecords:] {
		if r.ErrorCode == contract.CodeMalformedRequest {
			got[r.Status]++
			if !strings.HasPrefix(r.RequestID, "srv-") || r.Route != "" {
				t.Errorf("refusal record %+v: want a server id and no route", r)
			}
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("refusal records by status %v, want %v", got, want)
	}
}
