package server

import (
	"context"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// servedModel is one loaded bundle with its lanes (concurrent Task calls) and bounded queue.
type servedModel struct {
	name     string
	path     string
	bundle   *bundle.Bundle
	model    task.Model
	lanes    chan struct{}
	waiting  atomic.Int64
	maxQueue int64
	loaded   time.Time // when this server loaded the bundle: the model entry's "created"
}

func newServedModel(path string, b *bundle.Bundle, m task.Model, lanes, queue int) *servedModel {
	return &servedModel{name: b.Header.Profile, path: path, bundle: b, model: m,
		lanes: make(chan struct{}, max(1, lanes)), maxQueue: int64(max(0, queue)), loaded: time.Now()}
}

// acquire takes a lane, waiting in the bounded queue when all are busy. A full queue is 429
// server_busy at once: waiting without bound would hide overload inside latency figures.
// A request refused while queued is answered with why: 499 when its client went away, 503 when
// a timed-out drain aborted the wait.
func (m *servedModel) acquire(ctx context.Context, abort <-chan struct{}) (release func(), queued time.Duration, err error) {
	release = func() { <-m.lanes }
	select {
	case m.lanes <- struct{}{}:
		return release, 0, nil
	default:
	}
	if m.waiting.Add(1) > m.maxQueue {
		m.waiting.Add(-1)
		return nil, 0, newError(http.StatusTooManyRequests, contract.CodeServerBusy,
			"model %s is busy: %d lanes in use and %d requests queued", m.name, cap(m.lanes), m.maxQueue)
	}
	defer m.waiting.Add(-1)
	start := time.Now()
	select {
	case m.lanes <- struct{}{}:
		return release, time.Since(start), nil
	case <-ctx.Done():
		return nil, time.Since(start), errClientClosed("while queued for a lane")
	case <-abort:
		return nil, time.Since(start), errShuttingDown()
	}
}

// queueDepth is the number of requests waiting for a lane.
func (m *servedModel) queueDepth() int64 { return m.waiting.Load() }

// capability looks up a Task by capability, never by model name or declared mode.
func capability[T any](m *servedModel, name task.Name) (T, error) {
	return task.Lookup[T](m.model, m.name, name)
}
