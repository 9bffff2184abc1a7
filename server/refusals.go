package server

import (
	"bytes"
	"context"
	"net"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
)

// net/http answers some requests on its own, before any handler runs (a malformed request line
// or Content-Length, an unsupported Transfer-Encoding or version, a bad Host, headers over the
// limit, an Expect other than 100-continue). What the server can see of them is the answer
// net/http writes on the connection: Listener records each one (status, no route, a server id)
// before passing it on. A connection expects one answer per handler call; an answer written
// when none is expected is one of these.

// Listener wraps ln so that the answers net/http gives without a handler are recorded too. Use
// it with ConnContext on the same http.Server.
func (s *Server) Listener(ln net.Listener) net.Listener { return refusalListener{ln, s} }

// ConnContext lets the handlers of a connection tell it an answer of theirs is coming.
func (s *Server) ConnContext(ctx context.Context, c net.Conn) context.Context {
	if rc, ok := c.(*refusalConn); ok {
		return context.WithValue(ctx, refusalConnKey{}, rc)
	}
	return ctx
}

type refusalConnKey struct{}

type refusalListener struct {
	net.Listener
	s *Server
}

func (l refusalListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &refusalConn{Conn: c, s: l.s}, nil
}

// refusalConn counts the answers its handlers owe.
type refusalConn struct {
	net.Conn
	s        *Server
	expected atomic.Int64
	// broken is set once a write failed: the peer is gone (clientWatch's probes read it).
	broken atomic.Bool
}

// expectAnswer is called by a handler before it answers.
func expectAnswer(ctx context.Context) {
	if c, ok := ctx.Value(refusalConnKey{}).(*refusalConn); ok {
		c.expected.Add(1)
	}
}

var (
	statusLinePrefix = []byte("HTTP/1.")
	closeHeader      = []byte("\r\nConnection: close\r\n")
)

// Write passes every byte on; the start of an answer no handler owes is recorded first. Each
// answer starts a Write of its own: net/http flushes one answer whole before it reads the next
// request, and writes its own refusals straight to the connection, whole, always closing it
// (which a later Write of an answer's body would also have to say to be taken for one).
func (c *refusalConn) Write(p []byte) (int, error) {
	if len(p) >= 12 && bytes.HasPrefix(p, statusLinePrefix) && p[8] == ' ' {
		if status, err := strconv.Atoi(string(p[9:12])); err == nil && status >= 200 { // 1xx: interim
			if c.expected.Add(-1) < 0 {
				c.expected.Add(1)
				if bytes.Contains(p[:min(len(p), 512)], closeHeader) {
					c.s.recordRefusal(status)
				}
			}
		}
	}
	n, err := c.Conn.Write(p)
	if err != nil {
		c.broken.Store(true)
	}
	return n, err
}

// CloseWrite shuts the write side, as net/http does (through this interface) before it closes
// a connection whose request body was left unread, so the client sees the answer end first.
func (c *refusalConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// recordRefusal writes the record of an answer net/http gave on its own.
func (s *Server) recordRefusal(status int) {
	now := time.Now().UnixNano()
	rec := &contract.Record{RequestID: generateRequestID(), Attempt: 1, Status: status, ErrorCode: contract.CodeMalformedRequest,
		StartUnixNS: now, EndUnixNS: now}
	if err := s.records.write(rec); err != nil {
		s.log.Error("record of a request refused by net/http not written", "status", status, "err", err)
	}
	s.metrics.requests.WithLabelValues("", "", strconv.Itoa(status)).Inc()
	s.metrics.errors.WithLabelValues(contract.CodeMalformedRequest).Inc()
}
