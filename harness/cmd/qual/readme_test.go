package main

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// readmeBlock is the first ```sh block after the README heading.
func readmeBlock(t *testing.T, heading string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(data), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no heading %q", heading)
	}
	_, block, ok := strings.Cut(after, "```sh\n")
	block, _, closed := strings.Cut(block, "\n```")
	if !ok || !closed {
		t.Fatalf("no ```sh block under %q", heading)
	}
	return block
}

// The README's example without the harness runs as written: a bundle, trtmc-server, AIPerf
// from PyPI, and AIPerf's raw export and the server's records hold every request. On a machine
// that cannot reach PyPI, pip is pointed at the wheelhouse `make deps` filled (PIP_* variables:
// the block itself is unchanged).
func TestReadmeExampleWithoutTheHarness(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the binaries, installs AIPerf in a venv and profiles a server; make test runs it")
	}
	block := readmeBlock(t, "## One request path without the harness")
	tmp := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", block)
	cmd.Dir = repoRoot()
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "PORT="+port)
	cache := os.Getenv("QUAL_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "trtmc-qual")
	}
	if wheels, _ := filepath.Glob(filepath.Join(cache, "wheels", "aiperf-0.13.0-*")); len(wheels) > 0 {
		cmd.Env = append(cmd.Env, "PIP_NO_INDEX=1", "PIP_FIND_LINKS="+wheels[0])
	}
	// pip byte-compiles every module it installs (AIPerf brings plotly, pandas, matplotlib, dash:
	// tens of thousands of files) for a venv that runs one profile and is removed; Python
	// compiles what that profile imports when it imports it, so what runs is the same.
	cmd.Env = append(cmd.Env, "PIP_NO_COMPILE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the README block failed: %v\n%s", err, out)
	}
	dirs, _ := filepath.Glob(filepath.Join(tmp, "tmp.*"))
	if len(dirs) != 1 {
		t.Fatalf("the block's work directory: %v", dirs)
	}
	w := dirs[0]
	if n := lines(t, filepath.Join(w, "aiperf", "profile_export_raw.jsonl"), ""); n != 5 {
		t.Errorf("AIPerf exported %d requests, want 1 warmup + 4", n)
	}
	// The server records every request: the readiness polls too.
	if n := lines(t, filepath.Join(w, "records.jsonl"), `"route":"/v1/audio/transcriptions"`); n != 5 {
		t.Errorf("the server recorded %d transcriptions, want 5", n)
	}
}

// lines counts the non-empty lines of path that contain substr.
func lines(t *testing.T, path, substr string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Error(err)
		return 0
	}
	n := 0
	for _, line := range strings.Split(string(data), "\n") { // lines carry base64 audio: no Scanner limit
		if strings.TrimSpace(line) != "" && strings.Contains(line, substr) {
			n++
		}
	}
	return n
}
