package target

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/native/manifest"
)

// The contract double refuses what TRTMC refuses and prints what TRTMC prints (fidelity table:
// suites/targets/testdata/README.md). These tests run the double's programs on the exact command
// lines trtmc.yaml renders, so a target command TRTMC would refuse fails here too.
// QUAL_TRTMC_TARGET_FILE names another target file to render (an older version of trtmc.yaml).

type doubleBed struct {
	t      *testing.T
	tg     *Target
	double string
	env    []string
	work   string
}

func newDoubleBed(t *testing.T) *doubleBed {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: builds trtmc-native and runs the contract double's programs")
	}
	python, double, bin := doubleTools(t, "native/cmd/trtmc-native")
	root := repoRoot()
	file := os.Getenv("QUAL_TRTMC_TARGET_FILE")
	if file == "" {
		file = filepath.Join(root, "suites", "targets", "trtmc.yaml")
	}
	tg, err := Read(file, double)
	if err != nil {
		t.Fatal(err)
	}
	b := &doubleBed{t: t, tg: tg, double: double, work: t.TempDir(),
		env: []string{"TRTMC_DOUBLE_NATIVE=" + filepath.Join(bin, "trtmc-native")}}
	b.tg.Placeholders["python"], b.tg.Placeholders["trtmc_binary"] = python, filepath.Join(double, "bin", "trtmc")
	return b
}

// step prepares one checkpoint of the double's family as the run does (CheckpointValues).
func (b *doubleBed) step(family, profile string) (*Step, *manifest.Manifest) {
	b.t.Helper()
	m, err := manifest.Read(filepath.Join(b.double, "families", family, "tests", "manifests", profile+".json"))
	if err != nil {
		b.t.Fatal(err)
	}
	s, err := b.tg.NewStep(b.tg.CheckpointValues(&m, m.Testcases[0], b.work), nil)
	if err != nil {
		b.t.Fatal(err)
	}
	s.Env = append(s.Env, b.env...)
	return s, &m
}

// runNative renders the target's native_run for task with the request's values and runs it.
func (b *doubleBed) runNative(s *Step, task string, request map[string]string) ([]byte, []string, error) {
	b.t.Helper()
	for k, v := range request {
		s.Values[k] = v
	}
	args, err := Expand(b.tg.NativeRun[task], s.Values)
	if err != nil {
		b.t.Fatal(err)
	}
	for i := range args {
		if args[i] == "/tmp/native.png" {
			args[i] = filepath.Join(b.work, "native.png")
		}
	}
	out, err := ExecRunner(context.Background(), args, s.Env, b.work)
	return out, args, err
}

// benchBuild is TRTMC's build by profile (apps/benchmark/trtmc_benchmark/cli.py @0dd9052f).
var benchBuild = []string{"{python}", "-m", "trtmc_benchmark", "run", "--manifest-root", "{root}/families", "--model", "{profile}",
	"--bundle-cache", "{work}/bundle-cache", "--prepare-only", "--runtime-root", "{runtime_root}", "--worker", "{worker}", "-o", "{work}/prepare"}

// TRTMC's build tool prints its whole report indented over many lines with every field
// (apps/benchmark/trtmc_benchmark/cli.py @0dd9052f); the target's build step must read it.
func TestDoubleBuildReportIsTRTMCsAndIsRead(t *testing.T) {
	b := newDoubleBed(t)
	// trtmc.yaml no longer builds by profile (the family gate's build is the row's one build); the
	// double's trtmc-bench is held to TRTMC's build-by-profile command as bundles.py @36214c8e runs it.
	b.tg.Build, b.tg.BuildOutput = benchBuild, "trtmc-bench-prepare"
	s, m := b.step("procdiff", "procdiff-small")
	out, err := s.exec(context.Background(), b.tg.Build)
	if err != nil {
		t.Fatal(err)
	}
	var report struct {
		Bundles []map[string]any `json:"bundles"`
	}
	if err := json.Unmarshal(out, &report); err != nil || len(report.Bundles) != 1 || strings.Count(string(out), "\n") < 10 {
		t.Fatalf("the double's report is not TRTMC's indented JSON: %v\n%s", err, out)
	}
	for _, field := range []string{"model", "status", "bundle", "command", "build_time_s", "model_dir", "stdout_log", "stderr_log", "build_identity", "included_in_performance_metrics"} {
		if _, ok := report.Bundles[0][field]; !ok {
			t.Errorf("the double's bundle entry lacks TRTMC's %q", field)
		}
	}
	bundle, _, err := s.Build(context.Background())
	if want := filepath.Join(b.work, "bundle-cache", m.Name, m.Bundle); err != nil || bundle != want {
		t.Fatalf("build step on TRTMC's report: %q %v, want %s", bundle, err, want)
	}
	if _, err := ExecRunner(context.Background(), append(b.tg.Build[:len(b.tg.Build):len(b.tg.Build)], "--no-such-flag"), s.Env, b.work); err == nil {
		t.Error("the double's trtmc-bench accepted a flag cli.py does not define")
	}
}

// A testcase that declares no negative prompt, guidance or cfg scale (flux-schnell, pixart) gets
// none of those flags; TRTMC's CLI refuses an empty value and a negative --cfg-scale.
func TestDoubleRunsTheTargetsImageCommandAndRefusesWhatTRTMCRefuses(t *testing.T) {
	b := newDoubleBed(t)
	s, _ := b.step("procdiff", "procdiff-small")
	if _, _, err := s.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	base := map[string]string{"prompt": "a red lighthouse", "width": "128", "height": "128", "steps": "4", "seed": "7"}
	for name, request := range map[string]map[string]string{
		"declares nothing":    {"negative_prompt": "", "guidance": ""},
		"declares a guidance": {"negative_prompt": "", "guidance": "3.5"},
	} {
		for k, v := range base {
			request[k] = v
		}
		out, args, err := b.runNative(s, "image_generation", request)
		if err != nil {
			t.Fatalf("%s: the target's image command %q was refused: %v", name, args, err)
		}
		img, err := ParseImageRun(b.tg.NativeOutput["image_generation"], out)
		if err != nil || img.Width != 128 || img.Height != 128 {
			t.Fatalf("%s: %+v %v", name, img, err)
		}
	}
	trtmc := filepath.Join(b.double, "bin", "trtmc")
	bundle := s.Values["bundle"]
	for _, refused := range [][]string{
		{"--cfg-scale", "-1"}, {"--guidance-scale", "-0.5"}, {"--negative-prompt", ""}, {"--guidance-scale", ""},
		{"--num-steps", "0"}, {"--seed", "x"}, {"--no-such-option", "1"},
	} {
		args := append([]string{trtmc, "generate-image", bundle, "--runtime-root", b.work, "--prompt", "p", "--output", filepath.Join(b.work, "x.png")}, refused...)
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Env = append(os.Environ(), b.env...)
		if err := cmd.Run(); err == nil || cmd.ProcessState.ExitCode() != 2 {
			t.Errorf("generate-image %v: %v, want exit 2 as cli.cpp's invalid_argument", refused, err)
		}
	}
	png := filepath.Join(b.work, "x.png")
	for _, refused := range [][]string{
		{"generate-image", bundle, "--prompt", "p", "--output", png},                                                     // no --runtime-root
		{"generate-image", bundle, "--runtime-root", b.work, "--output", png},                                            // no --prompt
		{"generate-image", bundle, "--runtime-root", b.work, "--prompt", "p"},                                            // no --output
		{"generate-image", bundle, "--runtime-root", b.work, "--runtime-root", b.work, "--prompt", "p", "--output", png}, // a global option twice
		{"generate-image", bundle, "--runtime-root", b.work, "--prompt", "p", "--output"},                                // no value
		{"generate-images", bundle, "--runtime-root", b.work},                                                            // unknown command
		{"transcribe", bundle, "--runtime-root", b.work, "--input", png, "--max-output-tokens", "0"},                     // below the minimum
		{"transcribe", bundle, "--runtime-root", b.work, "--input", png, "--timestamps", "yes"},                          // not true|false
		{"inspect", bundle, "--runtime-root", b.work},                                                                    // inspect takes one BUNDLE
		{"inspect"},
	} {
		cmd := exec.Command(trtmc, refused...)
		cmd.Env = append(os.Environ(), b.env...)
		if err := cmd.Run(); err == nil || cmd.ProcessState.ExitCode() != 2 {
			t.Errorf("trtmc %v: %v, want exit 2 as cli.cpp's invalid_argument", refused, err)
		}
	}
	out, err := ExecRunner(context.Background(), []string{trtmc, "inspect", bundle}, s.Env, b.work)
	var in struct {
		Format, Family, Task, Backend string
		Sections                      map[string]struct{ Offset, Length *int64 }
	}
	if err != nil || json.Unmarshal(out, &in) != nil || in.Format == "" || in.Family == "" || in.Task != "image_generation" || in.Backend == "" || len(in.Sections) == 0 {
		t.Fatalf("inspect is not cli.cpp's {format, family, task, backend, sections}: %v %s", err, out)
	}
	for name, sec := range in.Sections {
		if sec.Offset == nil || sec.Length == nil {
			t.Errorf("section %s is not {offset, length}: %s", name, out)
		}
	}
}

// The target passes the testcase's max_new_tokens as --max-output-tokens, as the family test does;
// the double honours it, so a run without it transcribes past the limit the served profile uses.
func TestDoubleTranscribeHonoursTheTestcasesTokenLimit(t *testing.T) {
	b := newDoubleBed(t)
	s, m := b.step("sphinx", "sphinx-en-us")
	if _, _, err := s.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	clip := filepath.Join(b.double, "families", "sphinx", "tests", filepath.FromSlash(m.Testcases[0].InputAudio))
	out, args, err := b.runNative(s, "transcription", map[string]string{"input": clip})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := ParseTranscript(b.tg.NativeOutput["transcription"], out)
	if err != nil {
		t.Fatal(err)
	}
	limit := *m.Testcases[0].MaxNewTokens
	if n := len(strings.Fields(tr.Text)); n != limit {
		t.Fatalf("%q transcribed %d tokens (%q), want the testcase's max_new_tokens %d", args, n, tr.Text, limit)
	}
	var fields map[string]any
	json.Unmarshal(out, &fields)
	for _, f := range []string{"text", "token_ids", "setup_ms", "prefill_ms", "decode_ms"} {
		if _, ok := fields[f]; !ok {
			t.Errorf("transcribe printed no %q (cli.cpp text_json): %s", f, out)
		}
	}
	full, err := ExecRunner(context.Background(), []string{filepath.Join(b.double, "bin", "trtmc"), "transcribe", s.Values["bundle"],
		"--runtime-root", b.work, "--input", clip}, s.Env, b.work)
	if err != nil {
		t.Fatal(err)
	}
	if whole, _ := ParseTranscript("json", full); len(strings.Fields(whole.Text)) <= limit {
		t.Fatalf("the clip's whole transcript %q is not longer than the limit: the test would not tell", whole.Text)
	}
}

// TRTMC's serving app needs apps/perf_serving/requirements.txt, which TRTMC's images do not
// install; the serving double refuses to start without those packages, so a serving image
// built without the requirements layer fails on the double as it would on TRTMC.
func TestDoubleServingNeedsTheServingRequirements(t *testing.T) {
	b := newDoubleBed(t)
	// A fresh venv without the serving packages, whatever this machine's python3 has installed,
	// stands for TRTMC's runtime image before the requirements layer.
	venv := filepath.Join(t.TempDir(), "venv")
	if out, err := exec.Command(b.tg.Placeholders["python"], "-m", "venv", "--without-pip", venv).CombinedOutput(); err != nil {
		t.Fatalf("empty venv: %v %s", err, out)
	}
	bare := filepath.Join(venv, "bin", "python")
	if exec.Command(bare, "-c", "import fastapi, uvicorn, multipart").Run() == nil {
		t.Fatal("a fresh venv imports the serving packages: the refusal cannot be shown")
	}
	s, m := b.step("procdiff", "procdiff-small")
	s.Values["serve_python"] = bare
	args, err := Expand(b.tg.Server.Command, s.Values)
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range args {
		switch a {
		case "/bundles/" + m.Bundle:
			args[i] = filepath.Join(b.work, m.Bundle)
		case b.tg.Server.Records:
			args[i] = filepath.Join(b.work, "records.jsonl")
		case b.tg.Server.Scratch:
			args[i] = filepath.Join(b.work, "scratch")
		}
	}
	out, err := ExecRunner(context.Background(), args, s.Env, b.work)
	if err == nil || !strings.Contains(err.Error(), "python-multipart") || !strings.Contains(err.Error(), "requirements.txt") {
		t.Fatalf("the serving double started without its requirements: %v %s", err, out)
	}
	// services.py @0dc2b04c passes --revision, which cli.py @1797a247 does not define: refused.
	cmd := exec.Command(args[0], append(args[1:], "--revision", "abc")...)
	cmd.Env = append(os.Environ(), s.Env...)
	if err := cmd.Run(); err == nil || cmd.ProcessState.ExitCode() != 2 {
		t.Errorf("serve --revision: %v, want exit 2 (argparse: unrecognized arguments)", err)
	}
}
