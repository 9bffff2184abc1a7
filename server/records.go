package server

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
)

// Timing is TRTMC's trtmc_timing object. ModelCallMS is the wall time of exactly one call
// through the public Task interface (public_task_call_wall); QueueMS is the wait for a lane;
// HandlerMS is the whole handler up to the response, decoding and encoding included.
type Timing struct {
	QueueMS     float64 `json:"queue_ms"`
	ModelCallMS float64 `json:"model_call_ms"`
	HandlerMS   float64 `json:"handler_ms"`
}

// Record is one JSONL line per request, accepted or rejected. It holds hashes, never raw audio
// or image bytes.
type Record struct {
	RequestID       string        `json:"request_id"`
	ClientRequestID string        `json:"client_request_id,omitempty"` // a refused incoming id
	Method          string        `json:"method"`
	Route           string        `json:"route"`
	Model           string        `json:"model,omitempty"`
	BundleSHA256    string        `json:"bundle_sha256,omitempty"`
	InputSHA256     string        `json:"input_sha256,omitempty"`
	Output          *RecordOutput `json:"output,omitempty"`
	Status          int           `json:"status"`
	ErrorCode       string        `json:"error_code,omitempty"`
	StartUnixNS     int64         `json:"start_unix_ns"`
	EndUnixNS       int64         `json:"end_unix_ns"`
	Timing          Timing        `json:"trtmc_timing"`
}

// RecordOutput is what the Task produced.
type RecordOutput struct {
	Text         string        `json:"text,omitempty"`
	AudioSeconds float64       `json:"audio_seconds,omitempty"`
	Images       []RecordImage `json:"images,omitempty"`
	Steps        int           `json:"num_inference_steps,omitempty"`
	Guidance     *float64      `json:"guidance_scale,omitempty"`
	Seed         *int64        `json:"seed,omitempty"`
	Precision    string        `json:"precision,omitempty"`
	Count        int           `json:"n,omitempty"`
}

// RecordImage identifies one generated image by its pixels.
type RecordImage struct {
	SHA256 string `json:"sha256"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
}

// recordWriter appends records to a JSONL file. Each record is one write(2) of one line under
// a lock: lines never interleave, and what was written survives a crash of this process.
type recordWriter struct {
	mu sync.Mutex
	f  *os.File
}

func openRecords(path string) (*recordWriter, error) {
	if path == "" {
		return &recordWriter{}, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open records file: %w", err)
	}
	return &recordWriter{f: f}, nil
}

func (w *recordWriter) write(r *Record) error {
	if w.f == nil {
		return nil
	}
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode record: %w", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return fmt.Errorf("records file closed")
	}
	_, err = w.f.Write(append(line, '\n'))
	return err
}

func (w *recordWriter) close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Sync()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	w.f = nil
	return err
}
