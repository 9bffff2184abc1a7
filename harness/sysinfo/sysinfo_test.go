package sysinfo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

func TestProcParsing(t *testing.T) {
	if got := cpuModel("processor\t: 0\nmodel name\t: AMD EPYC 7B13\nflags\t: x\nmodel name\t: other\n"); got != "AMD EPYC 7B13" {
		t.Errorf("cpu %q", got)
	}
	if got := cpuField("processor\t: 0\nflags\t\t: fpu sse4_1 avx2\nvmx flags\t: ept\nflags\t: other\n", "flags"); got != "fpu sse4_1 avx2" {
		t.Errorf("flags %q", got)
	}
	if got := memoryGB("MemTotal:       16777216 kB\nMemFree: 1 kB\n"); got != 16 {
		t.Errorf("memory %v", got)
	}
	for _, bad := range []string{"", "MemTotal:\n", "MemTotal: lots kB\n"} {
		if got := memoryGB(bad); got != 0 {
			t.Errorf("memory of %q: %v", bad, got)
		}
	}
}

func TestVersionsNameWhatRan(t *testing.T) {
	v := Versions(context.Background(), "/nonexistent", "", "0.13.0")
	if v["aiperf"] != "0.13.0 (required)" || v["go"] != runtime.Version() || v["trtmc-qual"] != "unknown" {
		t.Errorf("%v", v)
	}
	if v := Versions(context.Background(), ".", "0.13.0", "0.13.0"); v["aiperf"] != "0.13.0" {
		t.Errorf("ran: %v", v)
	}
	if h := Hardware(""); h.GPU != "none" || h.Cores != runtime.NumCPU() {
		t.Errorf("%+v", h)
	}
}

// TestBuildTagsOfABinary builds a tiny Go program with and without a tag and reads the tag back
// from the binary's embedded build information (what the evidence records for trtmc-server).
func TestBuildTagsOfABinary(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skips two go builds (make test runs it)")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte("package main\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/tagged\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	build := func(name string, args ...string) string {
		out := filepath.Join(dir, name)
		cmd := exec.Command("go", append(append([]string{"build", "-o", out}, args...), ".")...)
		cmd.Dir, cmd.Env = dir, append(os.Environ(), "GOFLAGS=", "CGO_ENABLED=0")
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, msg)
		}
		return out
	}
	plain, tagged := build("plain"), build("tagged", "-tags", "qual_slowdown,other")
	self := BuildTags()
	if got := BuildTags(plain); !slices.Equal(got, self) {
		t.Errorf("untagged binary adds tags: %v (self %v)", got, self)
	}
	got := BuildTags(tagged, filepath.Join(dir, "missing"))
	if !slices.Contains(got, "qual_slowdown") || !slices.Contains(got, "other") || !slices.IsSorted(got) {
		t.Errorf("tagged binary: %v", got)
	}
	if BuildTagsValue(nil) != "none" || BuildTagsValue([]string{"a", "b"}) != "a,b" {
		t.Error("BuildTagsValue")
	}
}
