package server

import (
	"crypto/rand"
	"encoding/hex"
	"hash/maphash"
	"regexp"
	"sync"
)

// requestIDPattern is TRTMC's: an incoming X-Request-ID matching it is honored.
var requestIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$`)

// DefaultRequestIDMemory is how many client request ids the server remembers by default.
const DefaultRequestIDMemory = 1 << 20

// idKey is a 128-bit keyed hash of a request id: two independent maphash seeds, so that a
// collision between two different ids (which would refuse a fresh id) has probability ~2^-128
// per pair, and the ledger costs 16 bytes per id however long the ids are.
type idKey [2]uint64

// idLedger remembers the client request ids the server has seen during its lifetime, so that
// a reused id is refused and every id joins at most one record. Memory is bounded: it keeps
// the newest `limit` ids in a ring (about 48 bytes each with the map, ~48 MiB at the default
// 2^20); past that the oldest id is forgotten and could be accepted again. forgotten counts
// them, so that a run long enough to reach the cap is visible in /metrics.
type idLedger struct {
	mu        sync.Mutex
	seeds     [2]maphash.Seed
	seen      map[idKey]struct{}
	ring      []idKey
	next      int
	limit     int
	forgotten uint64
}

func newIDLedger(limit int) *idLedger {
	if limit <= 0 {
		limit = DefaultRequestIDMemory
	}
	return &idLedger{seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}, seen: map[idKey]struct{}{}, limit: limit}
}

// claim records id; false when the server has already seen it.
func (l *idLedger) claim(id string) bool {
	k := idKey{maphash.String(l.seeds[0], id), maphash.String(l.seeds[1], id)}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, dup := l.seen[k]; dup {
		return false
	}
	l.seen[k] = struct{}{}
	if len(l.ring) < l.limit {
		l.ring = append(l.ring, k)
		return true
	}
	delete(l.seen, l.ring[l.next])
	l.ring[l.next] = k
	l.next = (l.next + 1) % l.limit
	l.forgotten++
	return true
}

// forgottenCount is how many ids were dropped to keep the ledger under its cap.
func (l *idLedger) forgottenCount() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.forgotten
}

// generateRequestID makes a server-side id for requests that brought none (or a bad one).
func generateRequestID() string {
	var b [12]byte
	rand.Read(b[:])
	return "srv-" + hex.EncodeToString(b[:])
}
