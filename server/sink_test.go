package server_test

// Regression tests on the real binary for the records sink as it lives: another appender, a
// full file that is rotated, a pipe stalled through SIGTERM, a file deleted while serving.
// TestEveryAnswerSeenHasItsRecord (record_property_test.go) attacks the same states under load.

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	st "github.com/trtmc-qual/trtmc-qual/server/servertest"
)

// fsizeWrapper runs the server with its files limited to kib KiB (RLIMIT_FSIZE: Go ignores
// SIGXFSZ, so a write past it fails with EFBIG, as on a full disk).
func fsizeWrapper(t *testing.T, server string, kib int) string {
	t.Helper()
	wrapper := filepath.Join(t.TempDir(), "trtmc-server-fsize")
	script := fmt.Sprintf("#!/bin/sh\nulimit -f %d\nexec %s \"$@\"\n", 2*kib, server)
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return wrapper
}

// parseSink parses a records file; torn lines are returned, not fatal.
func parseSink(t *testing.T, data []byte) (byID map[string][]contract.Record, torn int) {
	t.Helper()
	if bytes.IndexByte(data, 0) >= 0 {
		t.Errorf("the records hold %d NUL bytes", bytes.Count(data, []byte{0}))
	}
	recs, err := contract.ParseRecords(data)
	var tl *contract.TornLines
	if errors.As(err, &tl) {
		torn = len(tl.Lines)
	} else if err != nil {
		t.Fatal(err)
	}
	byID = map[string][]contract.Record{}
	for _, r := range recs {
		byID[r.RequestID] = append(byID[r.RequestID], r)
	}
	return byID, torn
}

// fillUntil503 sends GET /v1/models (ids prefix-0, -1, …) until one is answered 503
// records_unavailable, calling each after every answer; it returns the ids answered 200.
func fillUntil503(t *testing.T, url, prefix string, each func(i int)) (ok []string) {
	t.Helper()
	for i := range 5000 {
		id := fmt.Sprintf("%s-%d", prefix, i)
		r := st.Do(t, withID(get(t, url+"/v1/models"), id))
		if r.Status == 503 && r.ErrorCode() == contract.CodeRecordsUnavailable {
			return ok
		}
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", id, r.Status, r.Body)
		}
		ok = append(ok, id)
		if each != nil {
			each(i)
		}
	}
	t.Fatal("the records file never filled up")
	return nil
}

// Another process appending to the records file is never cut: when the file fills up, the
// server's failed write leaves at most its own fragment, and every answered request's record
// and every line the other appender wrote stay whole (the server once cut the file back to a
// size it remembered, halving an answered record; after a rotation it filled it with NULs).
func TestRecordsOfAnotherAppenderAreNeverCut(t *testing.T) {
	f := setup(t)
	p := st.Start(t, fsizeWrapper(t, f.server, 24), []string{f.an4})
	other, err := os.OpenFile(p.Records, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	var foreign []string
	served := fillUntil503(t, p.URL, "appended", func(i int) {
		id := fmt.Sprintf("other-%d", i)
		fmt.Fprintf(other, `{"request_id":%q,"status":200}`+"\n", id)
		foreign = append(foreign, id)
	})
	p.Stop(t)
	data, _ := os.ReadFile(p.Records)
	byID, torn := parseSink(t, data)
	for _, id := range append(served, foreign...) {
		if len(byID[id]) != 1 {
			t.Errorf("%s: %d whole records, want 1", id, len(byID[id]))
		}
	}
	if torn > 1 {
		t.Errorf("%d torn lines, want at most the one write that found the file full", torn)
	}
}

// A records file that filled up and is then emptied by rotation (copy and truncate) brings the
// server back: readiness turns 200 and requests are served and recorded again.
func TestRecordsRecoverWhenTheFullFileIsRotated(t *testing.T) {
	f := setup(t)
	p := st.Start(t, fsizeWrapper(t, f.server, 24), []string{f.an4})
	fillUntil503(t, p.URL, "full", nil)
	data, _ := os.ReadFile(p.Records)
	os.WriteFile(p.Records+".1", data, 0o644)
	if err := os.Truncate(p.Records, 0); err != nil {
		t.Fatal(err)
	}
	ready := false
	for range 20 {
		if st.Do(t, get(t, p.URL+"/health/ready")).Status == 200 {
			ready = true
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !ready {
		t.Fatal("/health/ready stays 503 after the full records file was emptied")
	}
	if r := st.Do(t, withID(get(t, p.URL+"/v1/models"), "after-rotation")); r.Status != 200 {
		t.Fatalf("after the rotation: %d %s, want 200", r.Status, r.Body)
	}
	p.Stop(t)
	data, _ = os.ReadFile(p.Records)
	if byID, _ := parseSink(t, data); len(byID["after-rotation"]) != 1 {
		t.Errorf("the request after the rotation has %d records in the emptied file, want 1", len(byID["after-rotation"]))
	}
}

// A records pipe that nobody reads holds a request's record through SIGTERM: the drain times
// out, the stalled write gives up after a bound, and the server exits non-zero instead of
// hanging.
func TestStalledRecordsSinkCannotHoldTheExit(t *testing.T) {
	f := setup(t)
	sink := newFIFOSink(t)
	stopReading := sink.readEvery(every(10 * time.Millisecond)) // drained while the server starts
	p := st.Start(t, f.server, []string{f.an4}, "--records", sink.path, "--drain-timeout", "2s")
	stopReading()
	defer fillPipe(t, sink.path)()
	answered := make(chan int, 1)
	go func() { // not st.Do: the answer may never come whole, which must not fail from here
		resp, err := http.DefaultClient.Do(withID(get(t, p.URL+"/v1/models"), "stalled-exit"))
		if err != nil {
			answered <- 0
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	time.Sleep(300 * time.Millisecond) // its record write is stalled on the full pipe
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := exitWithin(t, p, time.Minute); code != 1 { // a 2 s drain
		t.Errorf("exit status %d after a record was lost to a stalled sink, want 1", code)
	}
	if status := <-answered; status == 200 {
		t.Error("a 200 left while its record was stalled")
	}
}

// A records file deleted while serving is noticed: the path is reopened, so the requests after
// the deletion are recorded in a file the operator can read, and the exit status says records
// were lost with the deleted file.
func TestDeletedRecordsFileIsNoticed(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.an4})
	if r := st.Do(t, withID(get(t, p.URL+"/v1/models"), "before-delete")); r.Status != 200 {
		t.Fatal(r.Status)
	}
	if err := os.Remove(p.Records); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if r := st.Do(t, withID(get(t, p.URL+"/v1/models"), fmt.Sprintf("after-delete-%d", i))); r.Status != 200 {
			t.Fatalf("after the deletion: %d %s", r.Status, r.Body)
		}
	}
	err := p.Stop(t)
	data, rerr := os.ReadFile(p.Records)
	if rerr != nil {
		t.Fatalf("no records file at its path after the deletion: %v", rerr)
	}
	byID, _ := parseSink(t, data)
	for i := range 3 {
		if id := fmt.Sprintf("after-delete-%d", i); len(byID[id]) != 1 {
			t.Errorf("%s: %d records, want 1", id, len(byID[id]))
		}
	}
	if exitCode(err) != 1 {
		t.Errorf("exit status %d after the records file was deleted while serving, want 1", exitCode(err))
	}
}

// A records file renamed away whose path cannot be reopened (a directory now stands there; or
// the process is out of file descriptors) still holds the records written to it: the answer
// is the one its record says. The server once answered 503 records_unavailable for a request
// whose record, status 200, was already in the renamed file, and the 503 had no record.
func TestRecordInARenamedFileMatchesItsAnswer(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.an4})
	if r := st.Do(t, withID(get(t, p.URL+"/v1/models"), "before-rename")); r.Status != 200 {
		t.Fatal(r.Status)
	}
	rotated := p.Records + ".1"
	if err := os.Rename(p.Records, rotated); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(p.Records, 0o755); err != nil {
		t.Fatal(err)
	}
	time.Sleep(150 * time.Millisecond) // past the path check's period
	statuses := map[string]int{}
	for i := range 3 {
		id := fmt.Sprintf("after-rename-%d", i)
		statuses[id] = st.Do(t, withID(get(t, p.URL+"/v1/models"), id)).Status
		time.Sleep(120 * time.Millisecond)
	}
	p.Stop(t)
	data, err := os.ReadFile(rotated)
	if err != nil {
		t.Fatal(err)
	}
	byID, _ := parseSink(t, data)
	for id, status := range statuses {
		recs := byID[id]
		if len(recs) != 1 || recs[0].Status != status {
			t.Errorf("%s answered %d; its records in the renamed file: %+v", id, status, recs)
		}
	}
}

// reservedBlocksFS mounts a small ext4 file system whose blocks are half reserved for root, or
// skips the test where that cannot be done (not root, no loop devices).
func reservedBlocksFS(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: the reserved blocks are root's")
	}
	img, dir := filepath.Join(t.TempDir(), "fs.img"), t.TempDir()
	for _, cmd := range [][]string{{"truncate", "-s", "8M", img}, {"mkfs.ext4", "-q", "-F", "-m", "50", img}, {"mount", "-o", "loop", img, dir}} {
		if out, err := exec.Command(cmd[0], cmd[1:]...).CombinedOutput(); err != nil {
			t.Skipf("cannot make a file system with reserved blocks: %v: %v\n%s", cmd, err, out)
		}
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	return dir
}

// fillFS writes name until the file system is full (ENOSPC).
func fillFS(t *testing.T, name string) {
	t.Helper()
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, size := range []int{64 << 10, 4 << 10, 1} {
		for {
			if _, err := f.Write(make([]byte, size)); err != nil {
				break
			}
		}
	}
}

// A server running as root (as in a container) fills its disk into the blocks reserved for
// root; freeing space brings it back at the next request. It once judged the free space by
// the blocks free for everyone else (Bavail), and stayed 503 with 1 MiB free to it, until more
// than the whole reserve was freed.
func TestRecordsRecoverWhenRootsReservedSpaceIsFreed(t *testing.T) {
	f := setup(t)
	dir := reservedBlocksFS(t)
	p := st.Start(t, f.server, []string{f.an4}, "--records", filepath.Join(dir, "records.jsonl"))
	spare := filepath.Join(dir, "spare")
	if err := os.WriteFile(spare, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	fillFS(t, filepath.Join(dir, "filler"))
	fillUntil503(t, p.URL, "full", nil)
	if err := os.Remove(spare); err != nil {
		t.Fatal(err)
	}
	st.Do(t, get(t, p.URL+"/health/ready")) // the request that finds the room (answered 503)
	if r := st.Do(t, withID(get(t, p.URL+"/v1/models"), "after-freeing")); r.Status != 200 {
		t.Errorf("with 1 MiB freed: %d %s, want 200", r.Status, r.Body)
	}
	if r := st.Do(t, get(t, p.URL+"/health/ready")); r.Status != 200 {
		t.Errorf("ready with 1 MiB freed: %d %s", r.Status, r.Body)
	}
}
