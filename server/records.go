package server

// The record types are the wire contract (harness/contract); this file only writes them.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
)

// recordWriter appends records to a JSONL sink and follows the sink through its life: a file
// that is rotated, emptied, deleted or fills up, a pipe that stalls. Each record is one
// write(2) of one line under a lock, on a file opened O_APPEND: lines never interleave with
// each other or with another appender's whole lines, and a line written is out of this process
// (it survives kill -9; not a power loss, which would need an fsync a record). The server
// never truncates the file: bytes it did not write (another appender's, a rotation's) are never
// cut. A write that fails part-way leaves its fragment; the next line written starts with a
// newline, so the fragment is one torn line that a reader reports (contract.ParseRecords) and
// every other line stays whole.
type recordWriter struct {
	mu   sync.Mutex
	path string
	f    *os.File
	// regular is set for a regular file. After each write its link count is read (deleted?),
	// and at most every checkEvery whether the path still names it (dev, ino): a path naming
	// another file or none (renamed away, or deleted) is reopened.
	regular    bool
	dev, ino   uint64
	checkEvery time.Duration
	checked    time.Time // when the path was last looked at
	// pipe is the open file when it takes a write deadline (a pipe): giveUpBy reads it without
	// the lock, which a stalled write holds. A pipe is never reopened.
	pipe     atomic.Pointer[os.File]
	inFile   int64 // records written into the file now open
	torn     bool  // the last write left a fragment without its newline
	enabled  bool  // a records file was asked for
	written  int64 // records written so far
	failed   atomic.Uint64
	failing  atomic.Bool   // the last write failed: the server is not ready
	deleted  atomic.Uint64 // records written into a file that was then deleted while serving
	reopened atomic.Uint64 // times the path was reopened (rotation or deletion)
}

func openRecords(path string) (*recordWriter, error) {
	if path == "" {
		return &recordWriter{}, nil
	}
	w := &recordWriter{path: path, enabled: true, checkEvery: pathCheckEvery}
	if err := w.open(); err != nil {
		return nil, err
	}
	return w, nil
}

// open (re)opens the path for appending and notes which file it is.
func (w *recordWriter) open() error {
	f, err := os.OpenFile(w.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("open records file: %w", err)
	}
	st, err := fstat(f)
	if err != nil {
		f.Close()
		return fmt.Errorf("stat records file: %w", err)
	}
	w.f, w.inFile, w.torn = f, 0, false
	w.regular = st.Mode&syscall.S_IFMT == syscall.S_IFREG
	w.dev, w.ino = uint64(st.Dev), st.Ino
	if !w.regular {
		w.pipe.Store(f)
	}
	return nil
}

// write appends one record; an error means the record is not in the sink (and counts as failed).
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
		return w.fail(errors.New("records file closed"))
	}
	if w.regular && w.failing.Load() {
		// After a failure the path may have been rotated or emptied to make room: follow it
		// before deciding whether the record fits.
		if err := w.follow(); err != nil {
			return w.fail(err)
		}
	}
	buf := make([]byte, 0, len(line)+2)
	if w.torn {
		buf = append(buf, '\n') // ends the fragment a failed write left
	}
	buf = append(append(buf, line...), '\n')
	if w.failing.Load() && !w.fits(len(buf)) {
		// Known not to fit: refused without a partial line.
		return w.fail(fmt.Errorf("no room for a %d-byte record (disk full or file size limit)", len(buf)))
	}
	if err := w.append(buf); err != nil {
		return w.fail(err)
	}
	if w.regular {
		if err := w.checkIdentity(buf[len(buf)-len(line)-1:]); err != nil {
			return w.fail(err)
		}
	}
	w.written++
	w.inFile++
	w.failing.Store(false)
	return nil
}

// append writes buf in one write(2). A write that stopped short leaves a fragment; when all
// but the final newline went out, the record itself is whole and counts as written.
func (w *recordWriter) append(buf []byte) error {
	n, err := w.f.Write(buf)
	switch {
	case err == nil:
		w.torn = false
		return nil
	case n == len(buf)-1:
		w.torn = true
		return nil
	case n > 0:
		w.torn = true
	}
	return err
}

// pathCheckEvery bounds how long records may still go to a file renamed away (they are in the
// rotated file, not lost) before the path is reopened; a path lookup on every record would
// cost more than the rest of the write.
const pathCheckEvery = 100 * time.Millisecond

// checkIdentity looks at the file after a write to a regular file. When it was deleted (no
// link left), the record just written went with it and is written again into a file reopened
// at the path; the records written into it before are counted as lost with it (the server
// then exits 1). A path that names another file, or none, was rotated by rename: the sink is
// reopened at the path.
func (w *recordWriter) checkIdentity(line []byte) error {
	gone := unlinked(w.f)
	if !gone {
		now := time.Now()
		if now.Sub(w.checked) < w.checkEvery {
			return nil
		}
		w.checked = now
		var st syscall.Stat_t
		if syscall.Stat(w.path, &st) == nil && uint64(st.Dev) == w.dev && st.Ino == w.ino {
			return nil
		}
	}
	if gone {
		w.lostWithFile()
	}
	if err := w.reopen(); err != nil {
		if !gone {
			// Renamed away, and the path cannot be opened now (a directory stands there, no
			// file descriptor left): the record is in the rotated file, and the next ones go
			// there too until the path opens again. Failing it would answer 503 for a
			// request whose record says otherwise.
			return nil
		}
		return err
	}
	if !gone {
		return nil // renamed away: the record is in the rotated file
	}
	return w.append(line)
}

// follow reopens the path when it no longer names the open file (a rotation or deletion while
// the sink was failing). A file renamed away stays the sink while the path cannot be opened.
func (w *recordWriter) follow() error {
	var st syscall.Stat_t
	if syscall.Stat(w.path, &st) == nil && uint64(st.Dev) == w.dev && st.Ino == w.ino {
		return nil
	}
	gone := unlinked(w.f)
	if gone {
		w.lostWithFile()
	}
	if err := w.reopen(); err != nil && gone {
		return err
	}
	return nil // renamed away and the path will not open: the rotated file still takes records
}

// lostWithFile counts the records written into the open file as lost: it was deleted.
func (w *recordWriter) lostWithFile() {
	w.deleted.Add(uint64(w.inFile))
	w.inFile = 0
}

func (w *recordWriter) reopen() error {
	old := w.f
	if err := w.open(); err != nil {
		return fmt.Errorf("reopen rotated or deleted records file: %w", err)
	}
	old.Close()
	w.reopened.Add(1)
	return nil
}

// fits says whether n more bytes fit a regular file under the process's file-size limit and the
// free space of its file system (a pipe or device is not checked). The file's size is read, not
// remembered: another appender or a rotation may have changed it. Called only after a failed
// write, so that a full disk costs a few system calls a record, not a partial line each time.
func (w *recordWriter) fits(n int) bool {
	if !w.regular {
		return true
	}
	st, err := fstat(w.f)
	if err != nil {
		return true
	}
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim) == nil && lim.Cur != ^uint64(0) && uint64(st.Size)+uint64(n) > lim.Cur {
		return false
	}
	var fs syscall.Statfs_t
	if syscall.Statfs(w.path, &fs) == nil && freeBlocks(&fs)*uint64(fs.Bsize) < uint64(n) {
		return false
	}
	return true
}

// freeBlocks is what this process may still write to the file system: root may also write
// into the blocks reserved for it (ext4's 5%), which Bavail leaves out. Bavail alone kept a
// server running as root (as in a container) refusing records after space was freed, while
// its writes would have succeeded, until more than the reserve was free.
func freeBlocks(fs *syscall.Statfs_t) uint64 {
	if os.Geteuid() == 0 {
		return fs.Bfree
	}
	return fs.Bavail
}

// fstat is the open file's stat. Through SyscallConn, not Fd: Fd would put a pipe back in
// blocking mode, and its write deadline (giveUpBy) would stop working.
func fstat(f *os.File) (*syscall.Stat_t, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var st syscall.Stat_t
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = syscall.Fstat(int(fd), &st) }); err != nil {
		return nil, err
	}
	return &st, serr
}

// unlinked says whether the open file has no name left (deleted).
func unlinked(f *os.File) bool {
	st, err := fstat(f)
	return err == nil && st.Nlink == 0
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

// giveUpBy bounds the writes still waiting on a stalled pipe: past t they fail (and count as
// failed). A regular file or a device takes no deadline; their writes do not stall on a reader.
func (w *recordWriter) giveUpBy(t time.Time) {
	if f := w.pipe.Load(); f != nil {
		f.SetWriteDeadline(t)
	}
}

// close syncs and closes the sink. A write stalled on the sink holds the lock: close waits for
// it only until ctx ends, then reports the sink as stalled (the process is about to exit).
func (w *recordWriter) close(ctx context.Context) error {
	done := make(chan error, 1)
	go func() { done <- w.closeNow() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return errors.New("records sink stalled: a write still waits on it, so records may be missing")
	}
}

func (w *recordWriter) closeNow() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	var err error
	if w.regular { // a pipe or a device has nothing to sync
		err = w.f.Sync()
		if unlinked(w.f) { // deleted since the last record: nobody can read them
			w.lostWithFile()
		}
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	w.f = nil
	return err
}
