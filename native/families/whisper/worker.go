package whisper

import (
	"bufio"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os/exec"
	"path/filepath"
	"sync"
	"time"
)

// maxFrame bounds a frame the worker may send, so a confused worker cannot make us allocate
// without limit (a transcript of one 30 s window is a few hundred bytes).
const maxFrame = 1 << 20

// writeFrame sends one frame: a 4-byte big-endian length, then the JSON body.
func writeFrame(w io.Writer, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode frame: %w", err)
	}
	buf := make([]byte, 4+len(body))
	binary.BigEndian.PutUint32(buf, uint32(len(body)))
	copy(buf[4:], body)
	_, err = w.Write(buf)
	return err
}

// readFrame reads one frame into v.
func readFrame(r io.Reader, v any) error {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return err
	}
	n := binary.BigEndian.Uint32(head[:])
	if n > maxFrame {
		return fmt.Errorf("frame of %d bytes exceeds the %d-byte limit", n, maxFrame)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return fmt.Errorf("truncated frame: %w", err)
	}
	return json.Unmarshal(body, v)
}

// loadRequest is the first frame a worker receives.
type loadRequest struct {
	Op       string `json:"op"`
	ModelDir string `json:"model_dir"`
	workerOptions
}

// transcribeRequest carries the clip as little-endian float32 samples, exactly the values the
// Go WAV decoder produced (no resampling, no requantization).
type transcribeRequest struct {
	Op         string `json:"op"`
	ID         uint64 `json:"id"`
	SampleRate int    `json:"sample_rate"`
	PCM        string `json:"pcm_f32le"`
}

// reply is any frame the worker sends.
type reply struct {
	OK       bool              `json:"ok"`
	Op       string            `json:"op"`
	ID       uint64            `json:"id"`
	Text     string            `json:"text"`
	Error    string            `json:"error"`
	Versions map[string]string `json:"versions"`
	Kernels  map[string]string `json:"kernels"`
	PID      int               `json:"pid"`
	LoadMS   float64           `json:"load_ms"`
	WorkerMS float64           `json:"worker_ms"`
}

// WorkerCrashError is a worker that died (or broke the protocol) during a request. The
// request fails with it; the worker is restarted before its lane serves again.
type WorkerCrashError struct {
	Model  string
	Lane   int
	PID    int
	Exit   string // how the process ended
	Stderr string // the end of what it printed
}

func (e *WorkerCrashError) Error() string {
	return fmt.Sprintf("whisper worker (model %s, lane %d, pid %d) crashed mid-request: %s; it is being restarted; stderr: %s",
		e.Model, e.Lane, e.PID, e.Exit, e.Stderr)
}

// WorkerStartError is a worker that could not start or load the model.
type WorkerStartError struct {
	Lane   int
	Reason string
}

func (e *WorkerStartError) Error() string {
	return fmt.Sprintf("whisper worker for lane %d failed to start: %s", e.Lane, e.Reason)
}

// tailWriter keeps the last bytes written to it: the worker's stderr, for error messages.
type tailWriter struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tailWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 8192 {
		t.buf = t.buf[len(t.buf)-8192:]
	}
	return len(p), nil
}

func (t *tailWriter) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return tailString(string(t.buf), 2000)
}

// worker is one running worker process. It serves one request at a time (its lane owns it).
type worker struct {
	lane   int
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *tailWriter
	ready  reply
	exited chan struct{} // closed once the process has been waited for
	exit   error
	nextID uint64
}

// startWorker runs the worker script, sends the load request and waits for "ready", checking
// the versions it reports against the bundle's pins.
func startWorker(lane int, dir, python string, s Settings) (*worker, error) {
	cmd := exec.Command(python, "-u", filepath.Join(dir, "worker.py"))
	w := &worker{lane: lane, cmd: cmd, stderr: &tailWriter{}, exited: make(chan struct{})}
	cmd.Stderr = w.stderr
	cmd.Env = processEnv(s)
	var err error
	if w.in, err = cmd.StdinPipe(); err != nil {
		return nil, &WorkerStartError{Lane: lane, Reason: err.Error()}
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, &WorkerStartError{Lane: lane, Reason: err.Error()}
	}
	w.out = bufio.NewReader(stdout)
	if err := cmd.Start(); err != nil {
		return nil, &WorkerStartError{Lane: lane, Reason: fmt.Sprintf("%s: %v", python, err)}
	}
	go func() { w.exit = cmd.Wait(); close(w.exited) }()
	load := loadRequest{Op: "load", ModelDir: filepath.Join(dir, "model"),
		workerOptions: optionsOf(s)}
	err = writeFrame(w.in, load)
	if err == nil {
		err = readFrame(w.out, &w.ready)
	}
	switch {
	case err != nil:
		w.kill()
		return nil, &WorkerStartError{Lane: lane, Reason: fmt.Sprintf("no ready reply (%v, exit %v); stderr: %s", err, w.exit, w.stderr)}
	case !w.ready.OK || w.ready.Op != "ready":
		w.kill()
		return nil, &WorkerStartError{Lane: lane, Reason: fmt.Sprintf("model load failed: %s; stderr: %s", w.ready.Error, w.stderr)}
	case w.ready.Versions["faster-whisper"] != s.FasterWhisper || w.ready.Versions["ctranslate2"] != s.CTranslate2:
		w.kill()
		return nil, &WorkerStartError{Lane: lane, Reason: fmt.Sprintf("worker runs faster-whisper %s / ctranslate2 %s, the bundle pins %s / %s",
			w.ready.Versions["faster-whisper"], w.ready.Versions["ctranslate2"], s.FasterWhisper, s.CTranslate2)}
	}
	if err := checkKernels(w.ready.Kernels, s); err != nil {
		w.kill()
		return nil, &WorkerStartError{Lane: lane, Reason: err.Error()}
	}
	return w, nil
}

// pcmBase64 encodes samples as little-endian float32, base64.
func pcmBase64(samples []float32) string {
	buf := make([]byte, 4*len(samples))
	for i, v := range samples {
		binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(v))
	}
	return base64.StdEncoding.EncodeToString(buf)
}

// errWorkerRefused is a request the worker answered with an error frame: the worker is still
// healthy.
var errWorkerRefused = errors.New("whisper worker refused the request")

// transcribe is one round trip: write the request frame, read the reply frame; it returns the
// transcript and the worker's own time inside transcribe(). A broken pipe,
// EOF or a malformed frame means the worker is gone or unusable: the caller gets a
// WorkerCrashError and must replace the worker.
func (w *worker) transcribe(model string, samples []float32) (string, float64, error) {
	w.nextID++
	req := transcribeRequest{Op: "transcribe", ID: w.nextID, SampleRate: 16000, PCM: pcmBase64(samples)}
	var rep reply
	err := writeFrame(w.in, req)
	if err == nil {
		err = readFrame(w.out, &rep)
	}
	if err == nil && rep.ID != req.ID {
		err = fmt.Errorf("reply for request %d, expected %d", rep.ID, req.ID)
	}
	if err != nil {
		w.kill()
		return "", 0, &WorkerCrashError{Model: model, Lane: w.lane, PID: w.ready.PID, Exit: fmt.Sprintf("%v (process: %v)", err, w.exit), Stderr: w.stderr.String()}
	}
	if !rep.OK {
		return "", 0, fmt.Errorf("%w: %s", errWorkerRefused, rep.Error)
	}
	return rep.Text, rep.WorkerMS, nil
}

// kill ends the process (if still running) and waits for it, bounded so that a wedged process
// cannot hang Close.
func (w *worker) kill() {
	w.in.Close()
	if w.cmd.Process != nil {
		w.cmd.Process.Kill()
	}
	select {
	case <-w.exited:
	case <-time.After(10 * time.Second):
	}
}

// stop closes stdin (the worker exits on EOF) and waits briefly before killing.
func (w *worker) stop() {
	w.in.Close()
	select {
	case <-w.exited:
	case <-time.After(3 * time.Second):
		w.kill()
	}
}
