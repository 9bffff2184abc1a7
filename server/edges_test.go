package server_test

// Regression tests on the real binary for the third attacker's HTTP-edge and identity defects
// (open-route ids, framing by protocol version, a client that never reads, the method in the
// records, url images of a failed answer, framed input identities). Each attacks its class:
// every open route, every protocol version and framing, every route for the method.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	st "github.com/trtmc-qual/trtmc-qual/server/servertest"
)

// Open routes answer anyone, so they claim no client id: every open route answers a keyless
// client under a server id (the client's value kept in client_request_id), the keyed client
// can still use that id, keyless traffic cannot push the keyed client's ids out of the ledger,
// and a refused artifact fetch is not recorded under the client's id.
func TestOpenRoutesClaimNoRequestID(t *testing.T) {
	f := setup(t)
	p := startWithKey(t, f.server, []string{f.an4}, "s3cret", "--request-id-memory", "50")
	open := []string{"/health/live", "/health/ready", "/v1/artifacts/0123456789abcdef0123456789abcdef.png",
		"/v1/artifacts/0123456789abcdef0123456789abcdef.png?expires=1&signature=00", "/v1/artifacts/../x"}
	keyed := func(id string) st.Response {
		req := withID(get(t, p.URL+"/v1/models"), id)
		req.Header.Set("Authorization", "Bearer s3cret")
		return st.Do(t, req)
	}
	for i, path := range open {
		id := fmt.Sprintf("open-%d", i)
		r := st.Do(t, withID(get(t, p.URL+path), id))
		if got := r.Header.Get("X-Request-ID"); !strings.HasPrefix(got, "srv-") {
			t.Errorf("GET %s with X-Request-ID %s: answered under %q (%d), want a server id", path, id, got, r.Status)
		}
		if r := keyed(id); r.Status != 200 {
			t.Errorf("keyed client's id %s after a keyless %s carried it: %d %s, want 200", id, path, r.Status, r.Body)
		}
	}
	if r := keyed("mine"); r.Status != 200 {
		t.Fatalf("mine: %d %s", r.Status, r.Body)
	}
	for i := range 60 {
		st.Do(t, withID(get(t, p.URL+open[i%len(open)]), fmt.Sprintf("keyless-%d", i)))
	}
	if r := keyed("mine"); r.Status != 400 || r.ErrorCode() != contract.CodeDuplicateRequestID {
		t.Errorf("mine reused after 60 open-route requests: %d %s, want 400 duplicate_request_id", r.Status, r.Body)
	}
	p.Stop(t)
	byID, byClient := recordsByID(t, p)
	for i, path := range open {
		id := fmt.Sprintf("open-%d", i)
		if n := len(byID[id]); n != 1 || byID[id][0].Route != "/v1/models" {
			t.Errorf("records under %s: %+v, want only the keyed /v1/models", id, byID[id])
		}
		if n := len(byClient[id]); n != 1 || !strings.HasPrefix(byClient[id][0].RequestID, "srv-") {
			t.Errorf("GET %s: records with client_request_id %s: %+v, want one under a server id", path, id, byClient[id])
		}
	}
}

// Every protocol version and body framing, with keep-alive asked for: the bytes after a body
// are read as the next request only when the framing is unambiguous (HTTP/1.1, Content-Length
// alone). Otherwise the connection is closed after the answer and the request smuggled after
// the body is never served.
func TestAmbiguousFramingNeverServesTheBytesAfterTheBody(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.an4})
	const chunked = "2\r\n{}\r\n0\r\n\r\n"
	framings := map[string]string{
		"CL":    "Content-Length: 2\r\n\r\n{}",
		"TE":    "Transfer-Encoding: chunked\r\n\r\n" + chunked,
		"TE+CL": fmt.Sprintf("Transfer-Encoding: chunked\r\nContent-Length: %d\r\n\r\n%s", len(chunked), chunked),
		"CL+TE": fmt.Sprintf("Content-Length: %d\r\nTransfer-Encoding: chunked\r\n\r\n%s", len(chunked), chunked),
	}
	served := map[string]bool{}
	for _, proto := range []string{"HTTP/1.0", "HTTP/1.1"} {
		for name, framing := range framings {
			id := strings.NewReplacer("/", "", ".", "", "+", "").Replace(fmt.Sprintf("smuggled-%s-%s", proto, name))
			served[id] = proto == "HTTP/1.1" && name == "CL"
			req := fmt.Sprintf("POST /v1/chat/completions %s\r\nHost: x\r\nConnection: keep-alive\r\nContent-Type: application/json\r\n%s", proto, framing) +
				fmt.Sprintf("GET /v1/models %s\r\nHost: x\r\nX-Request-ID: %s\r\n\r\n", proto, id)
			answers, closed := rawExchange(t, p.URL, req, 3*time.Second)
			if !served[id] && (len(answers) != 1 || !closed) {
				t.Errorf("%s %s: %d answers, connection closed %v; want one answer and the connection closed", proto, name, len(answers), closed)
			}
		}
	}
	p.Stop(t)
	byID, _ := recordsByID(t, p)
	for id, want := range served {
		if got := len(byID[id]) > 0; got != want {
			t.Errorf("request after the body (%s) served %v, want %v", id, got, want)
		}
	}
}

// A client that pipelines requests and never reads its answers cannot hold its connection,
// its handler or the drain: the answer that no longer fits the socket times out, the connection
// closes, and SIGTERM drains in time and exits 0.
func TestClientThatNeverReadsCannotHoldTheDrain(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.an4}, "--drain-timeout", "20s", "--idle-timeout", "1s", "--header-timeout", "1s")
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	conn, err := d.Dial("tcp", strings.TrimPrefix(p.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	go func() { // a write that blocks once the server stops reading is left to the close
		req := []byte("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
		for range 4000 {
			if _, err := conn.Write(req); err != nil {
				return
			}
		}
	}()
	waitRecordsStop(t, p)
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := exitCode(p.Wait()); code != 0 {
		t.Errorf("exit status %d with a client that never reads, want 0 (a drain within its timeout)\n%s", code, p.Stderr())
	}
}

// waitRecordsStop waits until the records file stops growing: the server's answers no longer
// leave (the client does not read them).
func waitRecordsStop(t *testing.T, p *st.Process) {
	t.Helper()
	last := int64(-1)
	for range 100 {
		time.Sleep(200 * time.Millisecond)
		fi, err := os.Stat(p.Records)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() == last {
			return
		}
		last = fi.Size()
	}
	t.Fatal("the records never stopped growing: the socket never filled")
}

// The method of the request line is recorded cut, with its length, on every route: five
// requests with a 50 KB method (under the 64 KiB header limit) add a few KB to the records, not 250 KB.
func TestRecordedMethodIsCutWithItsLength(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.an4})
	method := strings.Repeat("M", 50_000)
	paths := []string{"/v1/models", "/v1/chat/completions", "/health/live", "/v1/artifacts/x.png", "/metrics", "/nowhere"}
	// Each exchange waits 3 s for a second answer that must not come: the six wait at once.
	answered := make([]int, len(paths))
	var wg sync.WaitGroup
	for i, path := range paths {
		wg.Go(func() {
			answers, _ := rawExchange(t, p.URL, fmt.Sprintf("%s %s HTTP/1.1\r\nHost: x\r\nX-Request-ID: method-%d\r\n\r\n", method, path, i), 3*time.Second)
			answered[i] = len(answers)
		})
	}
	wg.Wait()
	for i, path := range paths {
		if answered[i] != 1 {
			t.Fatalf("%s: %d answers", path, answered[i])
		}
	}
	p.Stop(t)
	data, err := os.ReadFile(p.Records)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := contract.ParseRecords(data)
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, r := range recs {
		if !strings.HasPrefix(r.Method, "MMMM") {
			continue
		}
		found++
		if len(r.Method) > contract.MaxRecordedMethodBytes || r.MethodBytes != len(method) {
			t.Errorf("record %s: method of %d bytes, method_bytes %d; want at most %d and %d", r.RequestID, len(r.Method), r.MethodBytes, contract.MaxRecordedMethodBytes, len(method))
		}
	}
	if found != len(paths) || len(data) > 64<<10 {
		t.Errorf("%d records of the long method (want %d), %d bytes of records", found, len(paths), len(data))
	}
}

// A url-image request refused part-way by the artifact quota leaves none of its images: they
// were never given out, so they must not hold the quota for their TTL.
func TestURLImagesOfARefusedAnswerAreReleased(t *testing.T) {
	f := setup(t)
	dir := t.TempDir()
	p := st.Start(t, f.server, []string{imageBundle(t, "procdiff-small-l0")}, "--artifact-dir", dir, "--artifact-max-files", "2")
	body := func(n int) string {
		return fmt.Sprintf(`{"model":"procdiff-small-l0","prompt":"kites","response_format":"url","n":%d}`, n)
	}
	if r := st.Do(t, st.JSONPost(t, p.URL+"/v1/images/generations", body(3))); r.Status != 507 || r.ErrorCode() != contract.CodeArtifactQuota {
		t.Fatalf("3 url images past a 2-file quota: %d %s, want 507", r.Status, r.Body)
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("%d artifacts left by the refused answer, want 0", len(files))
	}
	if r := st.Do(t, st.JSONPost(t, p.URL+"/v1/images/generations", body(2))); r.Status != 200 {
		t.Errorf("2 url images within the quota after the refusal: %d %s, want 200", r.Status, r.Body)
	}
}

// The other side of the same rule: url images whose answer became 503 records_unavailable
// (the record could not be written: a directory stood at the records path) were never given
// out, and are released too. They once held the quota for their TTL, and the next url image
// request, with the records back, was 507.
func TestURLImagesOfAnUnrecordedAnswerAreReleased(t *testing.T) {
	f := setup(t)
	dir := t.TempDir()
	p := st.Start(t, f.server, []string{imageBundle(t, "procdiff-small-l0")}, "--artifact-dir", dir, "--artifact-max-files", "1")
	body := `{"model":"procdiff-small-l0","prompt":"kites","response_format":"url"}`
	if err := os.Remove(p.Records); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(p.Records, 0o755); err != nil {
		t.Fatal(err)
	}
	if r := st.Do(t, st.JSONPost(t, p.URL+"/v1/images/generations", body)); r.Status != 503 || r.ErrorCode() != contract.CodeRecordsUnavailable {
		t.Fatalf("a url image with no records file to write: %d %s, want 503 %s", r.Status, r.Body, contract.CodeRecordsUnavailable)
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("%d artifacts left by the answer that was not sent, want 0", len(files))
	}
	if err := os.Remove(p.Records); err != nil {
		t.Fatal(err)
	}
	st.Do(t, get(t, p.URL+"/health/ready")) // its record reopens the path
	if r := st.Do(t, st.JSONPost(t, p.URL+"/v1/images/generations", body)); r.Status != 200 {
		t.Errorf("a url image within the quota once records are written again: %d %s, want 200", r.Status, r.Body)
	}
}

// An image request's identity cannot be shifted between its fields: a NUL moved from the prompt
// into the negative prompt gives another image and must give another input_sha256.
func TestImageIdentityIsFramed(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{imageBundle(t, "procdiff-small-l0")})
	for i, pair := range [][2]string{{`a red\u0000kite`, `blue`}, {`a red`, `kite\u0000blue`}} {
		req := st.JSONPost(t, p.URL+"/v1/images/generations", fmt.Sprintf(`{"model":"procdiff-small-l0","prompt":"%s","negative_prompt":"%s"}`, pair[0], pair[1]))
		if r := st.Do(t, withID(req, fmt.Sprintf("framed-%d", i))); r.Status != 200 {
			t.Fatalf("%v: %d %s", pair, r.Status, r.Body)
		}
	}
	p.Stop(t)
	byID, _ := recordsByID(t, p)
	a, b := byID["framed-0"], byID["framed-1"]
	if len(a) != 1 || len(b) != 1 || a[0].InputSHA256 == "" {
		t.Fatalf("records %+v %+v", a, b)
	}
	if a[0].InputSHA256 == b[0].InputSHA256 {
		t.Errorf("(\"a red\\0kite\", \"blue\") and (\"a red\", \"kite\\0blue\") share input_sha256 %s", a[0].InputSHA256)
	}
}

// A url image is a link to follow, whatever the request's framing: an HTTP/1.0 request may
// carry no Host and an HTTP/1.1 one an empty Host, and both were given "http:///v1/artifacts/…",
// which no client can fetch (and whose artifact held the quota for its TTL). Every way of
// naming the server — none, empty, a Host, an absolute-form target — must give a url that
// downloads the PNG.
func TestURLImagesCanBeFetchedWhateverTheHost(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{imageBundle(t, "procdiff-small-l0")})
	addr := strings.TrimPrefix(p.URL, "http://")
	body := `{"model":"procdiff-small-l0","prompt":"kites","response_format":"url"}`
	post := func(target, proto, host string) string {
		return fmt.Sprintf("POST %s %s\r\n%sContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", target, proto, host, len(body), body)
	}
	for name, req := range map[string]string{
		"HTTP/1.0, no Host":       post("/v1/images/generations", "HTTP/1.0", ""),
		"HTTP/1.0 with Host":      post("/v1/images/generations", "HTTP/1.0", "Host: "+addr+"\r\n"),
		"HTTP/1.1, empty Host":    post("/v1/images/generations", "HTTP/1.1", "Host: \r\n"),
		"HTTP/1.1 with Host":      post("/v1/images/generations", "HTTP/1.1", "Host: "+addr+"\r\n"),
		"HTTP/1.1, absolute-form": post(p.URL+"/v1/images/generations", "HTTP/1.1", "Host: "+addr+"\r\n"),
		"HTTP/1.0, absolute-form": post(p.URL+"/v1/images/generations", "HTTP/1.0", ""),
	} {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(30 * time.Second))
		io.WriteString(conn, req)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var got contract.ImagesResponse
		err = json.NewDecoder(resp.Body).Decode(&got)
		conn.Close()
		if err != nil || resp.StatusCode != 200 || len(got.Data) != 1 {
			t.Errorf("%s: %d %v %+v", name, resp.StatusCode, err, got)
			continue
		}
		img, err := http.Get(got.Data[0].URL)
		if err != nil {
			t.Errorf("%s: its url %s cannot be fetched: %v", name, got.Data[0].URL, err)
			continue
		}
		png, _ := io.ReadAll(img.Body)
		img.Body.Close()
		if img.StatusCode != 200 || !bytes.HasPrefix(png, []byte("\x89PNG")) {
			t.Errorf("%s: its url %s gave %d and %d bytes, want 200 and a PNG", name, got.Data[0].URL, img.StatusCode, len(png))
		}
	}
}

// A drain that times out answers every request left 503 shutting_down, including those still
// receiving their bodies: they were once cut only by the drain's last step, closing their
// connections, so the clients got no answer while the records said 503. Every route with a
// body, declared length and chunked.
func TestBodiesArrivingAtADrainTimeoutAnswer503(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.an4}, "--drain-timeout", "1s")
	held := []*heldRequest{
		hold(t, p.URL, "upload", formHead+"\r\nX-Request-ID: held-upload", 1<<20, false, []byte("--b")),
		hold(t, p.URL, "chunked upload", formHead+"\r\nX-Request-ID: held-chunked-upload", 0, true, []byte("--b")),
		hold(t, p.URL, "chat", chatHead+"\r\nX-Request-ID: held-chat", 0, true, []byte(`{"model":"x","messages":[`)),
		hold(t, p.URL, "image", imageHead+"\r\nX-Request-ID: held-image", 1000, false, []byte(`{"model":"x",`)),
	}
	settled(t, held, 10*time.Second)
	time.Sleep(500 * time.Millisecond)
	p.Signal(syscall.SIGTERM)
	if err := p.Wait(); err == nil {
		t.Errorf("a drain that timed out exited 0")
	}
	for _, h := range held {
		if got := h.result(5 * time.Second); got != "503 "+contract.CodeShuttingDown {
			t.Errorf("%s receiving its body at the drain timeout: %q, want 503 %s", h.name, got, contract.CodeShuttingDown)
		}
	}
	recs := map[string]int{}
	for _, l := range p.RecordLines(t) {
		var r contract.Record
		if json.Unmarshal([]byte(l), &r) == nil && strings.HasPrefix(r.RequestID, "held-") {
			recs[r.RequestID]++
			if r.Status != 503 || r.ErrorCode != contract.CodeShuttingDown {
				t.Errorf("record of %s: %d %s, want 503 %s", r.RequestID, r.Status, r.ErrorCode, contract.CodeShuttingDown)
			}
		}
	}
	if len(recs) != len(held) {
		t.Errorf("records of the held requests: %v, want one each of %d", recs, len(held))
	}
	for id, n := range recs {
		if n != 1 {
			t.Errorf("%s has %d records", id, n)
		}
	}
}
