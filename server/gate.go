package server

import (
	"context"
	"sync"
)

// gate counts work in progress (handlers, Task calls) and lets Close wait for it to end. Unlike
// sync.WaitGroup it may be entered while someone waits, and refuses entry once closed, so that
// no Task call can start on a model that is about to be freed.
type gate struct {
	mu     sync.Mutex
	n      int
	closed bool
	idle   chan struct{} // closed when n drops to 0 after close
}

func newGate() *gate { return &gate{idle: make(chan struct{})} }

// enter counts one more; false once the gate is closed.
func (g *gate) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.n++
	return true
}

func (g *gate) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n--
	if g.closed && g.n == 0 {
		close(g.idle)
	}
}

// count is the work in progress now.
func (g *gate) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.n
}

// closeAndWait refuses new entries and waits until all work has left or ctx ends; it returns
// how many are still inside.
func (g *gate) closeAndWait(ctx context.Context) int {
	g.mu.Lock()
	if !g.closed {
		g.closed = true
		if g.n == 0 {
			close(g.idle)
		}
	}
	g.mu.Unlock()
	select {
	case <-g.idle:
		return 0
	case <-ctx.Done():
		return g.count()
	}
}
