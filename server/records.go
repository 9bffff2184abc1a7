package server

// The record types are the wire contract (harness/contract); this file only writes them.

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
)

// recordWriter appends records to a JSONL file. Each record is one write(2) of one line under
// a lock: lines never interleave, and a line written is out of this process (it survives
// kill -9; not a power loss, which would need an fsync a record). A write that fails part-way
// (a full disk) is cut back off a regular file, so the file stays whole lines.
type recordWriter struct {
	mu      sync.Mutex
	f       *os.File
	enabled bool  // a records file was asked for
	written int64 // records written so far
	size    int64 // bytes of whole lines in a regular file; -1 for a pipe or device
	failed  atomic.Uint64
	failing atomic.Bool // the last write failed: the server is not ready
}

func openRecords(path string) (*recordWriter, error) {
	if path == "" {
		return &recordWriter{}, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open records file: %w", err)
	}
	w := &recordWriter{f: f, enabled: true, size: -1}
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		w.size = st.Size()
	}
	return w, nil
}

// write appends one record; an error means the record is not on disk (and counts as failed).
func (w *recordWriter) write(r *contract.Record) error {
	if !w.enabled {
		return nil
	}
	line, err := json.Marshal(r)
	if err != nil {
		return w.fail(fmt.Errorf("encode record: %w", err))
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return w.fail(fmt.Errorf("records file closed"))
	}
	if w.failing.Load() && !w.fits(len(line)+1) {
		// Known not to fit: refused without a partial line, which a kill before the cut-back
		// below would leave in the file.
		return w.fail(fmt.Errorf("no room for a %d-byte record (disk full or file size limit)", len(line)+1))
	}
	n, err := w.f.Write(append(line, '\n'))
	if err != nil {
		if n > 0 && w.size >= 0 {
			if terr := w.f.Truncate(w.size); terr != nil {
				err = fmt.Errorf("%w; a partial line is left: %v", err, terr)
			}
		}
		return w.fail(err)
	}
	if w.size >= 0 {
		w.size += int64(n)
	}
	w.written++
	w.failing.Store(false)
	return nil
}

// fits says whether n more bytes fit a regular file under the process's file-size limit and the
// free space of its file system (a pipe or device is not checked). Called only after a failed
// write, so that a full disk costs two system calls a record, not a partial line each time.
func (w *recordWriter) fits(n int) bool {
	if w.size < 0 {
		return true
	}
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim) == nil && lim.Cur != ^uint64(0) && uint64(w.size)+uint64(n) > lim.Cur {
		return false
	}
	var fs syscall.Statfs_t
	if syscall.Fstatfs(int(w.f.Fd()), &fs) == nil && uint64(fs.Bavail)*uint64(fs.Bsize) < uint64(n) {
		return false
	}
	return true
}

func (w *recordWriter) fail(err error) error {
	w.failed.Add(1)
	w.failing.Store(true)
	return fmt.Errorf("write record: %w", err)
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
	var err error
	if w.size >= 0 { // a pipe or a device has nothing to sync
		err = w.f.Sync()
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	w.f = nil
	return err
}
