package server

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
)

// TestIDLedgerRefusesReuseAndForgetsOnlyPastItsCap: within the cap every id is single-use;
// past it the oldest ids are forgotten first, one per new id, and counted.
func TestIDLedgerRefusesReuseAndForgetsOnlyPastItsCap(t *testing.T) {
	l := newIDLedger(4)
	claim := func(id string) bool { _, ok := l.claim(id); return ok }
	for i := range 4 {
		if !claim(fmt.Sprint("id-", i)) {
			t.Fatalf("fresh id-%d refused", i)
		}
	}
	for i := range 4 {
		if claim(fmt.Sprint("id-", i)) {
			t.Fatalf("reused id-%d accepted within the cap", i)
		}
	}
	if !claim("id-4") || l.forgottenCount() != 1 {
		t.Fatalf("id-4: forgotten %d, want 1", l.forgottenCount())
	}
	if !claim("id-0") { // the oldest was forgotten to make room for id-4
		t.Fatal("id-0 still remembered past the cap")
	}
	if claim("id-2") || claim("id-4") {
		t.Fatal("a newer id was forgotten before the oldest")
	}
	if len(l.ring) != 4 || len(l.seen) != 4 {
		t.Fatalf("ledger holds %d/%d entries, cap 4", len(l.ring), len(l.seen))
	}
}

// TestReleasedIDIsClaimedAgainWithTheNextAttempt: a released id is free again, its attempt
// number counts on, and releasing it takes no second ring slot.
func TestReleasedIDIsClaimedAgainWithTheNextAttempt(t *testing.T) {
	l := newIDLedger(4)
	for want := 1; want <= 3; want++ {
		got, ok := l.claim("retried")
		if !ok || got != want {
			t.Fatalf("claim %d: attempt %d ok %v", want, got, ok)
		}
		if _, ok := l.claim("retried"); ok {
			t.Fatalf("a held id was claimed twice (attempt %d)", want)
		}
		l.release("retried")
	}
	if len(l.ring) != 1 {
		t.Fatalf("ring holds %d entries for one id", len(l.ring))
	}
}

func TestIncomingIDRefusesTwoHeadersTheServerPrefixAndBadValues(t *testing.T) {
	for _, c := range []struct {
		values  []string
		id      string
		refused bool
	}{
		{nil, "", false}, {[]string{""}, "", false}, {[]string{"abc-1"}, "abc-1", false},
		{[]string{"a", "b"}, "", true}, {[]string{"a", "a"}, "", true},
		{[]string{"srv-0123"}, "", true}, {[]string{"has space"}, "", true},
	} {
		h := http.Header{}
		for _, v := range c.values {
			h.Add("X-Request-ID", v)
		}
		id, _, err := incomingID(h)
		if id != c.id || (err != nil) != c.refused {
			t.Errorf("%q: id %q err %v", c.values, id, err)
		}
		if err != nil && asAPIError(err).Code != contract.CodeInvalidRequestID {
			t.Errorf("%q: code %s", c.values, asAPIError(err).Code)
		}
	}
}
