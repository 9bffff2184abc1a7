package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
)

// sinkRecord is the i-th record of a sink test.
func sinkRecord(i int) *contract.Record {
	return &contract.Record{RequestID: fmt.Sprintf("r-%d", i), Attempt: 1, Status: 200, Method: "GET", Route: "/v1/models"}
}

// readSink parses every file given, in order, into records by id; a torn line fails the test.
func readSink(t *testing.T, paths ...string) map[string]int {
	t.Helper()
	ids := map[string]int{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.IndexByte(data, 0) >= 0 {
			t.Errorf("%s holds NUL bytes", p)
		}
		recs, err := contract.ParseRecords(data)
		if err != nil {
			t.Errorf("%s: %v", p, err)
		}
		for _, r := range recs {
			ids[r.RequestID]++
		}
	}
	return ids
}

// Every sink state a records file goes through while serving: each record written (write
// returned nil) is in exactly one of the files the operator is left with, whole, and another
// appender's lines are never cut.
func TestRecordSinkFollowsTheFileThroughItsLife(t *testing.T) {
	states := []struct {
		name   string
		act    func(t *testing.T, path string) (kept []string) // between writes 50 and 51
		lost   bool                                            // records before it may be gone (deletion)
		reopen bool
	}{
		{"copy-truncate", func(t *testing.T, path string) []string {
			data, _ := os.ReadFile(path)
			os.WriteFile(path+".1", data, 0o644)
			os.Truncate(path, 0)
			return []string{path + ".1"}
		}, false, false},
		{"rename", func(t *testing.T, path string) []string {
			os.Rename(path, path+".1")
			return []string{path + ".1"}
		}, false, true},
		{"rename, then a new file", func(t *testing.T, path string) []string {
			os.Rename(path, path+".1")
			os.WriteFile(path, nil, 0o644)
			return []string{path + ".1"}
		}, false, true},
		{"delete", func(t *testing.T, path string) []string {
			os.Remove(path)
			return nil
		}, true, true},
	}
	for _, s := range states {
		t.Run(s.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "records.jsonl")
			w, err := openRecords(path)
			if err != nil {
				t.Fatal(err)
			}
			w.checkEvery = 0 // the path is looked at after every record
			var kept []string
			for i := range 100 {
				if i == 50 {
					kept = s.act(t, path)
				}
				if err := w.write(sinkRecord(i)); err != nil {
					t.Fatalf("record %d: %v", i, err)
				}
			}
			if err := w.close(context.Background()); err != nil {
				t.Fatal(err)
			}
			ids := readSink(t, append(kept, path)...)
			for i := range 100 {
				if n := ids[fmt.Sprintf("r-%d", i)]; n != 1 && !(s.lost && i < 50 && n == 0) {
					t.Errorf("record r-%d found %d times", i, n)
				}
			}
			if got := w.reopened.Load() > 0; got != s.reopen {
				t.Errorf("reopened %v, want %v", got, s.reopen)
			}
			if s.lost && w.deleted.Load() != 50 {
				t.Errorf("%d records counted as deleted with their file, want 50", w.deleted.Load())
			}
		})
	}
}

// Another process appending to the same file never has its lines cut, and neither have ours,
// however the writes interleave.
func TestRecordSinkNeverCutsAConcurrentAppender(t *testing.T) {
	path := filepath.Join(t.TempDir(), "records.jsonl")
	w, err := openRecords(path)
	if err != nil {
		t.Fatal(err)
	}
	other, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 500 {
			fmt.Fprintf(other, `{"request_id":"other-%d","status":200}`+"\n", i)
		}
	})
	for i := range 500 {
		if err := w.write(sinkRecord(i)); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	w.close(context.Background())
	ids := readSink(t, path)
	if len(ids) != 1000 {
		t.Fatalf("%d distinct records, want 1000", len(ids))
	}
}

// A pipe nobody reads stalls a write; giveUpBy makes it fail (counted) and close return, so a
// shutdown is bounded.
func TestRecordSinkStalledPipeGivesUp(t *testing.T) {
	path := filepath.Join(t.TempDir(), "records.fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(r)
	w, err := openRecords(path)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 1)
	go func() {
		for i := 0; ; i++ { // fills the pipe, then stalls
			if err := w.write(sinkRecord(i)); err != nil {
				errs <- err
				return
			}
		}
	}()
	time.Sleep(100 * time.Millisecond)
	w.giveUpBy(time.Now())
	if err := <-errs; !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("stalled write ended with %v, want a deadline error", err)
	}
	if w.failed.Load() != 1 || !w.failing.Load() {
		t.Errorf("failed %d, failing %v: the stalled record must count as failed", w.failed.Load(), w.failing.Load())
	}
	if err := w.close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// A write that stopped part-way leaves one torn line; the next record starts on a line of its
// own, so a reader keeps every record around it.
func TestRecordSinkTornWriteStaysOneLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "records.jsonl")
	w, err := openRecords(path)
	if err != nil {
		t.Fatal(err)
	}
	w.write(sinkRecord(0))
	w.f.WriteString(`{"request_id":"torn","sta`) // what a write cut by a full disk leaves
	w.torn = true
	w.write(sinkRecord(1))
	w.close(context.Background())
	data, _ := os.ReadFile(path)
	recs, err := contract.ParseRecords(data)
	var torn *contract.TornLines
	if !errors.As(err, &torn) || len(torn.Lines) != 1 || len(recs) != 2 {
		t.Fatalf("records %+v, err %v: want 2 records and one torn line", recs, err)
	}
}

// BenchmarkRecordWrite is the cost of one record on a regular file: the JSON, the write(2),
// and the check that the path still names the file (one stat).
func BenchmarkRecordWrite(b *testing.B) {
	w, err := openRecords(filepath.Join(b.TempDir(), "records.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	r := sinkRecord(1)
	for b.Loop() {
		if err := w.write(r); err != nil {
			b.Fatal(err)
		}
	}
}

// A file deleted after the last record is noticed at close: its records count as lost.
func TestRecordSinkDeletedAfterTheLastRecordCountsAtClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "records.jsonl")
	w, err := openRecords(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		w.write(sinkRecord(i))
	}
	os.Remove(path)
	w.close(context.Background())
	if n := w.deleted.Load(); n != 10 {
		t.Errorf("%d records counted lost with the deleted file, want 10", n)
	}
}
