package server

import (
	"crypto/rand"
	"encoding/hex"
	"regexp"
	"sync"
)

// requestIDPattern is TRTMC's: an incoming X-Request-ID matching it is honored.
var requestIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$`)

// inFlight tracks request ids being served, so a duplicate is refused while the first runs.
type inFlight struct {
	mu  sync.Mutex
	ids map[string]struct{}
}

func newInFlight() *inFlight { return &inFlight{ids: map[string]struct{}{}} }

// claim registers id; false when it is already in flight.
func (f *inFlight) claim(id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, dup := f.ids[id]; dup {
		return false
	}
	f.ids[id] = struct{}{}
	return true
}

func (f *inFlight) release(id string) {
	f.mu.Lock()
	delete(f.ids, id)
	f.mu.Unlock()
}

// generateRequestID makes a server-side id for requests that brought none (or a bad one).
func generateRequestID() string {
	var b [12]byte
	rand.Read(b[:])
	return "srv-" + hex.EncodeToString(b[:])
}
