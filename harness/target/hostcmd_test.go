package target

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestExecRunnerTimeoutLeavesNoProcessBehind: a fake builder starts a grandchild (as trtmc-bench
// starts `trtmc build`) and both sleep past the timeout. When ExecRunner returns, neither may be
// alive: a surviving build would hold the GPU while the next row starts.
func TestExecRunnerTimeoutLeavesNoProcessBehind(t *testing.T) {
	dir := t.TempDir()
	pids := filepath.Join(dir, "pids")
	script := "sleep 300 & echo $! >> " + pids + "; echo $$ >> " + pids + "; sleep 300"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	if _, err := ExecRunner(ctx, []string{"sh", "-c", script}, nil, dir); err == nil {
		t.Fatal("a command killed at its timeout reported success")
	}
	if took := time.Since(start); took > waitDelay+30*time.Second {
		t.Fatalf("ExecRunner returned %s after its timeout: Wait was held by a surviving process", took)
	}
	data, err := os.ReadFile(pids)
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(data))
	if len(fields) != 2 {
		t.Fatalf("the fake builder recorded pids %q, want its own and its grandchild's", fields)
	}
	for _, f := range fields {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		requireGone(t, pid, "its command's timeout")
	}
}

// However a command ends by itself (exit 0, exit 1), what it left running in its group is ended
// too: a gate that returns while its native run or engine build still runs must not leave that
// process on the GPU for the next row. The grandchild lets go of stdout, so nothing holds Wait.
func TestExecRunnerLeavesNoProcessBehindWhenTheCommandExits(t *testing.T) {
	for _, exit := range []string{"0", "1"} {
		dir := t.TempDir()
		pids := filepath.Join(dir, "pids")
		script := "sleep 300 >/dev/null 2>&1 </dev/null & echo $! > " + pids + "; exit " + exit
		_, err := ExecRunner(context.Background(), []string{"sh", "-c", script}, nil, dir)
		if (err == nil) != (exit == "0") {
			t.Fatalf("exit %s: ExecRunner error %v", exit, err)
		}
		data, err := os.ReadFile(pids)
		if err != nil {
			t.Fatal(err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		if err != nil {
			t.Fatal(err)
		}
		requireGone(t, pid, "its command's exit "+exit)
	}
}

// requireGone fails unless pid is gone (reaped, or a zombie of a reaped parent) within a moment
// for the kernel to finish the kill; a survivor is killed so the test leaves nothing behind.
func requireGone(t *testing.T, pid int, after string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if alive(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("process %d outlived %s", pid, after)
	}
}

// alive says whether pid is a running (not zombie) process.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(stat)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) > 0 && fields[0] != "Z"
}

func TestEnvironSetsAndUnsets(t *testing.T) {
	got := Environ([]string{"A=1", "PYTEST_ADDOPTS=-k nothing", "B=2", "AB=3"}, []string{"A=9", "PYTEST_ADDOPTS", "C=4"})
	want := []string{"B=2", "AB=3", "A=9", "C=4"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("Environ = %q, want %q", got, want)
	}
}

// A target that serves needs its worker: without it every row is planned, with the reason.
func TestMissingNamesTheServingWorker(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "trtmc")
	if err := os.WriteFile(bin, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	tg := &Target{Name: "t", Root: dir, Server: Server{Command: []string{"serve"}},
		Placeholders: map[string]string{"python": "sh", "trtmc_binary": bin, "worker": filepath.Join(dir, "build", "trtmc_benchmark_worker"), "image": "img"}}
	if got := tg.Missing(); !strings.Contains(got, "serving worker") {
		t.Fatalf("Missing() = %q, want the serving worker named", got)
	}
	if err := os.MkdirAll(filepath.Join(dir, "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "build", "trtmc_benchmark_worker"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := tg.Missing(); got != "" {
		t.Fatalf("Missing() = %q with every piece present", got)
	}
}
