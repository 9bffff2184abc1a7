package server

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"unsafe"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/native/audio"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// DefaultBodyMemoryBytes is the default bound of request-body buffers held at once: eight
// 32 MiB bodies, or hundreds of ordinary clips.
const DefaultBodyMemoryBytes = 256 << 20

// errBodyMemory is a body refused because the bodies being held already fill the bound.
var errBodyMemory = errors.New("request bodies held in memory are at their bound")

// This file is the one accounting path of what a request holds. Every buffer a request
// allocates because of its body — body bytes, a decoded clip, its samples, multipart fields,
// the JSON text and what decoding it builds, and each buffer it outgrew (garbage until a
// collection, so still in the heap) — is taken from its account before it is allocated, in
// the bytes actually received or decoded so far (never a size a client declares, never a
// floor per string). Repeated elements are counted here too, so that no count of tiny
// elements can cost more than the bytes they came in.

// bodyMemory bounds the bytes of request-body buffers held at once across requests, so that
// many concurrent large bodies (declared or chunked) cannot take memory without bound: each
// buffer is taken from it as it grows with the bytes received, and given back when its
// handler returns.
type bodyMemory struct {
	limit int64
	used  atomic.Int64
}

// bodyAccount is one request's share of the body memory.
type bodyAccount struct {
	mem  *bodyMemory
	held int64
}

// take counts n more bytes for this request; errBodyMemory when the bound would be passed.
// A nil account counts nothing.
func (a *bodyAccount) take(n int) error {
	if a == nil || n <= 0 {
		return nil
	}
	if used := a.mem.used.Add(int64(n)); used > a.mem.limit {
		a.mem.used.Add(-int64(n))
		return fmt.Errorf("%w (%d MiB)", errBodyMemory, a.mem.limit>>20)
	}
	a.held += int64(n)
	return nil
}

// release gives this request's bytes back.
func (a *bodyAccount) release() {
	if a != nil {
		a.mem.used.Add(-a.held)
		a.held = 0
	}
}

// accountOf is the body memory account of a request body (nil when it has none).
func accountOf(body any) *bodyAccount {
	if sb, ok := body.(sizedBody); ok {
		return sb.acct
	}
	return nil
}

// allocate is a slice of n elements, taken from the account first.
func allocate[T any](a *bodyAccount, n int) ([]T, error) {
	var zero T
	if err := a.take(n * int(unsafe.Sizeof(zero))); err != nil {
		return nil, err
	}
	return make([]T, n), nil
}

// grow is buf with room for at least need elements in all, up to limit: its capacity doubles
// from what it holds (no floor: three bytes received hold a buffer of three), and the new
// buffer is taken whole, the one it replaces not given back (garbage until a collection, so
// a buffer grown to 16 MiB has taken 32).
func grow[T any](a *bodyAccount, buf []T, need, limit int) ([]T, error) {
	if need <= cap(buf) {
		return buf, nil
	}
	size := max(2*cap(buf), need)
	size = max(min(size, limit), need)
	grown, err := allocate[T](a, size)
	if err != nil {
		return nil, err
	}
	return grown[:copy(grown, buf)], nil
}

// readInto reads r to its end into buf, growing it (grow) as bytes arrive, up to end bytes,
// one more than the limit: filling end bytes is errTooLarge. buf's capacity, up to end, is
// taken from acct first (a pooled buffer counts only what this body can fill). arrived, if
// not nil, sees what has been read so far after every read; its error ends the read.
func readInto(r io.Reader, buf []byte, end int, arrived func([]byte) error, acct *bodyAccount) ([]byte, error) {
	buf = buf[:0:min(cap(buf), end)]
	if err := acct.take(cap(buf)); err != nil {
		return nil, err
	}
	// Not io.ReadFull: it would pass a short body's io.ErrUnexpectedEOF off as a clean end.
	for {
		if len(buf) == cap(buf) {
			var err error
			if buf, err = grow(acct, buf, len(buf)+1, end); err != nil {
				return nil, err
			}
		}
		m, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if m > 0 && arrived != nil && len(buf) < end {
			if aerr := arrived(buf); aerr != nil {
				return nil, aerr
			}
		}
		switch {
		case len(buf) >= end: // one byte more than the limit (or than the body) arrived, even with EOF
			return nil, errTooLarge
		case errors.Is(err, io.EOF):
			return buf, nil
		case err != nil:
			return nil, err
		}
	}
}

// Count limits of repeated elements. Each bounds what a count of small elements costs beyond
// their bytes (a slice header, a struct, a map entry, a token's work), far above what any
// request of the contract holds: one clip, a few messages of a few parts, eight form fields.
const (
	// maxChatAudios: input_audio data strings in one chat body (each is a buffer of its own).
	maxChatAudios = 32
	// maxJSONArrayElements: elements of one JSON array (messages, content parts, ...).
	maxJSONArrayElements = 256
	// maxJSONValues: values (objects, arrays, strings, numbers, literals) in one JSON body.
	maxJSONValues = 4096
	// maxFormParts: parts of one multipart body (fields and timestamp_granularities[] values).
	maxFormParts = 16
	// maxPartHeaderBytes: what multipart may read for one part's boundary and headers.
	maxPartHeaderBytes = 16 << 10
)

// jsonValueBytes is what a decoded JSON value costs beyond its text, at most: a slice or
// string header, an interface, a struct field.
const jsonValueBytes = 64

// errTooMany is a repeated element past its count limit: 413 too_many_elements.
func errTooMany(max int, what string) *apiError {
	return newError(http.StatusRequestEntityTooLarge, contract.CodeTooManyElements, "more than %d %s in one request", max, what)
}

// sampleAlloc hands out sample buffers taken from a request's account; a refusal is kept in
// err (an audio.Stream's allocator cannot return one) and the stream gets none.
type sampleAlloc struct {
	acct *bodyAccount
	from func(n int) []float32 // a pool's, or nil
	err  error
}

func accountedSamples(acct *bodyAccount, from func(n int) []float32) *sampleAlloc {
	return &sampleAlloc{acct: acct, from: from}
}

func (s *sampleAlloc) get(n int) []float32 {
	if s.err = s.acct.take(4 * n); s.err != nil {
		return nil
	}
	if s.from != nil {
		return s.from(n)
	}
	return make([]float32, n)
}

// finishClip decodes a complete WAV whose stream has seen it arrive: the samples its decode
// still has to allocate (none when they were converted as the bytes came) are taken first.
func finishClip(stream *audio.Stream, wav []byte, acct *bodyAccount) (task.Audio, string, error) {
	if err := acct.take(stream.FinishAllocates(wav)); err != nil {
		return task.Audio{}, "", bodyError(err, contract.CodeInvalidJSON, "%v", err) // 429
	}
	return stream.Finish(wav)
}

// What a header line costs in net/http's parsed map beyond its text: a new key is a map entry
// (its slot, the canonical key's string and a value slice, with the map's growth), each value a
// string header in its key's slice (doubled as the slice grows). Measured at --gc-percent 1:
// 75-100 bytes a line of distinct short keys, 30-50 a line of one key repeated; rounded up.
const (
	headerKeyHeapBytes   = 80
	headerValueHeapBytes = 48
)

// headerHeapBytes is the heap a request's parsed header map holds.
func headerHeapBytes(h http.Header) int {
	n := 0
	for k, vs := range h {
		n += len(k) + headerKeyHeapBytes
		for _, v := range vs {
			n += len(v) + headerValueHeapBytes
		}
	}
	return n
}
