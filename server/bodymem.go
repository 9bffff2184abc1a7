package server

import (
	"errors"
	"fmt"
	"sync/atomic"
)

// DefaultBodyMemoryBytes is the default bound of request-body buffers held at once: eight
// 32 MiB bodies, or hundreds of ordinary clips.
const DefaultBodyMemoryBytes = 256 << 20

// errBodyMemory is a body refused because the bodies being held already fill the bound.
var errBodyMemory = errors.New("request bodies held in memory are at their bound")

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
