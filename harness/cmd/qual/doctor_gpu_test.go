package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/target"
)

// On the newer-layout fixture, doctor --gpu names each serving piece a row needs and finds each
// once it is there: the worker, every family's runtime library, cmake with a configured CTest tree,
// and mpirun for the distributed rows.
func TestDoctorGPUChecksWhatTheRowsNeed(t *testing.T) {
	root := filepath.Join(repoRootForTest(t), "suites", "targets", "testdata", "trtmc-newer")
	tg, err := target.Read(filepath.Join(repoRootForTest(t), "suites", "targets", "trtmc.yaml"), root)
	if err != nil {
		t.Fatal(err)
	}
	rows := targetRows(tg)
	t.Setenv("PATH", t.TempDir())
	byName := func(fs []finding) map[string]finding {
		m := map[string]finding{}
		for _, f := range fs {
			m[f.what] = f
		}
		return m
	}
	missing := byName(servingStackFindings(tg, rows))
	for _, what := range []string{"TRTMC serving worker", "TRTMC runtime libraries", "cmake and the native CTest tree", "mpirun (distributed rows)"} {
		if f, ok := missing[what]; !ok || f.ok {
			t.Errorf("%s: %+v (present %v), want it checked and missing", what, f, ok)
		}
	}
	if d := missing["TRTMC runtime libraries"].detail; !strings.Contains(d, "libtrtmc_model_parakeet_tdt.so") || !strings.Contains(d, "libtrtmc_backend_trt.so") {
		t.Errorf("runtime libraries: %s", d)
	}
	if missing["mpirun (distributed rows)"].blocker {
		t.Error("mpirun blocks a run although distributed rows are only planned")
	}

	build, bin := t.TempDir(), t.TempDir()
	for _, f := range append(runtimeLibraries(rows), "trtmc_benchmark_worker", "CTestTestfile.cmake") {
		if err := os.WriteFile(filepath.Join(build, f), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"cmake", "mpirun"} {
		if err := os.WriteFile(filepath.Join(bin, f), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	tg.Overrides = map[string]string{"worker": filepath.Join(build, "trtmc_benchmark_worker"), "runtime_root": build, "native_build": build}
	for what, f := range byName(servingStackFindings(tg, rows)) {
		if !f.ok {
			t.Errorf("%s still missing: %s", what, f.detail)
		}
	}
}

func repoRootForTest(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(wd, "..", "..", "..")
}
