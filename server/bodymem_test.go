package server

import (
	"bytes"
	"errors"
	"testing"
)

// TestBodyMemoryBoundsBuffersAcrossRequests: two bodies share the bound; the one that would pass
// it is refused while it is read, and a released account gives its bytes back. A 200 KiB body
// holds its last buffer (doubling stops at the limit, one byte more than the body) and the
// 64 and 128 KiB ones it outgrew.
func TestBodyMemoryBoundsBuffersAcrossRequests(t *testing.T) {
	mem := &bodyMemory{limit: 600 << 10}
	a, b := &bodyAccount{mem: mem}, &bodyAccount{mem: mem}
	body := bytes.Repeat([]byte{'x'}, 200<<10)
	if got, err := readInto(bytes.NewReader(body), make([]byte, firstReadBytes), len(body)+1, nil, a); err != nil || len(got) != len(body) {
		t.Fatalf("first body: %d bytes, %v", len(got), err)
	}
	if want := int64(64<<10 + 128<<10 + len(body) + 1); a.held != want {
		t.Fatalf("first body holds %d bytes in its account, want %d (its buffer and the ones it outgrew)", a.held, want)
	}
	if _, err := readInto(bytes.NewReader(body), make([]byte, firstReadBytes), len(body)+1, nil, b); !errors.Is(err, errBodyMemory) {
		t.Fatalf("second body past the bound: %v, want errBodyMemory", err)
	}
	a.release()
	b.release()
	if used := mem.used.Load(); used != 0 {
		t.Fatalf("%d bytes still counted after release", used)
	}
	if _, err := readInto(bytes.NewReader(body), make([]byte, firstReadBytes), len(body)+1, nil, b); err != nil {
		t.Fatalf("after release: %v", err)
	}
}
