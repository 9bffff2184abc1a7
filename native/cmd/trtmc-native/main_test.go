package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The CLI is tested as a user runs it: the real binary, a real bundle, real clips.

func buildCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "trtmc-native")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func run(t *testing.T, bin string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = "../../.."
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return string(out), exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

func TestCLIBuildInspectTranscribeGate(t *testing.T) {
	bin := buildCLI(t)
	bundlePath := filepath.Join(t.TempDir(), "an4.bundle")
	if out, code := run(t, bin, "build", "--manifest", "native/families/sphinx/manifests/sphinx-an4-l0.json", "-o", bundlePath); code != 0 {
		t.Fatalf("build exit %d: %s", code, out)
	}
	out, code := run(t, bin, "inspect", bundlePath)
	var ins Inspection
	if code != 0 || json.Unmarshal([]byte(out), &ins) != nil {
		t.Fatalf("inspect exit %d: %s", code, out)
	}
	if ins.Header.Profile != "sphinx-an4-l0" || len(ins.SHA256) != 64 || ins.Tasks[0].Name != "speech_transcription" || len(ins.Tasks[0].Controls) == 0 {
		t.Fatalf("inspection = %+v", ins)
	}
	out, code = run(t, bin, "transcribe", bundlePath, "--input", "/usr/share/pocketsphinx/test/data/cards/004.wav", "--json")
	var tr TranscribeOutput
	if code != 0 || json.Unmarshal([]byte(out), &tr) != nil {
		t.Fatalf("transcribe exit %d: %s", code, out)
	}
	if tr.Text != "five five" || tr.PublicTaskMS <= 0 || tr.BundleSHA256 != ins.SHA256 || tr.AudioSeconds < 1.5 {
		t.Fatalf("transcribe = %+v", tr)
	}
	if out, code = run(t, bin, "gate", bundlePath); code != 0 || !strings.HasPrefix(out, "PASS gate sphinx-an4-l0/sphinx-an4-l0-cards") {
		t.Fatalf("gate exit %d: %s", code, out)
	}
}

func TestCLIErrors(t *testing.T) {
	bin := buildCLI(t)
	if out, code := run(t, bin, "frobnicate"); code != 2 || !strings.Contains(out, "unknown command") {
		t.Errorf("unknown command: exit %d %s", code, out)
	}
	if out, code := run(t, bin, "build"); code != 2 || !strings.Contains(out, "--manifest and -o are required") {
		t.Errorf("build without flags: exit %d %s", code, out)
	}
	junk := filepath.Join(t.TempDir(), "junk.bundle")
	if err := os.WriteFile(junk, []byte("definitely not a bundle"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, code := run(t, bin, "inspect", junk); code != 1 || !strings.Contains(out, "not a bundle") {
		t.Errorf("inspect junk: exit %d %s", code, out)
	}
	if out, code := run(t, bin, "--help"); code != 0 || !strings.Contains(out, "trtmc-native gate X.bundle") {
		t.Errorf("--help: exit %d %s", code, out)
	}
}
