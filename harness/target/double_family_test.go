package target

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The family rules of trtmc.yaml on the contract double, one per family that differs from whisper
// (fidelity rows G2, G4-G6, N13, N16-N18 of suites/targets/testdata/trtmc-double/README.md).

// copiedDouble is the double's tree copied into a checkout-shaped temporary directory (its
// manifests' relative links and the gate's --root resolve as in the repository), with the sphinx
// family test's declared rules replaced: a family whose test differs from whisper's.
func copiedDouble(t *testing.T, rules string) string {
	t.Helper()
	root, tmp := repoRoot(), t.TempDir()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "suites" {
			if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(tmp, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	dst := filepath.Join(tmp, "suites", "targets", "testdata")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-a", filepath.Join(root, "suites", "targets", "testdata", "trtmc-double"), dst).CombinedOutput(); err != nil {
		t.Fatalf("copy the double: %v\n%s", err, out)
	}
	double := filepath.Join(dst, "trtmc-double")
	test := filepath.Join(double, "families", "sphinx", "tests", "test_e2e.py")
	if err := os.WriteFile(test, []byte("\"\"\"Contract double: a family test with other rules.\"\"\"\n"+rules), 0o644); err != nil {
		t.Fatal(err)
	}
	return double
}

// bedIn is a double bed over another copy of the double.
func bedIn(t *testing.T, double string) *doubleBed {
	t.Helper()
	b := newDoubleBed(t)
	tg, err := Read(b.tg.Path, double)
	if err != nil {
		t.Fatal(err)
	}
	tg.Placeholders["python"], tg.Placeholders["trtmc_binary"] = b.tg.Placeholders["python"], filepath.Join(double, "bin", "trtmc")
	b.tg, b.double = tg, double
	return b
}

// canary builds at tmp_path.parent (families/canary/tests/test_e2e.py @9777fef7): with --basetemp
// W/pytest-tmp that is W/pytest-tmp/<bundle>, which the gate_bundle globs must find, exactly once.
func TestDoubleCanaryBundleAtTmpPathParentIsTheOneBuiltAndGated(t *testing.T) {
	b := bedIn(t, copiedDouble(t, "BUNDLE_AT = \"tmp_path.parent\"\nREQUIRES_ENV = ()\n"))
	s, m := b.step("sphinx", "sphinx-en-us")
	ctx := context.Background()
	bundle, _, err := s.Build(ctx)
	if want := filepath.Join(b.work, "pytest-tmp", m.Bundle); err != nil || bundle != want {
		t.Fatalf("build by the gate: %q %v, want canary's %s", bundle, err, want)
	}
	rep, validated, err := s.Gate(ctx, []string{m.Testcases[0].Name})
	if err != nil || !rep.Passed || validated != bundle {
		t.Fatalf("gate %+v %v: validated %s, built %s", rep, err, validated, bundle)
	}
}

// parakeet_tdt's test needs TRTMC_NATIVE_BUILD_DIR, a configured CTest tree
// (families/parakeet_tdt/tests/test_e2e.py @17d91ae1): the target passes {native_build}.
func TestDoubleGateGetsTheNativeBuildTree(t *testing.T) {
	double := copiedDouble(t, "BUNDLE_AT = \"tmp_path\"\nREQUIRES_ENV = (\"TRTMC_NATIVE_BUILD_DIR\",)\n")
	b := bedIn(t, double)
	s, m := b.step("sphinx", "sphinx-en-us")
	ctx := context.Background()
	// The test refuses before it builds: the row's build (the gate's) fails and says why.
	if _, _, err := s.Build(ctx); err == nil || !strings.Contains(err.Error(), "TRTMC_NATIVE_BUILD_DIR is not a configured CTest build tree") {
		t.Fatalf("build by a gate with no configured CTest tree at {native_build}: %v", err)
	}
	if err := os.WriteFile(filepath.Join(double, "build", "CTestTestfile.cmake"), []byte("# configured\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b.work = t.TempDir()
	s, _ = b.step("sphinx", "sphinx-en-us")
	if _, _, err := s.Build(ctx); err != nil {
		t.Fatal(err)
	}
	if rep, _, err := s.Gate(ctx, []string{m.Testcases[0].Name}); err != nil || !rep.Passed {
		t.Fatalf("gate with the CTest tree: %+v %v", rep, err)
	}
}

// bundleOfTask is a copy of bundle whose header declares task: the bundle's own task, not --task,
// decides cli.cpp's path (run @022e18f7: InspectBundle, then uses_existing_task_runtime).
func bundleOfTask(t *testing.T, bundle, task string) string {
	t.Helper()
	data, err := os.ReadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	n := binary.LittleEndian.Uint64(data[8:16])
	header := map[string]any{}
	if err := json.Unmarshal(data[16:16+n], &header); err != nil {
		t.Fatal(err)
	}
	header["task"] = task
	js, err := json.Marshal(header)
	if err != nil {
		t.Fatal(err)
	}
	out := append(append(append([]byte(nil), data[:8]...), binary.LittleEndian.AppendUint64(nil, uint64(len(js)))...), js...)
	path := filepath.Join(t.TempDir(), filepath.Base(bundle))
	if err := os.WriteFile(path, append(out, data[16+n:]...), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// speech_transcription runs on cli.cpp's Task-SDK path, which refuses --max-output-tokens (no such
// config) and takes --set max_new_tokens=N; the target's command for it must run, and bound the
// transcript as the served base request does. The existing-runtime path (transcription,
// transcription_streaming) refuses --task and --set whatever they name (cli.cpp dispatch
// @022e18f7), so neither the target nor the double may lean on them there.
func TestDoubleSDKPathTakesSetAndRefusesMaxOutputTokens(t *testing.T) {
	b := newDoubleBed(t)
	s, m := b.step("sphinx", "sphinx-en-us")
	if _, _, err := s.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	existing := s.Values["bundle"]
	sdk := bundleOfTask(t, existing, "speech_transcription")
	clip := filepath.Join(b.double, "families", "sphinx", "tests", filepath.FromSlash(m.Testcases[0].InputAudio))
	trtmc := filepath.Join(b.double, "bin", "trtmc")
	run := func(args ...string) ([]byte, error) { return ExecRunner(context.Background(), args, s.Env, b.work) }
	refused, err := run(trtmc, "transcribe", sdk, "--runtime-root", b.work, "--input", clip, "--max-output-tokens", "5")
	if err == nil || !strings.Contains(err.Error(), "does not declare config 'max_output_tokens'") || !strings.Contains(err.Error(), "exit status 2") {
		t.Fatalf("the SDK path took --max-output-tokens: %s %v", refused, err)
	}
	for _, cmd := range []string{"transcribe", "transcribe-streaming"} {
		for _, opt := range [][]string{{"--set", "max_new_tokens=5"}, {"--task", "speech_transcription"}, {"--task", "transcription"}, {"--set", "beam_size=1"}} {
			args := append([]string{trtmc, cmd, existing, "--runtime-root", b.work, "--input", clip}, opt...)
			if out, err := run(args...); err == nil || !strings.Contains(err.Error(), "--task and --set require a family migrated to the Task SDK") || !strings.Contains(err.Error(), "exit status 2") {
				t.Errorf("the existing-runtime path took %s %q: %s %v", cmd, opt, out, err)
			}
		}
	}
	s.Values["input"] = clip
	s.Values["bundle"] = sdk
	args, err := Expand(b.tg.NativeRun["speech_transcription"], s.Values)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.Join(args, " "), "--max-output-tokens") || !strings.Contains(strings.Join(args, " "), "--set max_new_tokens=5") {
		t.Fatalf("speech_transcription renders %q", args)
	}
	out, err := run(args...)
	if err != nil {
		t.Fatalf("the target's speech_transcription command was refused: %v", err)
	}
	tr, err := ParseTranscript(b.tg.NativeOutput["speech_transcription"], out)
	if err != nil || len(strings.Fields(tr.Text)) != 5 {
		t.Fatalf("transcript %q (%v), want max_new_tokens=5 words", tr.Text, err)
	}
	// With no max_new_tokens declared, nothing is set: --set's value names an empty placeholder.
	s.Values["max_tokens"] = ""
	if args, _ := Expand(b.tg.NativeRun["speech_transcription"], s.Values); strings.Contains(strings.Join(args, " "), "--set") {
		t.Fatalf("an undeclared max_new_tokens still renders --set: %q", args)
	}
}

// The nemotron streaming profiles are served in sample_rate*chunk_ms/1000-sample chunks; the twin
// is the family test's transcribe-streaming with that --chunk-samples, read from final.text.
func TestDoubleStreamingTwinUsesTheServedChunk(t *testing.T) {
	b := newDoubleBed(t)
	s, m := b.step("sphinx", "sphinx-en-us")
	if _, _, err := s.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s.Values["chunk_samples"] != "2560" { // the clip's 16 kHz × TRTMC's default 160 ms
		t.Fatalf("chunk_samples %q, want 2560", s.Values["chunk_samples"])
	}
	chunk := 1120
	tc := m.Testcases[0]
	tc.ChunkMS = &chunk
	if v := b.tg.CheckpointValues(m, tc, b.work); v["chunk_samples"] != "17920" {
		t.Fatalf("chunk_ms 1120 gives chunk_samples %q, want 17920", v["chunk_samples"])
	}
	s.Values["input"] = filepath.Join(b.double, "families", "sphinx", "tests", filepath.FromSlash(tc.InputAudio))
	args, err := Expand(b.tg.NativeRun["transcription_streaming"], s.Values)
	if err != nil || args[1] != "transcribe-streaming" {
		t.Fatalf("transcription_streaming renders %q %v", args, err)
	}
	out, err := ExecRunner(context.Background(), args, s.Env, b.work)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := ParseTranscript(b.tg.NativeOutput["transcription_streaming"], out)
	if err != nil || len(strings.Fields(tr.Text)) != 5 || !strings.Contains(strings.Join(args, " "), "--max-new-tokens 5") {
		t.Fatalf("streaming transcript %+v %v from %s by %q: want the testcase's max_new_tokens=5 words, as served", tr, err, out, args)
	}
	// TRTMC's shape (cli.cpp @022e18f7 stream_result_json), nothing of the double's own.
	var payload map[string]json.RawMessage
	var final map[string]any
	if err := json.Unmarshal(out, &payload); err != nil || json.Unmarshal(payload["final"], &final) != nil {
		t.Fatalf("streaming payload %s: %v", out, err)
	}
	for k := range payload {
		if k != "chunks" && k != "final" && k != "contract_double" {
			t.Errorf("streaming payload carries %q, which TRTMC's does not", k)
		}
	}
	for _, k := range []string{"text", "token_ids", "is_final", "chunk_index", "accepted_samples", "sample_rate"} {
		if _, ok := final[k]; !ok {
			t.Errorf("final lacks TRTMC's %q: %v", k, final)
		}
	}
	if _, err := ParseTranscript(b.tg.NativeOutput["transcription_streaming"], []byte(`{"text": "whole clip"}`)); err == nil {
		t.Fatal("a whole-clip transcript was read as the streaming twin's final.text")
	}
}

// TRTMC's CI unsets PYTEST_ADDOPTS for its gates (tools/ci/e2e.py @08246dfa): the harness's own
// value must not reach the gate.
func TestGateDoesNotInheritPytestAddopts(t *testing.T) {
	for _, name := range []string{"trtmc.yaml", "trtmc-older.yaml"} {
		tg, err := Read(filepath.Join(repoRoot(), "suites", "targets", name), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Setenv("PYTEST_ADDOPTS", "-k nothing")
		env, err := tg.Environ(tg.Values())
		if err != nil {
			t.Fatal(err)
		}
		out, err := ExecRunner(context.Background(), []string{"env"}, env, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(out), "PYTEST_ADDOPTS") {
			t.Errorf("%s: the gate's environment holds PYTEST_ADDOPTS", name)
		}
	}
}
