package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/native/audio"
)

// Request counts of BenchmarkPeerOverhead per server and concurrency (bounded: it stops by
// itself), after a warmup of peerWarmup requests, sent in peerRounds rounds that take turns
// between the servers, so that a drift of the machine's load meets all of them alike.
const (
	peerRequests = 2000
	peerWarmup   = 200
	peerRounds   = 10
)

// BenchmarkPeerOverhead compares trtmc-server with a FastAPI + uvicorn peer (server/peerbench,
// installed by server/peerbench/setup.sh, whose python is $QUAL_PEER_PYTHON) in one run: the
// same client sends the same 1 s multipart upload to the transcription route of each, both
// calling a no-op Task, and reports client latency minus the Task's wall time (what each server
// costs) p50/p95 at concurrency 1 and 16, and our/peer ratios. Goal: ratio <= 0.5, and ours
// <= 0.3 / 0.8 ms p50/p95 at concurrency 1. trtmc-server (with a no-op Task: a test double that
// no bundle provides) runs as this test binary in a process of its own, like the peer.
//
// A third server is the floor: a bare net/http handler that discards the body and answers a
// fixed JSON, which is what the client, the kernel and Go's HTTP stack cost before a server
// does any work. It is printed so that the ratios can be read against what is attainable, with
// the ratio of what each server adds above it (server − floor, ours over the peer's).
//
// Each configuration is run twice. First with every server on the same one CPU (taskset; they
// take turns, so each has it to itself while measured) and the client left to the kernel,
// which runs it on the others: equal resources, since the peer is one uvicorn worker, one
// thread of Python, while Go sizes GOMAXPROCS to the CPUs it may use; this is the line the
// goal is read on. Then unpinned, as the servers start by default, where on a machine of
// two CPUs ours' second P competes with the client for its CPU (a runtime trace shows about
// two wake-ups of the idle P a request, the first for net/http's background read of the
// connection).
func BenchmarkPeerOverhead(b *testing.B) {
	python := os.Getenv("QUAL_PEER_PYTHON")
	if python == "" {
		b.Skip("QUAL_PEER_PYTHON is not set: run `make bench`, which builds the peer with server/peerbench/setup.sh")
	}
	payload, contentType := oneSecondUpload()
	placements := peerPlacements(b)
	urls := make([][]string, len(placements))
	for i, p := range placements {
		urls[i] = []string{startOurs(b, "trtmc", p.prefix), startPeer(b, python, p.prefix), startOurs(b, "floor", p.prefix)}
	}
	for b.Loop() {
		for i, p := range placements {
			for _, conc := range []int{1, 16} {
				report(b, p, conc, urls[i], payload, contentType)
			}
		}
	}
}

// placement is where the benchmark's servers run: the command prefix that puts them there.
type placement struct {
	name   string
	prefix []string
}

// pinned says the servers run on one CPU: the configuration the goal is read on.
func (p placement) pinned() bool { return len(p.prefix) > 0 }

// peerPlacements are one CPU each (the last CPU this process may use, by taskset) and then
// unpinned. On a machine with one CPU only, pinning would put the client on the servers' CPU:
// only the unpinned run is made, and it says so.
func peerPlacements(b *testing.B) []placement {
	unpinned := placement{name: "unpinned", prefix: nil}
	var cpus unix.CPUSet
	if err := unix.SchedGetaffinity(0, &cpus); err != nil {
		b.Fatalf("CPUs this process may use: %v", err)
	}
	if cpus.Count() < 2 {
		fmt.Println("peer-bench: one CPU only, so no run with the servers on a CPU of their own")
		return []placement{unpinned}
	}
	taskset, err := exec.LookPath("taskset")
	if err != nil {
		b.Fatalf("taskset (util-linux) is needed to give each server one CPU: %v", err)
	}
	last := -1
	for cpu := range 1024 {
		if cpus.IsSet(cpu) {
			last = cpu
		}
	}
	cpu := strconv.Itoa(last)
	return []placement{{name: "one CPU each (cpu " + cpu + ")", prefix: []string{taskset, "-c", cpu}}, unpinned}
}

// report drives the three servers at concurrency conc and prints their client − Task p50/p95,
// ours' over the peer's, the floor's, and ours' above the floor over the peer's.
func report(b *testing.B, where placement, conc int, urls []string, payload []byte, contentType string) {
	var p50, p95 [3]float64
	overs, handler := drive(b, urls, payload, contentType, conc)
	for i, over := range overs {
		p50[i], p95[i] = pct(over, 50), pct(over, 95)
	}
	goal := "the goal is read pinned"
	if where.pinned() {
		goal = "goal <= 0.50"
		b.ReportMetric(p50[0], fmt.Sprintf("ours-c%d-p50-ms", conc))
		b.ReportMetric(p95[0], fmt.Sprintf("ours-c%d-p95-ms", conc))
		b.ReportMetric(p50[1], fmt.Sprintf("peer-c%d-p50-ms", conc))
		b.ReportMetric(p95[1], fmt.Sprintf("peer-c%d-p95-ms", conc))
	}
	fmt.Printf("peer-bench %s c=%-2d client-minus-Task  trtmc-server p50 %.3f ms p95 %.3f ms (handler_ms p50 %.3f) | fastapi+uvicorn p50 %.3f ms p95 %.3f ms | ratio p50 %.2f p95 %.2f (%s) | floor p50 %.3f ms p95 %.3f ms (ratio %.2f / %.2f) | above the floor: ratio p50 %.2f p95 %.2f\n",
		where.name, conc, p50[0], p95[0], pct(handler, 50), p50[1], p95[1], p50[0]/p50[1], p95[0]/p95[1], goal, p50[2], p95[2], p50[2]/p50[1], p95[2]/p95[1],
		(p50[0]-p50[2])/(p50[1]-p50[2]), (p95[0]-p95[2])/(p95[1]-p95[2]))
}

// peerServeEnv, when set to an address, makes the test binary serve trtmc-server's handler with
// a no-op Task there instead of running tests (see TestMain): the benchmark's own server
// process, so that ours runs in a process of its own like the peer. With peerFloorEnv=1 it
// serves the floor handler instead.
const (
	peerServeEnv = "TRTMC_PEERBENCH_SERVE"
	peerFloorEnv = "TRTMC_PEERBENCH_FLOOR"
)

// floorAnswer is the floor server's fixed answer, in the shape the client checks.
const floorAnswer = `{"text":"ok","trtmc_timing":{"queue_ms":0,"model_call_ms":0,"handler_ms":0}}`

// serveNoop serves trtmc-server's handler, with the binary's http.Server settings, and a no-op
// Task (a test double: "noop" is no model) on addr until the process is killed; or, with
// peerFloorEnv=1, the floor: a bare handler that discards the body and answers floorAnswer.
func serveNoop(addr string) error {
	if os.Getenv(peerFloorEnv) == "1" {
		return (&http.Server{Addr: addr, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, floorAnswer)
		})}).ListenAndServe()
	}
	TuneGC(DefaultGCPercent, DefaultMemoryLimitMB) // as trtmc-server's defaults
	dir, err := os.MkdirTemp("", "peerbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	s, err := New(Config{Bundles: []string{"unused"}, Lanes: 16, QueueDepth: 1024, RecordsPath: filepath.Join(dir, "records.jsonl")})
	if err != nil {
		return err
	}
	s.models["noop"] = newServedModel("memory", testBundle("noop"), noopTranscriber{}, 16, 1024)
	s.order = []string{"noop"}
	s.ready.Store(true)
	hs := &http.Server{Addr: addr, Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 30 * time.Second,
		DisableGeneralOptionsHandler: true}
	return hs.ListenAndServe()
}

// startOurs runs this test binary as the no-op trtmc-server ("trtmc") or the floor ("floor")
// on a free loopback port, under the placement's command prefix.
func startOurs(b *testing.B, which string, prefix []string) string {
	url := freeLoopbackURL(b)
	cmd := prefixed(prefix, os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), peerServeEnv+"="+strings.TrimPrefix(url, "http://"))
	if which == "floor" {
		cmd.Env = append(cmd.Env, peerFloorEnv+"=1")
	}
	return startAndWait(b, cmd, url, "/health/live")
}

func freeLoopbackURL(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	return "http://" + ln.Addr().String()
}

// prefixed is the command name args run under prefix (a placement's taskset), or as is.
func prefixed(prefix []string, name string, args ...string) *exec.Cmd {
	if len(prefix) == 0 {
		return exec.Command(name, args...)
	}
	return exec.Command(prefix[0], append(append(prefix[1:len(prefix):len(prefix)], name), args...)...)
}

// startAndWait starts cmd, stops it at cleanup, and waits until url+probe answers.
func startAndWait(b *testing.B, cmd *exec.Cmd, url, probe string) string {
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		if resp, err := http.Get(url + probe); err == nil {
			resp.Body.Close()
			return url
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.Fatalf("%s not up after 30 s: %s", cmd.Path, stderr.String())
	return ""
}

// startPeer runs the FastAPI app under uvicorn (one worker, uvloop and httptools, access log
// off: its production settings) on a free loopback port and waits for it.
func startPeer(b *testing.B, python string, prefix []string) string {
	url := freeLoopbackURL(b)
	_, port, _ := strings.Cut(strings.TrimPrefix(url, "http://"), ":")
	cmd := prefixed(prefix, python, "-m", "uvicorn", "peer:app", "--host", "127.0.0.1", "--port", port,
		"--workers", "1", "--loop", "uvloop", "--http", "httptools", "--no-access-log", "--log-level", "warning")
	cmd.Dir = filepath.Join(repoRoot(), "server", "peerbench")
	return startAndWait(b, cmd, url, "/health/ready")
}

// oneSecondUpload is a 1 s 16 kHz clip of seeded noise at a quarter of full scale, as a
// multipart upload. Not silence: a recording's bytes take every value, while silence is all
// zero bytes, the worst case of Go's multipart boundary scan (which looks backwards through
// each 4 KiB window for a '\r'; ~10 us a request more).
func oneSecondUpload() ([]byte, string) {
	noise := rand.New(rand.NewPCG(1, 2))
	pcm := make([]int16, 16000)
	for i := range pcm {
		pcm[i] = int16(noise.IntN(1<<14) - 1<<13)
	}
	return clipUpload(audio.EncodePCM16(pcm, 1, 16000), "noop")
}

// drive sends each server peerWarmup uploads, then peerRequests in peerRounds turns, from conc
// workers with a keep-alive connection each, and returns per server each measured request's
// client latency minus the Task wall time the server reported, and the handler time the first
// server reported (trtmc_timing.handler_ms: the part of it inside its handler), in ms.
//
// The client is wrk's kind, not net/http's: each worker writes the prepared request on its own
// connection and reads the response on the same goroutine. http.Client hands every request to
// a connection's write and read goroutines (two more wake-ups each way), which on two cores
// cost ~0.1 ms a request: the same for every server, it is no server's overhead and only
// pulled every ratio towards 1.
func drive(b *testing.B, urls []string, payload []byte, contentType string, conc int) (over [][]float64, handler []float64) {
	clients := make([][]*rawClient, len(urls))
	for i, url := range urls {
		clients[i] = dialClients(b, url, payload, contentType, conc)
		batch(b, clients[i], peerWarmup)
	}
	over = make([][]float64, len(urls))
	for range peerRounds {
		for i, cs := range clients {
			o, h := batch(b, cs, peerRequests/peerRounds)
			over[i] = append(over[i], o...)
			if i == 0 {
				handler = append(handler, h...)
			}
		}
	}
	return over, handler
}

// dialClients opens conc keep-alive connections to url, closed at cleanup.
func dialClients(b *testing.B, url string, payload []byte, contentType string, conc int) []*rawClient {
	host := strings.TrimPrefix(url, "http://")
	request := fmt.Appendf(nil, "POST /v1/audio/transcriptions HTTP/1.1\r\nHost: %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n",
		host, contentType, len(payload))
	request = append(request, payload...)
	clients := make([]*rawClient, conc)
	for i := range clients {
		conn, err := net.Dial("tcp", host)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { conn.Close() })
		clients[i] = &rawClient{url: url, conn: conn, in: bufio.NewReader(conn), request: request}
	}
	return clients
}

// batch sends n requests spread over the clients, each client on a goroutine of its own.
func batch(b *testing.B, clients []*rawClient, n int) (over, handler []float64) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Go(func() {
			for range n / len(clients) {
				v, h, err := c.roundTrip()
				if err != nil {
					b.Error(c.url, err)
					return
				}
				mu.Lock()
				over, handler = append(over, v), append(handler, h)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}
	return over, handler
}

// rawClient sends one prepared request at a time on one keep-alive connection.
type rawClient struct {
	url     string
	conn    net.Conn
	in      *bufio.Reader
	request []byte
}

// roundTrip sends the request, reads the answer, and returns the client latency minus the Task
// wall time the server reported (trtmc_timing.model_call_ms) and its handler_ms, in ms.
func (c *rawClient) roundTrip() (over, handler float64, err error) {
	start := time.Now()
	if _, err := c.conn.Write(c.request); err != nil {
		return 0, 0, err
	}
	resp, err := http.ReadResponse(c.in, nil)
	if err != nil {
		return 0, 0, err
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	lat := float64(time.Since(start).Nanoseconds()) / 1e6
	var r struct {
		Text   string          `json:"text"`
		Timing contract.Timing `json:"trtmc_timing"`
	}
	if err != nil || resp.StatusCode != 200 || json.Unmarshal(data, &r) != nil || r.Text != "ok" {
		return 0, 0, fmt.Errorf("%d %s %v", resp.StatusCode, data, err)
	}
	return lat - r.Timing.ModelCallMS, r.Timing.HandlerMS, nil
}
