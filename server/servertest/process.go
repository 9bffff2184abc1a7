// Package servertest starts the real trtmc-server binary on loopback for tests and benchmarks,
// and builds the reference bundles it serves.
package servertest

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/trtmc-qual/trtmc-qual/native/manifest"
	"github.com/trtmc-qual/trtmc-qual/native/registry"
)

// RepoRoot is the checkout root.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// BuildBinary compiles a command of this module (e.g. "server/cmd/trtmc-server") into dir,
// with extra go build flags (e.g. "-race"; the binary is then named with a suffix).
func BuildBinary(tb testing.TB, pkg, dir string, flags ...string) string {
	tb.Helper()
	bin := filepath.Join(dir, filepath.Base(pkg))
	if len(flags) > 0 {
		bin += "-" + strings.NewReplacer("-", "", " ", "").Replace(strings.Join(flags, ""))
	}
	cmd := exec.Command("go", append(append([]string{"build"}, flags...), "-o", bin, "./"+pkg)...)
	cmd.Dir = RepoRoot()
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// BuildBundle builds a reference profile's bundle into dir.
func BuildBundle(tb testing.TB, family, profile, dir string) string {
	tb.Helper()
	m, err := manifest.Read(filepath.Join(RepoRoot(), "native", "families", family, "manifests", profile+".json"))
	if err != nil {
		tb.Fatal(err)
	}
	out := filepath.Join(dir, profile+".bundle")
	if _, err := registry.Build(m, out); err != nil {
		tb.Fatal(err)
	}
	return out
}

// Process is a running trtmc-server.
type Process struct {
	URL     string
	Records string
	// StartupRecords is how many records the readiness polling left before Start returned.
	StartupRecords int
	cmd            *exec.Cmd
	stderr         *strings.Builder
	done           chan error
}

// Start runs the binary with the bundles and extra flags on a free loopback port and waits for
// /health/ready. The process is stopped (SIGTERM, then kill) at test cleanup.
func Start(tb testing.TB, bin string, bundles []string, extra ...string) *Process {
	tb.Helper()
	return StartEnv(tb, nil, bin, bundles, extra...)
}

// StartEnv is Start with extra environment variables ("K=V") for the process.
func StartEnv(tb testing.TB, env []string, bin string, bundles []string, extra ...string) *Process {
	tb.Helper()
	port := freePort(tb)
	records := filepath.Join(tb.TempDir(), "records.jsonl")
	args := []string{"--addr", fmt.Sprintf("127.0.0.1:%d", port), "--records", records}
	for _, b := range bundles {
		args = append(args, "--bundle", b)
	}
	for i, a := range extra { // a later --records wins (flag package): the test's own sink
		if a == "--records" && i+1 < len(extra) {
			records = extra[i+1]
		}
	}
	p := &Process{URL: fmt.Sprintf("http://127.0.0.1:%d", port), Records: records, stderr: &strings.Builder{}, done: make(chan error, 1)}
	p.cmd = exec.Command(bin, append(args, extra...)...)
	p.cmd.Stderr = &lockedWriter{b: p.stderr}
	// The server's private temp dir (url-format artifacts) goes under the test's own temp dir,
	// so a test that kills the process leaves nothing in /tmp; env may still set TMPDIR.
	p.cmd.Env = append(append(os.Environ(), "TMPDIR="+tb.TempDir()), env...)
	if err := p.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	tb.Cleanup(func() { p.Stop(tb) })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		resp, err := http.Get(p.URL + "/health/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				if st, err := os.Stat(p.Records); err == nil && st.Mode().IsRegular() {
					p.StartupRecords = len(p.RecordLines(tb))
				}
				return p
			}
		}
		select {
		case err := <-p.done:
			p.done <- err
			tb.Fatalf("trtmc-server exited before ready: %v\n%s", err, p.Stderr())
		case <-ctx.Done():
			tb.Fatalf("trtmc-server not ready after 60s\n%s", p.Stderr())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Stop sends SIGTERM and waits for a clean exit; it returns the exit error.
func (p *Process) Stop(tb testing.TB) error {
	if p.cmd.ProcessState != nil {
		return nil
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.done:
		p.done <- err
		return err
	case <-time.After(90 * time.Second):
		p.cmd.Process.Kill()
		tb.Errorf("trtmc-server did not stop on SIGTERM\n%s", p.Stderr())
		return fmt.Errorf("killed")
	}
}

// Wait returns the exit error once the process has exited.
func (p *Process) Wait() error {
	err := <-p.done
	p.done <- err
	return err
}

// Signal sends a signal to the process.
func (p *Process) Signal(sig os.Signal) error { return p.cmd.Process.Signal(sig) }

// Stderr is what the server logged.
func (p *Process) Stderr() string {
	w := p.cmd.Stderr.(*lockedWriter)
	w.mu.Lock()
	defer w.mu.Unlock()
	return p.stderr.String()
}

// Pid is the server's process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// lockedWriter lets a test read stderr while the process still writes it.
type lockedWriter struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// RecordLines reads the records file as lines.
func (p *Process) RecordLines(tb testing.TB) []string {
	tb.Helper()
	f, err := os.Open(p.Records)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}

func freePort(tb testing.TB) int {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
