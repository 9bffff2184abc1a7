package target

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A worker that fails to load ends `serve` as TRTMC's does: backends/trtmc.py @7b798a32 raises
// BackendUnavailable (a RuntimeError, backends/base.py @db5a3def) "worker failed to load: ...",
// and cli.py @1797a247 main turns every ValueError/RuntimeError of serve into
// "trtmc-perf-serve: ..." on stderr and exit 2 — not a traceback and exit 1. The serving
// packages are empty stand-ins here: the worker fails before any of them is used.
func TestDoubleServeEndsAsTRTMCsWhenTheWorkerFailsToLoad(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Fatalf("python3 is required: %v", err)
	}
	double, dir := filepath.Join(repoRoot(), "suites", "targets", "testdata", "trtmc-double"), t.TempDir()
	stubs := filepath.Join(dir, "stubs")
	for _, pkg := range []string{"fastapi", "uvicorn", "multipart", "numpy", "PIL", "soundfile"} {
		if err := os.MkdirAll(filepath.Join(stubs, pkg), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(stubs, pkg, "__init__.py"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, c := range map[string]struct{ script, says string }{
		"failed event": {"echo '{\"event\": \"failed\", \"error\": \"cannot load the bundle\"}'", "worker failed to load: cannot load the bundle"},
		"no line":      {"exit 3", "worker exited during worker startup (code"},
	} {
		worker := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
		if err := os.WriteFile(worker, []byte("#!/bin/sh\n"+c.script+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		serveWithWorker(t, python, double, dir, stubs, worker, name, c.says)
	}
}

func serveWithWorker(t *testing.T, python, double, dir, stubs, worker, name, says string) {
	t.Helper()
	cmd := exec.Command(python, "-m", "trtmc_perf_serving.cli", "serve", "--manifest-root", filepath.Join(double, "families"),
		"--profile", "procdiff-small", "--backend", "trtmc", "--bundle", filepath.Join(dir, "x.bundle"), "--runtime-root", dir,
		"--worker", worker, "--records", filepath.Join(dir, "records.jsonl"), "--scratch", filepath.Join(dir, "scratch"))
	cmd.Env = append(os.Environ(), "PYTHONPATH="+stubs+string(os.PathListSeparator)+filepath.Join(double, "apps", "perf_serving"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(stderr.String(), "trtmc-perf-serve: "+says) ||
		strings.Contains(stderr.String(), "Traceback") {
		t.Errorf("%s: %v, stderr:\n%s", name, err, stderr.String())
	}
}

// The double's app materializes inline files as TRTMC's files.py @c94a23d3 materialize_files
// does (app.py @1797a247 execute, for every route): inputs/input-NNNN<suffix>, and a ValueError
// (400 invalid_request) for a reference with sibling keys, a suffix that is long or leaves the
// directory, or invalid base64 — refused, never written.
func TestDoubleMaterializesInlineFilesAsTRTMCsFilesPy(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Fatalf("python3 is required: %v", err)
	}
	double, dir := filepath.Join(repoRoot(), "suites", "targets", "testdata", "trtmc-double"), t.TempDir()
	script := `
import json, sys
from pathlib import Path
from trtmc_perf_serving import app
inputs = Path(sys.argv[1])
ok = app.materialize({"audio_path": {"$file": {"suffix": ".wav", "b64": "UklGRg=="}}, "n": [{"$file": {"b64": ""}}]}, inputs)
out = {"ok": ok, "refused": {}}
for name, ref in {"siblings": {"$file": {"b64": ""}, "x": 1}, "long suffix": {"$file": {"suffix": "." + "a" * 16, "b64": ""}},
                  "slash": {"$file": {"suffix": "/x", "b64": ""}}, "dotdot": {"$file": {"suffix": "..", "b64": ""}},
                  "base64": {"$file": {"suffix": ".wav", "b64": "not base64!"}}, "no b64": {"$file": {"suffix": ".wav"}}}.items():
    try:
        app.materialize({"image_path": ref}, inputs / name)
        out["refused"][name] = False
    except ValueError:
        out["refused"][name] = not (inputs / name).exists()
print(json.dumps(out))
`
	cmd := exec.Command(python, "-c", script, dir)
	cmd.Env = append(os.Environ(), "PYTHONPATH="+filepath.Join(double, "apps", "perf_serving"))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var got struct {
		OK struct {
			AudioPath string   `json:"audio_path"`
			N         []string `json:"n"`
		} `json:"ok"`
		Refused map[string]bool `json:"refused"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got.OK.AudioPath != filepath.Join(dir, "input-0000.wav") || len(got.OK.N) != 1 || got.OK.N[0] != filepath.Join(dir, "input-0001") {
		t.Errorf("materialized %+v", got.OK)
	}
	if data, err := os.ReadFile(got.OK.AudioPath); err != nil || string(data) != "RIFF" {
		t.Errorf("the written file: %q %v", data, err)
	}
	for name, refused := range got.Refused {
		if !refused {
			t.Errorf("%s: not refused as files.py refuses it", name)
		}
	}
	if len(got.Refused) != 6 {
		t.Errorf("refusals %v", got.Refused)
	}
}
