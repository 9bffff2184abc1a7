package server_test

// D11: a client that shuts its write side after a complete request and keeps reading is
// answered; one that closes its socket is not (server/README.md, "Clients that go away").

import (
	"bufio"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/server"
	st "github.com/trtmc-qual/trtmc-qual/server/servertest"
)

// sendRaw writes req on a fresh connection to the server.
func sendRaw(t *testing.T, url string, req *http.Request) *net.TCPConn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := req.Write(conn); err != nil {
		t.Fatal(err)
	}
	return conn.(*net.TCPConn)
}

// readFinal reads the answers on conn up to the final one and counts the 1xx before it.
func readFinal(t *testing.T, conn net.Conn, req *http.Request) (final *http.Response, interim int) {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(60 * time.Second))
	br := bufio.NewReader(conn)
	for {
		resp, err := http.ReadResponse(br, req)
		if err != nil {
			t.Fatalf("after %d interim answers: %v", interim, err)
		}
		if resp.StatusCode >= 200 {
			return resp, interim
		}
		interim++
	}
}

// A half-closed HTTP/1.1 client that keeps reading gets its 200 and the request its one
// record with status 200 (it got 499 and the Task's work was thrown away).
func TestHalfClosedClientGetsItsAnswer(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.enUS})
	req := withID(transcription(t, p.URL, "sphinx-en-us", longClip(t)), "half-closed")
	conn := sendRaw(t, p.URL, req)
	if err := conn.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	resp, interim := readFinal(t, conn, req)
	resp.Body.Close()
	t.Logf("half-closed client: %d after %d interim 100s", resp.StatusCode, interim)
	if resp.StatusCode != 200 {
		t.Errorf("half-closed client: %d, want 200", resp.StatusCode)
	}
	if interim == 0 {
		t.Errorf("no 100 Continue before the answer: the server never probed the half-closed client")
	}
	p.Stop(t)
	byID, _ := recordsByID(t, p)
	if recs := byID["half-closed"]; len(recs) != 1 || recs[0].Status != 200 || recs[0].Output == nil || recs[0].Output.Text == "" {
		t.Errorf("records of the half-closed request: %+v, want one 200 with its transcript", recs)
	}
}

// A client that closes its socket while its Task runs is still gone: the Task stops early and
// the request is recorded 499 (the probes must not keep a closed client's Task running).
func TestClosedClientStopsItsTask(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{imageBundle(t, "procdiff-base")})
	req := withID(st.JSONPost(t, p.URL+"/v1/images/generations", `{"model":"procdiff-base","prompt":"a lighthouse","n":4,"num_inference_steps":50}`), "closed-mid-task")
	conn := sendRaw(t, p.URL, req)
	waitGauge(t, p.URL, "trtmc_task_calls_running", 1)
	conn.Close() // a FIN, as a client that gives up sends: a reset would be told at once
	closed := time.Now()
	waitGauge(t, p.URL, `trtmc_task_cancelled_total{model="procdiff-base",task="text_to_image"}`, 1)
	t.Logf("Task cancelled within %v of the close", time.Since(closed).Round(time.Millisecond))
	p.Stop(t)
	byID, _ := recordsByID(t, p)
	if recs := byID["closed-mid-task"]; len(recs) != 1 || recs[0].Status != server.StatusClientClosedRequest || recs[0].ErrorCode != contract.CodeClientClosed {
		t.Errorf("records of the closed client: %+v, want one 499 %s", recs, contract.CodeClientClosed)
	}
}

// An HTTP/1.0 request may not be sent a 1xx: its half-close stays an abort (499, recorded).
func TestHalfClosedHTTP10ClientIsGone(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.enUS})
	req := withID(transcription(t, p.URL, "sphinx-en-us", longClip(t)), "half-closed-1.0")
	conn, err := net.Dial("tcp", strings.TrimPrefix(p.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Request.Write always says HTTP/1.1; write the same request as HTTP/1.0.
	var raw strings.Builder
	if err := req.Write(&raw); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Write([]byte(strings.Replace(raw.String(), " HTTP/1.1\r\n", " HTTP/1.0\r\n", 1))); err != nil {
		t.Fatal(err)
	}
	conn.(*net.TCPConn).CloseWrite()
	resp, interim := readFinal(t, conn, req)
	resp.Body.Close()
	if resp.StatusCode != server.StatusClientClosedRequest || interim != 0 {
		t.Errorf("half-closed HTTP/1.0 client: %d after %d interim answers, want 499 and none", resp.StatusCode, interim)
	}
}

// A client that does not half-close (AIPerf's aiohttp, the SDKs) never sees a 1xx.
func TestOrdinaryClientsSeeNoInterimAnswer(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.enUS})
	var interim []int
	trace := &httptrace.ClientTrace{Got1xxResponse: func(code int, _ textproto.MIMEHeader) error {
		interim = append(interim, code)
		return nil
	}}
	for range 3 {
		req := transcription(t, p.URL, "sphinx-en-us", longClip(t))
		req = req.WithContext(httptrace.WithClientTrace(req.Context(), trace))
		if r := st.Do(t, req); r.Status != 200 {
			t.Fatalf("transcription: %d %s", r.Status, r.Body)
		}
	}
	if len(interim) > 0 {
		t.Errorf("an ordinary client got interim answers %v", interim)
	}
}
