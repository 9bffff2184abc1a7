package server

// The record types are the wire contract (harness/contract); this file only writes them.

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
)

// recordWriter appends records to a JSONL file. Each record is one write(2) of one line under
// a lock: lines never interleave, and what was written survives a crash of this process.
type recordWriter struct {
	mu      sync.Mutex
	f       *os.File
	enabled bool  // a records file was asked for
	written int64 // records written so far
}

func openRecords(path string) (*recordWriter, error) {
	if path == "" {
		return &recordWriter{}, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open records file: %w", err)
	}
	return &recordWriter{f: f, enabled: true}, nil
}

func (w *recordWriter) write(r *contract.Record) error {
	if !w.enabled {
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
	if _, err = w.f.Write(append(line, '\n')); err != nil {
		return err
	}
	w.written++
	return nil
}

// count is how many records have been written.
func (w *recordWriter) count() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.written
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
