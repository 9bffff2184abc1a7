package server

import (
	"crypto/rand"
	"encoding/hex"
	"hash/maphash"
	"net/http"
	"regexp"
	"strings"
	"sync"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
)

// requestIDPattern is TRTMC's: an incoming X-Request-ID matching it is honored.
var requestIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$`)

// serverIDPrefix starts every id the server makes up. A client may not send an id with it, so
// a generated id can never be taken by a client (it is unique by its 96 random bits) and the
// ledger spends no memory on generated ids.
const serverIDPrefix = "srv-"

// DefaultRequestIDMemory is how many client request ids the server remembers by default.
const DefaultRequestIDMemory = 1 << 20

// idKey is a 128-bit keyed hash of a request id: two independent maphash seeds, so that a
// collision between two different ids (which would refuse a fresh id) has probability ~2^-128
// per pair, and the ledger costs 16 bytes per id however long the ids are.
type idKey [2]uint64

// idEntry is what the ledger knows of one id: how many requests carried it, and whether the
// id is held (in flight, or used by a request that was answered other than by a retryable
// refusal).
type idEntry struct {
	attempts uint32
	held     bool
}

// idLedger remembers the client request ids the server has seen during its lifetime, so that
// a reused id is refused and every id joins at most one answered request (server/README.md,
// "Request ids"). Memory is bounded: it keeps the newest `limit` ids in a ring (about 56 bytes
// each with the map, ~56 MiB at the default 2^20); past that the oldest id is forgotten and
// could be accepted again. forgotten counts them, so that a run long enough to reach the cap is
// visible in /metrics.
type idLedger struct {
	mu        sync.Mutex
	seeds     [2]maphash.Seed
	seen      map[idKey]idEntry
	ring      []idKey
	next      int
	limit     int
	forgotten uint64
}

func newIDLedger(limit int) *idLedger {
	if limit <= 0 {
		limit = DefaultRequestIDMemory
	}
	return &idLedger{seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}, seen: map[idKey]idEntry{}, limit: limit}
}

func (l *idLedger) key(id string) idKey {
	return idKey{maphash.String(l.seeds[0], id), maphash.String(l.seeds[1], id)}
}

// claim holds id for one request and returns its attempt number (1 for the first request that
// carried it); ok is false while another request holds it or once it was used.
func (l *idLedger) claim(id string) (attempt int, ok bool) {
	k := l.key(id)
	l.mu.Lock()
	defer l.mu.Unlock()
	e, known := l.seen[k]
	if e.held {
		return 0, false
	}
	e.attempts++
	e.held = true
	l.seen[k] = e
	if !known {
		l.remember(k)
	}
	return int(e.attempts), true
}

// remember puts a new key in the ring, forgetting the oldest past the cap.
func (l *idLedger) remember(k idKey) {
	if len(l.ring) < l.limit {
		l.ring = append(l.ring, k)
		return
	}
	delete(l.seen, l.ring[l.next])
	l.ring[l.next] = k
	l.next = (l.next + 1) % l.limit
	l.forgotten++
}

// release frees a held id for a retry, keeping its attempt count.
func (l *idLedger) release(id string) {
	k := l.key(id)
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.seen[k]; ok {
		e.held = false
		l.seen[k] = e
	}
}

// forgottenCount is how many ids were dropped to keep the ledger under its cap.
func (l *idLedger) forgottenCount() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.forgotten
}

// generateRequestID makes a server-side id for requests that brought none (or a refused one).
func generateRequestID() string {
	var b [12]byte
	rand.Read(b[:])
	return serverIDPrefix + hex.EncodeToString(b[:])
}

// incomingID is the client's X-Request-ID ("" when it sent none). Two header lines, a value
// off the pattern or one with the server's prefix are refused: the id is then recorded as
// client_request_id only, cut to 128 bytes (several lines joined by ", ").
func incomingID(h http.Header) (id, refused string, err error) {
	values := h.Values("X-Request-ID")
	switch {
	case len(values) == 0 || len(values) == 1 && values[0] == "":
		return "", "", nil
	case len(values) > 1:
		return "", truncate(strings.Join(values, ", "), 128), badRequest(contract.CodeInvalidRequestID,
			"X-Request-ID appears %d times: send exactly one", len(values))
	case !requestIDPattern.MatchString(values[0]):
		return "", truncate(values[0], 128), badRequest(contract.CodeInvalidRequestID, "X-Request-ID must match %s", requestIDPattern)
	case strings.HasPrefix(values[0], serverIDPrefix):
		return "", values[0], badRequest(contract.CodeInvalidRequestID,
			"X-Request-ID %q starts with %q, which only the server's own ids use", values[0], serverIDPrefix)
	}
	return values[0], "", nil
}
