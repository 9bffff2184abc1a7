package whisper

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/trtmc-qual/trtmc-qual/native/audio"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// slot is one lane: the worker serving it, or nil while it is being (re)started.
type slot struct {
	lane int
	w    *worker
}

// model is a loaded whisper bundle: one warm worker per lane.
type model struct {
	name     string
	dir      string
	python   string // the interpreter every worker runs in
	settings Settings
	pool     chan *slot
	slots    []*slot
	restarts sync.WaitGroup // restarts in flight; Close waits for them

	mu       sync.Mutex
	calls    callTimes
	crashes  int
	closed   bool
	lastLoad []reply // each lane's ready frame, in lane order
}

func newModel(name, dir, python string, s Settings, lanes int) *model {
	m := &model{name: name, dir: dir, python: python, settings: s, pool: make(chan *slot, lanes), lastLoad: make([]reply, lanes)}
	for i := range lanes {
		m.slots = append(m.slots, &slot{lane: i})
	}
	return m
}

// startAll starts every lane's worker in parallel (each loads the model independently).
func (m *model) startAll() error {
	errs := make([]error, len(m.slots))
	var wg sync.WaitGroup
	for i, sl := range m.slots {
		wg.Go(func() { errs[i] = m.start(sl) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for _, sl := range m.slots {
		m.pool <- sl
	}
	return nil
}

// kernelFacts are the bundle's kernel pins and what CTranslate2 reported selecting in the first
// lane's worker (every worker was checked against the pins when it started).
func (m *model) kernelFacts() map[string]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return kernelFacts(m.lastLoad[0].Kernels, m.settings)
}

func (m *model) start(sl *slot) error {
	w, err := startWorker(sl.lane, m.dir, m.python, m.settings)
	if err != nil {
		return err
	}
	sl.w = w
	m.mu.Lock()
	m.lastLoad[sl.lane] = w.ready
	m.mu.Unlock()
	return nil
}

// restart replaces a crashed worker in the background and returns the lane to the pool when it
// is up (or, if the start failed, empty: the next caller on that lane retries and gets the
// start error).
func (m *model) restart(sl *slot) {
	m.mu.Lock()
	m.crashes++
	closed := m.closed
	m.mu.Unlock()
	if closed {
		return
	}
	m.restarts.Add(1)
	go func() {
		defer m.restarts.Done()
		m.start(sl) // a failure leaves sl.w nil; acquire retries
		m.pool <- sl
	}()
}

// callTimes sums the round trips and the worker's own transcribe() time inside them: the
// difference is what the protocol (framing, pipes, base64, JSON) costs.
type callTimes struct {
	Calls       int
	RoundTripMS float64
	InWorkerMS  float64
}

func (m *model) record(roundTrip time.Duration, inWorkerMS float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls.Calls++
	m.calls.RoundTripMS += float64(roundTrip.Nanoseconds()) / 1e6
	m.calls.InWorkerMS += inWorkerMS
}

// CallTimes returns the sums so far.
func (m *model) CallTimes() callTimes {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls
}

// Crashes is how many worker crashes the model has seen (each followed by a restart).
func (m *model) Crashes() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.crashes
}

// WorkerPIDs lists the running workers' process ids by lane (0 while a lane restarts).
func (m *model) WorkerPIDs() []int {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]int, len(m.lastLoad))
	for i, r := range m.lastLoad {
		out[i] = r.PID
	}
	return out
}

func (m *model) Tasks() []task.Info {
	return []task.Info{{Name: task.SpeechTranscription, Controls: []task.Control{
		{Name: "audio", Kind: "audio", Description: fmt.Sprintf("whole clip, 16 kHz mono, at most %.0f s (one Whisper window)", m.settings.MaxSeconds)},
		{Name: "language", Kind: "enum", Default: m.settings.Language, Description: "source language; only " + m.settings.Language + " (an English-only checkpoint)"},
	}}}
}

func (m *model) Task(name task.Name) (any, error) {
	if name == task.SpeechTranscription {
		return m, nil
	}
	return nil, &task.UnsupportedCapabilityError{Model: m.name, Task: name, Has: task.Names(m.Tasks())}
}

// Close stops every worker and removes the extracted model.
func (m *model) Close() error {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	m.restarts.Wait()
	for _, sl := range m.slots {
		if sl.w != nil {
			sl.w.stop()
			sl.w = nil
		}
	}
	return os.RemoveAll(m.dir)
}

// AudioSpec implements task.Transcriber.
func (m *model) AudioSpec() task.AudioSpec {
	return task.AudioSpec{SampleRate: m.settings.SampleRate, Channels: 1, Format: "pcm_f32le", MaxSeconds: m.settings.MaxSeconds}
}

// Transcribe implements task.Transcriber: validate, take a lane, one worker round trip. The
// public Task call (model_call_ms) is therefore the validation, the framing and the round trip
// to the warm worker (request out, faster-whisper transcribe(), reply in) and nothing else.
// A round trip is not abandoned when ctx ends: it is bounded by one 30 s window, and
// abandoning it would leave the worker's reply in the pipe for the next caller.
func (m *model) Transcribe(ctx context.Context, a task.Audio, cfg task.TranscribeConfig) (task.Transcript, error) {
	if err := audio.Validate(a, m.AudioSpec()); err != nil {
		return task.Transcript{}, err
	}
	if cfg.Language != "" && cfg.Language != m.settings.Language {
		return task.Transcript{}, task.Invalid("unsupported_language", "language %q is not supported by %s (only %q)", cfg.Language, m.name, m.settings.Language)
	}
	var sl *slot
	select {
	case sl = <-m.pool:
	case <-ctx.Done():
		return task.Transcript{}, fmt.Errorf("transcribe: waiting for a worker: %w", ctx.Err())
	}
	if sl.w == nil { // an earlier restart failed: try again, in the caller's time
		if err := m.start(sl); err != nil {
			m.pool <- sl
			return task.Transcript{}, fmt.Errorf("transcribe with %s: %w", m.name, err)
		}
	}
	// Only a -tags qual_slowdown test build measures and computes here (slowdown_build.go).
	finishSlowdown := startSlowdown(m.name, sl.w.cmd.Process.Pid)
	start := time.Now()
	text, inWorker, err := sl.w.transcribe(m.name, a.Samples)
	m.record(time.Since(start), inWorker)
	var crash *WorkerCrashError
	if errors.As(err, &crash) {
		sl.w = nil
		m.restart(sl)
		return task.Transcript{}, err
	}
	_, slowErr := finishSlowdown() // with the lane held
	m.pool <- sl
	if err = errors.Join(err, slowErr); err != nil {
		return task.Transcript{}, fmt.Errorf("transcribe with %s: %w", m.name, err)
	}
	return task.Transcript{Text: text}, nil
}
