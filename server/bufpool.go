package server

import "sync"

// bufPool keeps request buffers (upload bytes, decoded samples) for reuse by later requests,
// so that a request does not allocate (and the collector sweep, and the kernel fault in again)
// a fresh copy of its clip. Capacities are powers of two from 16 Ki elements up to max, so
// that clips of mixed lengths share them; larger buffers are not kept.
type bufPool[T any] struct {
	pool sync.Pool // *[]T
	max  int
}

// get is a slice of n elements (contents undefined).
func (p *bufPool[T]) get(n int) []T {
	if n > p.max {
		return make([]T, n)
	}
	if b, ok := p.pool.Get().(*[]T); ok && cap(*b) >= n {
		return (*b)[:n]
	}
	size := 16 << 10
	for size < n {
		size *= 2
	}
	return make([]T, n, size)
}

// put gives b back; nothing may refer to its elements any more.
func (p *bufPool[T]) put(b []T) {
	if c := cap(b); c >= 16<<10 && c <= p.max && c&(c-1) == 0 {
		p.pool.Put(&b)
	}
}
