package server

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// How a request's client is watched once net/http has seen the end of its connection's input
// (server/README.md, "Clients that go away"). net/http cancels a request's context when its
// background read hits EOF, and a FIN cannot tell a client that only shut its write side
// (half-close, still reading) from one that closed the socket: only writing can. The server
// writes "100 Continue" (RFC 9110 §15.2: an HTTP/1.1 client must parse a 1xx it did not ask
// for; §15.2.1: 100 says a final response follows). 100, not 103: Python's http.client skips
// only 100 before the final response (CPython Lib/http/client.py, HTTPResponse.begin), and 102
// is obsolete (RFC 4918 removed it). A closed socket answers the first write with a reset, so
// the write after it fails: the second probe comes shortly after the first.
const (
	// probeRecheck is the wait before the second probe: a loopback or LAN reset arrives well
	// within it; a slower one is caught by the next periodic probe.
	probeRecheck = 50 * time.Millisecond
	// probeInterval is the period of the probes while a half-closed client's request runs, so
	// that a later full close still stops its Task.
	probeInterval = time.Second
)

// clientWatch decides when a request's client is gone: its context ends then. It outlives
// the request's own context when the client only half-closed.
type clientWatch struct {
	ctx       context.Context
	cancel    context.CancelFunc
	stopAfter func() bool
	mu        sync.Mutex // held while probing; the handler's stop takes it back
	stopped   bool
	halt      chan struct{} // closed by stop: the probe loop returns
	request   context.Context
	judged    chan struct{} // closed once the first probes (or the stop) settled the client's state
	judgedOne sync.Once
}

// watchClient starts watching x's client. A request whose context ends is probed (HTTP/1.1,
// on a connection of Listener); an HTTP/1.0 request, which may not get a 1xx (RFC 9110
// §15.2), or one on another connection, is gone at its context's end. stop must be called
// before the handler writes to x.w again.
func (s *Server) watchClient(x *exchange) *clientWatch {
	ctx, cancel := context.WithCancel(context.WithoutCancel(x.r.Context()))
	cw := &clientWatch{ctx: ctx, cancel: cancel, halt: make(chan struct{}), request: x.r.Context(), judged: make(chan struct{})}
	conn, _ := x.r.Context().Value(refusalConnKey{}).(*refusalConn)
	if conn == nil || !x.r.ProtoAtLeast(1, 1) {
		cw.stopAfter = context.AfterFunc(x.r.Context(), func() { cancel(); cw.judge() })
		return cw
	}
	cw.stopAfter = context.AfterFunc(x.r.Context(), func() { cw.probeUntilGone(x.w, conn) })
	return cw
}

// gone says the client was judged gone.
func (cw *clientWatch) gone() bool { return cw.ctx.Err() != nil }

// settled waits, when the request's context has already ended, until the first probes have
// judged the client, so that no Task call starts for a client already gone.
func (cw *clientWatch) settled() {
	if cw.request.Err() != nil {
		<-cw.judged
	}
}

func (cw *clientWatch) judge() { cw.judgedOne.Do(func() { close(cw.judged) }) }

// probeUntilGone probes now, after probeRecheck, then every probeInterval until a probe
// fails (the client is gone: the watch's context ends) or the watch is stopped.
func (cw *clientWatch) probeUntilGone(w http.ResponseWriter, conn *refusalConn) {
	defer cw.judge()
	wait := probeRecheck
	for probes := 1; ; probes++ {
		alive, stopped := cw.probe(w, conn)
		if stopped {
			return
		}
		if !alive {
			cw.cancel()
			return
		}
		if probes == 2 {
			cw.judge() // half-closed: the client still takes what is written
		}
		select {
		case <-cw.halt:
			return
		case <-time.After(wait):
		}
		wait = probeInterval
	}
}

// probe writes one interim 100 response and says whether the connection took it.
func (cw *clientWatch) probe(w http.ResponseWriter, conn *refusalConn) (alive, stopped bool) {
	cw.mu.Lock()
	defer cw.mu.Unlock()
	if cw.stopped {
		return false, true
	}
	w.WriteHeader(http.StatusContinue) // written and flushed at once by net/http
	return !conn.broken.Load(), false
}

// stop ends the watch: once it returns, nothing of it writes to the response again.
func (cw *clientWatch) stop() {
	if cw.stopAfter() {
		return // the request's context had not ended: no probe ever ran
	}
	cw.mu.Lock()
	defer cw.mu.Unlock()
	if !cw.stopped {
		cw.stopped = true
		close(cw.halt)
	}
	cw.judge()
}
