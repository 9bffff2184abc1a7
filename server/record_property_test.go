package server_test

// The property the records stand on: every answer a client saw has exactly one record, and no
// client sees a 2xx whose record is not on disk. TestEveryAnswerSeenHasItsRecord drives the
// real binary under load against records sinks that work, stall, fail and fill up, kills it
// with SIGKILL at a random moment, and checks the client-side log against the records.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	st "github.com/trtmc-qual/trtmc-qual/server/servertest"
)

// seenAnswer is one answer a client received whole.
type seenAnswer struct {
	id, code string
	status   int
	start    time.Time // when the client sent the request
}

// clientLog is what the clients saw.
type clientLog struct {
	mu   sync.Mutex
	seen []seenAnswer
	sent int
}

// load sends requests of several routes from `clients` goroutines until stop is closed; every
// answer received whole is logged.
func load(t *testing.T, url, prefix string, clients int, stop <-chan struct{}) *clientLog {
	t.Helper()
	clip := cardsClip(t, "004")
	log := &clientLog{}
	hc := &http.Client{Timeout: 20 * time.Second}
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				id := fmt.Sprintf("%s-%d-%d", prefix, c, i)
				var req *http.Request
				switch i % 3 {
				case 0: // a body larger than net/http's buffer: the case a late record would miss
					req = st.JSONPost(t, url+"/v1/images/generations", fmt.Sprintf(`{"model":"procdiff-small-l0","prompt":"kite %d","seed":%d}`, i, i))
				case 1:
					req = transcription(t, url, "sphinx-an4-l0", clip)
				default:
					req = get(t, url+"/v1/models")
				}
				req.Header.Set("X-Request-ID", id)
				log.mu.Lock()
				log.sent++
				log.mu.Unlock()
				start := time.Now()
				resp, err := hc.Do(req)
				if err != nil {
					continue // not seen: no claim on the records
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || resp.Header.Get("X-Request-ID") != id && resp.StatusCode < 300 {
					continue
				}
				r := st.Response{Status: resp.StatusCode, Body: body}
				json.Unmarshal(body, &r.JSON)
				log.mu.Lock()
				log.seen = append(log.seen, seenAnswer{id: resp.Header.Get("X-Request-ID"), status: resp.StatusCode, code: r.ErrorCode(), start: start})
				log.mu.Unlock()
			}
		})
	}
	go func() { <-stop; wg.Wait() }()
	t.Cleanup(wg.Wait)
	return log
}

// checkProperty holds the client log against the records. A 503 records_unavailable may have
// no record (its own record could not be written either); every other answer seen has exactly
// one, with the status the client saw. No (request_id, attempt) appears twice. A torn line (a
// write that found the disk full) is allowed: the reader keeps every record around it. It
// returns the records by id.
func checkProperty(t *testing.T, name string, log *clientLog, records []byte) map[string][]contract.Record {
	t.Helper()
	if n := bytes.Count(records, []byte{0}); n > 0 {
		t.Errorf("%s: the records hold %d NUL bytes", name, n)
	}
	recs, err := contract.ParseRecords(records)
	var torn *contract.TornLines
	switch {
	case errors.As(err, &torn):
		t.Logf("%s: %d torn lines (%v)", name, len(torn.Lines), torn)
	case err != nil:
		t.Fatalf("%s: the records cannot be read: %v", name, err)
	}
	byID := map[string][]contract.Record{}
	for _, r := range recs {
		key := fmt.Sprintf("%s#%d", r.RequestID, r.Attempt)
		if len(byID[key]) > 0 {
			t.Errorf("%s: two records for %s", name, key)
		}
		byID[key] = append(byID[key], r)
		byID[r.RequestID] = append(byID[r.RequestID], r)
	}
	counts, bad := map[int]int{}, 0
	for _, a := range log.seen {
		if bad > 10 {
			break // enough said
		}
		counts[a.status]++
		got := byID[a.id]
		switch {
		case a.code == contract.CodeRecordsUnavailable && len(got) <= 1:
		case len(got) != 1:
			bad++
			t.Errorf("%s: answer %d %s seen by the client has %d records", name, a.status, a.id, len(got))
		case got[0].Status != a.status:
			bad++
			t.Errorf("%s: %s seen as %d, recorded as %d", name, a.id, a.status, got[0].Status)
		}
	}
	t.Logf("%s: %d requests sent, %d answers seen (by status %v), %d records", name, log.sent, len(log.seen), counts, len(recs))
	return byID
}

// sentAfter is the part of the log whose requests were sent after t.
func (l *clientLog) sentAfter(t time.Time) *clientLog {
	out := &clientLog{}
	for _, a := range l.seen {
		if a.start.After(t) {
			out.seen = append(out.seen, a)
		}
	}
	out.sent = len(out.seen)
	return out
}

// files is the contents of the files in order, one after another.
func files(paths ...string) []byte {
	var out []byte
	for _, p := range paths {
		data, _ := os.ReadFile(p)
		out = append(out, data...)
	}
	return out
}

// randomly waits between min and min+spread.
func randomly(rng *rand.Rand, min, spread time.Duration) {
	time.Sleep(min + time.Duration(rng.Int64N(int64(spread))))
}

// killAfter sends SIGKILL to the server after a random delay while the load runs, then stops
// the load.
func killAfter(t *testing.T, p *st.Process, rng *rand.Rand, min, spread time.Duration, stop chan struct{}) {
	t.Helper()
	time.Sleep(min + time.Duration(rng.Int64N(int64(spread))))
	if err := p.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p.Wait()
	close(stop)
	for _, bad := range []string{"DATA RACE", "panic:", "fatal error"} { // a -race binary via SERVERTEST_SERVER_BIN
		if strings.Contains(p.Stderr(), bad) {
			t.Errorf("server log holds %q:\n%s", bad, p.Stderr())
		}
	}
}

func TestEveryAnswerSeenHasItsRecord(t *testing.T) {
	f := setup(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed>>1))
	bundles := []string{f.an4, imageBundle(t, "procdiff-small-l0")}

	t.Run("file, killed", func(t *testing.T) {
		p := st.Start(t, f.server, bundles)
		stop := make(chan struct{})
		log := load(t, p.URL, "file", 4, stop)
		killAfter(t, p, rng, 500*time.Millisecond, 2*time.Second, stop)
		data, _ := os.ReadFile(p.Records)
		checkProperty(t, "file, killed", log, data)
	})

	t.Run("stalling FIFO, killed", func(t *testing.T) {
		sink := newFIFOSink(t)
		stall := rand.New(rand.NewPCG(rng.Uint64(), 0)) // the reader's own: rng stays the test's
		// Read in bursts with stalls between them, until the server is gone.
		stopReading := sink.readEvery(func() time.Duration { return time.Duration(stall.IntN(300)) * time.Millisecond })
		p := st.Start(t, f.server, bundles, "--records", sink.path)
		stop := make(chan struct{})
		log := load(t, p.URL, "fifo", 4, stop)
		killAfter(t, p, rng, time.Second, 2*time.Second, stop)
		stopReading() // what the pipe still holds was written before the kill
		checkProperty(t, "stalling FIFO, killed", log, sink.buf.Bytes())
	})

	t.Run("filling up, killed", func(t *testing.T) {
		p := st.Start(t, fsizeWrapper(t, f.server, 48), bundles) // the records file may grow to 48 KiB
		stop := make(chan struct{})
		log := load(t, p.URL, "full", 4, stop)
		for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			if st, err := os.Stat(p.Records); err == nil && st.Size() > 46<<10 {
				break
			}
		}
		killAfter(t, p, rng, time.Second, time.Second, stop)
		data, _ := os.ReadFile(p.Records)
		checkProperty(t, "filling up, killed", log, data)
		unrecorded := 0
		for _, a := range log.seen {
			if a.code == contract.CodeRecordsUnavailable {
				unrecorded++
			}
		}
		if unrecorded == 0 {
			t.Errorf("the records file filled up (%d bytes) but no answer said records_unavailable", len(data))
		}
	})

	t.Run("rotated by copy-truncate, killed", func(t *testing.T) {
		p := st.Start(t, f.server, bundles)
		stop := make(chan struct{})
		log := load(t, p.URL, "copytrunc", 4, stop)
		randomly(rng, 300*time.Millisecond, time.Second)
		// Stopped while copied, so that no record falls between the copy and the truncation
		// (that loss is copy-truncate's own, whatever the writer does).
		p.Signal(syscall.SIGSTOP)
		os.WriteFile(p.Records+".1", files(p.Records), 0o644)
		os.Truncate(p.Records, 0)
		p.Signal(syscall.SIGCONT)
		killAfter(t, p, rng, 300*time.Millisecond, time.Second, stop)
		checkProperty(t, "rotated by copy-truncate", log, files(p.Records+".1", p.Records))
	})

	t.Run("filled up, rotated by copy-truncate, killed", func(t *testing.T) {
		p := st.Start(t, fsizeWrapper(t, f.server, 48), bundles)
		stop := make(chan struct{})
		log := load(t, p.URL, "fullrot", 4, stop)
		for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			if st, err := os.Stat(p.Records); err == nil && st.Size() > 46<<10 {
				break
			}
		}
		randomly(rng, 100*time.Millisecond, 500*time.Millisecond) // full: answers turn 503
		p.Signal(syscall.SIGSTOP)
		os.WriteFile(p.Records+".1", files(p.Records), 0o644)
		os.Truncate(p.Records, 0)
		rotated := time.Now()
		p.Signal(syscall.SIGCONT)
		killAfter(t, p, rng, 500*time.Millisecond, time.Second, stop)
		checkProperty(t, "filled up, rotated by copy-truncate", log, files(p.Records+".1", p.Records))
		served := 0
		for _, a := range log.sentAfter(rotated).seen {
			if a.status == 200 {
				served++
			}
		}
		if served == 0 {
			t.Error("no request sent after the full file was emptied was served")
		}
	})

	t.Run("rotated by rename, killed", func(t *testing.T) {
		p := st.Start(t, f.server, bundles)
		stop := make(chan struct{})
		log := load(t, p.URL, "renamed", 4, stop)
		randomly(rng, 300*time.Millisecond, time.Second)
		if err := os.Rename(p.Records, p.Records+".1"); err != nil {
			t.Fatal(err)
		}
		killAfter(t, p, rng, 300*time.Millisecond, time.Second, stop)
		if _, err := os.Stat(p.Records); err != nil {
			t.Fatalf("no records file at the path after the rename: %v", err)
		}
		checkProperty(t, "rotated by rename", log, files(p.Records+".1", p.Records))
	})

	t.Run("deleted, killed", func(t *testing.T) {
		p := st.Start(t, f.server, bundles)
		stop := make(chan struct{})
		log := load(t, p.URL, "deleted", 4, stop)
		randomly(rng, 300*time.Millisecond, time.Second)
		if err := os.Remove(p.Records); err != nil {
			t.Fatal(err)
		}
		deleted := time.Now()
		killAfter(t, p, rng, 500*time.Millisecond, time.Second, stop)
		// Records written before the deletion went with the file; every request sent after it
		// is recorded in the file reopened at the path.
		after := log.sentAfter(deleted)
		if len(after.seen) == 0 {
			t.Fatal("no answer to a request sent after the deletion")
		}
		checkProperty(t, "deleted", after, files(p.Records))
	})

	t.Run("concurrent appender, killed", func(t *testing.T) {
		p := st.Start(t, f.server, bundles)
		other, err := os.OpenFile(p.Records, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer other.Close()
		stop := make(chan struct{})
		log := load(t, p.URL, "appender", 4, stop)
		appended := 0
		done := make(chan struct{})
		go func() { // another writer's whole lines, of every length, between the server's
			defer close(done)
			for ; ; appended++ {
				select {
				case <-stop:
					return
				case <-time.After(time.Millisecond):
				}
				fmt.Fprintf(other, `{"request_id":"other-%d","status":200,"route":"%s"}`+"\n", appended, strings.Repeat("x", appended%300))
			}
		}()
		killAfter(t, p, rng, 500*time.Millisecond, 2*time.Second, stop)
		<-done
		byID := checkProperty(t, "concurrent appender", log, files(p.Records))
		for i := range appended {
			if id := fmt.Sprintf("other-%d", i); len(byID[id]) != 1 {
				t.Errorf("the other appender's line %s: %d whole copies, want 1", id, len(byID[id]))
			}
		}
	})

	t.Run("stalled through SIGTERM", func(t *testing.T) {
		sink := newFIFOSink(t)
		stopReading := sink.readEvery(every(10 * time.Millisecond))
		p := st.Start(t, f.server, bundles, "--records", sink.path, "--drain-timeout", "1s")
		stop := make(chan struct{})
		log := load(t, p.URL, "stalled", 4, stop)
		randomly(rng, 300*time.Millisecond, time.Second)
		stopReading() // then never read again while the server runs
		randomly(rng, 100*time.Millisecond, 500*time.Millisecond)
		p.Signal(syscall.SIGTERM)
		if code := exitWithin(t, p, time.Minute); code != 1 { // a 1 s drain
			t.Errorf("exit status %d with records stalled at SIGTERM, want 1", code)
		}
		close(stop)
		sink.drain() // what the pipe still holds was written before the exit
		checkProperty(t, "stalled through SIGTERM", log, sink.buf.Bytes())
	})

	t.Run("failing (/dev/full)", func(t *testing.T) {
		port := freeLoopbackPort(t)
		url := fmt.Sprintf("http://127.0.0.1:%d", port)
		cmd := exec.Command(f.server, "--addr", fmt.Sprintf("127.0.0.1:%d", port), "--records", "/dev/full", "--bundle", bundles[0], "--bundle", bundles[1])
		cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		waitListening(t, url)
		stop := make(chan struct{})
		log := load(t, url, "devfull", 4, stop)
		time.Sleep(time.Second + time.Duration(rng.Int64N(int64(time.Second))))
		close(stop)
		checkProperty(t, "failing (/dev/full)", log, nil)
		twoXX := 0
		for _, a := range log.seen {
			if a.status < 300 {
				twoXX++
			}
		}
		if twoXX > 0 {
			t.Errorf("%d answers were 2xx with no record possible", twoXX)
		}
		if len(log.seen) == 0 {
			t.Error("no answer seen")
		}
	})
}
