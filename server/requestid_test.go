package server

import (
	"fmt"
	"testing"
)

// TestIDLedgerRefusesReuseAndForgetsOnlyPastItsCap: within the cap every id is single-use;
// past it the oldest ids are forgotten first, one per new id, and counted.
func TestIDLedgerRefusesReuseAndForgetsOnlyPastItsCap(t *testing.T) {
	l := newIDLedger(4)
	for i := range 4 {
		if !l.claim(fmt.Sprint("id-", i)) {
			t.Fatalf("fresh id-%d refused", i)
		}
	}
	for i := range 4 {
		if l.claim(fmt.Sprint("id-", i)) {
			t.Fatalf("reused id-%d accepted within the cap", i)
		}
	}
	if !l.claim("id-4") || l.forgottenCount() != 1 {
		t.Fatalf("id-4: forgotten %d, want 1", l.forgottenCount())
	}
	if !l.claim("id-0") { // the oldest was forgotten to make room for id-4
		t.Fatal("id-0 still remembered past the cap")
	}
	if l.claim("id-2") || l.claim("id-4") {
		t.Fatal("a newer id was forgotten before the oldest")
	}
	if len(l.ring) != 4 || len(l.seen) != 4 {
		t.Fatalf("ledger holds %d/%d entries, cap 4", len(l.ring), len(l.seen))
	}
}
