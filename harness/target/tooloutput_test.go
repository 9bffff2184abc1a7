package target

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTRTMCTargetsCiteTheirSources: both TRTMC target files load, and every command in them is
// preceded by a comment naming the TRTMC file it comes from.
func TestTRTMCTargetsCiteTheirSources(t *testing.T) {
	source := regexp.MustCompile(`(apps|tools|tests|src|families|core|config)/[A-Za-z0-9_./<>-]+\.(py|cpp|yaml|toml)`)
	for _, name := range []string{"trtmc.yaml", "trtmc-older.yaml"} {
		path := filepath.Join(repoRoot(), "suites", "targets", name)
		tg, err := Read(path, "/checkout")
		if err != nil {
			t.Fatal(err)
		}
		if tg.Kind != "trtmc" || tg.GateJUnit == "" || tg.GateCase == "" || len(tg.GateBundle) == 0 || len(tg.Inspect) == 0 {
			t.Errorf("%s: kind %q junit %q case %q bundle %q inspect %v", name, tg.Kind, tg.GateJUnit, tg.GateCase, tg.GateBundle, tg.Inspect)
		}
		data, _ := os.ReadFile(path)
		lines := strings.Split(string(data), "\n")
		for i, line := range lines {
			key := strings.TrimSpace(strings.SplitN(line, ":", 2)[0])
			if !strings.HasPrefix(line, "build:") && !strings.HasPrefix(line, "gate:") && !strings.HasPrefix(line, "inspect:") &&
				!strings.HasPrefix(line, "native_run:") && key != "command" {
				continue
			}
			comment := ""
			for j := i - 1; j >= 0 && strings.HasPrefix(strings.TrimSpace(lines[j]), "#"); j-- {
				comment += lines[j]
			}
			if !source.MatchString(comment) {
				t.Errorf("%s:%d %s has no comment citing its TRTMC source file", name, i+1, key)
			}
		}
		for _, forbidden := range []string{"--manifest", "trtmc.qual_gate", "nvcr.io", "trtmc-perf-serve"} {
			for _, cmd := range append(append(append([]string{}, tg.Build...), tg.Gate...), tg.Server.Command...) {
				if strings.Contains(cmd, forbidden) && !strings.Contains(cmd, "--manifest-root") {
					t.Errorf("%s uses the invented %q", name, forbidden)
				}
			}
		}
	}
}

func TestValuesTakeOverrides(t *testing.T) {
	tg := &Target{Root: "/r", Placeholders: map[string]string{"python": "python3", "image": ""}}
	tg.Overrides = map[string]string{"python": "/venv/bin/python"}
	v := tg.Values()
	if v["python"] != "/venv/bin/python" || v["image"] != "" || v["root"] != "/r" {
		t.Fatalf("values %v", v)
	}
}

func TestParsePrepare(t *testing.T) {
	out := []byte("building...\n" + `{"bundles": [{"model": "whisper-tiny-fp16", "status": "built", "bundle": "/c/whisper-tiny-fp16/whisper-tiny-fp16.bundle", "command": ["python", "-m", "tensorrt_model_connect", "build"], "build_time_s": 12.5}]}` + "\n")
	p, err := ParsePrepare(out, "whisper-tiny-fp16")
	if err != nil || p.Bundle != "/c/whisper-tiny-fp16/whisper-tiny-fp16.bundle" || p.Status != "built" {
		t.Fatalf("%+v %v", p, err)
	}
	if _, err := ParsePrepare(out, "other"); err == nil {
		t.Error("a profile absent from the report was accepted")
	}
	if _, err := ParsePrepare([]byte(`{"bundles": [{"model": "x", "status": "failed", "bundle": ""}]}`), "x"); err == nil {
		t.Error("a failed build was accepted")
	}
}

func TestParseInspectBothForms(t *testing.T) {
	in, err := ParseInspect("json", []byte(`{"family": "whisper", "task": "transcription", "sections": {}}`))
	if err != nil || in.Family != "whisper" || in.Task != "transcription" {
		t.Fatalf("%+v %v", in, err)
	}
	in, err = ParseInspect("text", []byte("Model ID:           openai/whisper-tiny\nFamily:             whisper\nRuntime strategy:   whisper_speech_to_text\n"))
	if err != nil || in.Family != "whisper" || in.Task != "whisper_speech_to_text" {
		t.Fatalf("%+v %v", in, err)
	}
	if _, err := ParseInspect("json", []byte("Error: not a valid .bundle artifact")); err == nil {
		t.Error("an error message was accepted as inspect output")
	}
}

func TestParseJUnit(t *testing.T) {
	const pattern = `^test_.*e2e\[(?P<case>.+)\]$`
	xml := []byte(`<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" tests="3">
<testcase classname="families.whisper.tests.test_e2e" name="test_official_checkpoint_e2e[whisper-tiny-fp16]" time="41.2"/>
<testcase classname="families.whisper.tests.test_e2e" name="test_official_checkpoint_e2e[whisper-tiny-fp16-asr-probe02]" time="3.0"><skipped message="direct E2E requires one of the three explicit E2E selectors"/></testcase>
<testcase classname="families.whisper.tests.test_e2e" name="test_error_rates_zero" time="0.1"/>
</testsuite></testsuites>`)
	rep, err := ParseJUnit(xml, pattern, []string{"whisper-tiny-fp16"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Passed || len(rep.Cases) != 2 || rep.Cases[1].Status != "skipped" {
		t.Fatalf("a skipped e2e case must fail the gate: %+v", rep)
	}
	pass := []byte(`<testsuite><testcase name="test_model_e2e[whisper-large-v3-turbo]" time="1"/></testsuite>`)
	if rep, _ := ParseJUnit(pass, `^test_model_e2e\[(?P<case>.+)\]$`, []string{"whisper-large-v3-turbo"}); !rep.Passed {
		t.Fatalf("passing older-layout report refused: %+v", rep)
	}
	if rep, _ := ParseJUnit(pass, `^test_model_e2e\[(?P<case>.+)\]$`, []string{"other-case"}); rep.Passed || len(rep.Missing) != 1 {
		t.Fatalf("a requested case absent from the report passed: %+v", rep)
	}
	fail := []byte(`<testsuite><testcase name="test_model_e2e[c]"><failure message="WER 0.4 &gt; 0.35">trace</failure></testcase></testsuite>`)
	if rep, _ := ParseJUnit(fail, `^test_model_e2e\[(?P<case>.+)\]$`, []string{"c"}); rep.Passed || !strings.Contains(rep.Reasons[0], "WER 0.4 > 0.35") {
		t.Fatalf("failure not reported: %+v", rep)
	}
	if _, err := ParseJUnit(pass, `^test_model_e2e`, nil); err == nil {
		t.Error("a pattern without a case group was accepted")
	}
}

func TestParseNativeOutputsBothForms(t *testing.T) {
	tr, err := ParseTranscript("json", []byte("[info] loading\n"+`{"text": " The birch canoe.", "token_ids": [1, 2], "setup_ms": 1.5, "prefill_ms": 2, "decode_ms": 30}`+"\n"))
	if err != nil || tr.Text != " The birch canoe." || tr.DecodeMS != 30 {
		t.Fatalf("%+v %v", tr, err)
	}
	if _, err := ParseTranscript("json", []byte(`{"output": "x"}`)); err == nil {
		t.Error("JSON without text accepted as a transcript")
	}
	tr, _ = ParseTranscript("text", []byte(" the birch canoe\n"))
	if tr.Text != "the birch canoe" {
		t.Fatalf("plain text %q", tr.Text)
	}
	im, err := ParseImageRun("json", []byte(`{"output": "/tmp/native.png", "height": 256, "width": 256}`))
	if err != nil || im.Output != "/tmp/native.png" || im.Width != 256 {
		t.Fatalf("%+v %v", im, err)
	}
	im, err = ParseImageRun("saved", []byte("Saved /tmp/native.png (512x384)\n"))
	if err != nil || im.Width != 512 || im.Height != 384 {
		t.Fatalf("%+v %v", im, err)
	}
}

func TestValidatedBundleIsExactlyOne(t *testing.T) {
	dir := t.TempDir()
	if _, err := ValidatedBundle(filepath.Join(dir, "*", "m.bundle")); err == nil {
		t.Error("no bundle accepted")
	}
	os.MkdirAll(filepath.Join(dir, "test_e2e_m0"), 0o755)
	os.WriteFile(filepath.Join(dir, "test_e2e_m0", "m.bundle"), []byte("b"), 0o644)
	if p, err := ValidatedBundle(filepath.Join(dir, "*", "m.bundle")); err != nil || !strings.HasSuffix(p, "test_e2e_m0/m.bundle") {
		t.Fatalf("%s %v", p, err)
	}
	os.MkdirAll(filepath.Join(dir, "test_e2e_m1"), 0o755)
	os.WriteFile(filepath.Join(dir, "test_e2e_m1", "m.bundle"), []byte("c"), 0o644)
	if _, err := ValidatedBundle(filepath.Join(dir, "*", "m.bundle")); err == nil {
		t.Error("two candidate bundles accepted")
	}
}

func TestImageBuildExpandsPlaceholdersUnderTheCheckout(t *testing.T) {
	tg, err := Read(filepath.Join(repoRoot(), "suites", "targets", "trtmc.yaml"), "/co")
	if err != nil || tg.Server.ImageBuild == nil {
		t.Fatalf("trtmc.yaml names no image_build: %v", err)
	}
	tg.Overrides = map[string]string{"cuda_image": "base:1"}
	v := tg.Values()
	b, err := tg.Server.ImageBuild.Expanded(tg.Root, v)
	if err != nil || b.Dockerfile != "/co/Dockerfile" || b.Context != "/co" || b.Args["CUDA_IMAGE"] != "base:1" {
		t.Fatalf("%+v %v", b, err)
	}
	if _, err := (ImageBuild{Dockerfile: "{nope}"}).Expanded("/co", v); err == nil {
		t.Error("an unfilled placeholder in image_build was accepted")
	}
}

func TestMissingNamesWhatTheMachineLacks(t *testing.T) {
	dir := t.TempDir()
	tg, err := Read(filepath.Join(repoRoot(), "suites", "targets", "trtmc.yaml"), dir)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	tg.Overrides = env
	if why := tg.Missing(); !strings.Contains(why, "build/trtmc is not built") {
		t.Errorf("no checkout built: %q", why)
	}
	bin := filepath.Join(dir, "trtmc")
	os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755)
	env["trtmc_binary"], env["worker"] = bin, bin // the worker is TestMissingNamesTheServingWorker's
	env["python"] = "no-such-python-here"
	if why := tg.Missing(); !strings.Contains(why, "no-such-python-here") {
		t.Errorf("missing python: %q", why)
	}
	env["python"] = "sh"
	if why := tg.Missing(); !strings.Contains(why, "no serving image") {
		t.Errorf("no image and no Dockerfile: %q", why)
	}
	os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte("FROM scratch\n"), 0o644)
	if why := tg.Missing(); !strings.Contains(why, "no apps/perf_serving/requirements.txt") || !strings.Contains(why, "QUAL_TRTMC_IMAGE") {
		t.Errorf("a Dockerfile but no serving requirements to install on its image: %q", why)
	}
	os.MkdirAll(filepath.Join(dir, "apps", "perf_serving"), 0o755)
	os.WriteFile(filepath.Join(dir, "apps", "perf_serving", "requirements.txt"), []byte("fastapi\n"), 0o644)
	if why := tg.Missing(); why != "" {
		t.Errorf("the checkout's Dockerfile is built by the harness: %q", why)
	}
	env["cuda_image"] = "{reference_server_image}" // a build arg the plan fills in (make qualify-trtmc-double)
	if why := tg.Missing(); why != "" {
		t.Errorf("a build arg the plan expands later: %q", why)
	}
	delete(env, "cuda_image")
	env["dockerfile"] = "Dockerfile.dev.x86"
	if why := tg.Missing(); !strings.Contains(why, "no Dockerfile.dev.x86") {
		t.Errorf("a chosen Dockerfile the checkout lacks: %q", why)
	}
	delete(env, "dockerfile")
	os.Remove(filepath.Join(dir, "Dockerfile"))
	env["image"] = "registry.example/trtmc-serving:abc"
	if why := tg.Missing(); why != "" {
		t.Errorf("everything present: %q", why)
	}
	older, _ := Read(filepath.Join(repoRoot(), "suites", "targets", "trtmc-older.yaml"), dir)
	older.Overrides = env
	delete(env, "image")
	if why := older.Missing(); why != "" {
		t.Errorf("the older target has no serving and needs no image: %q", why)
	}
}

// Both TRTMC targets hand the testcase's cfg_scale to the native image run (--cfg-scale), since
// TRTMC's serving takes it from the testcase and the native run must match what was served.
func TestTRTMCImageRunsTakeTheTestcasesCfgScale(t *testing.T) {
	values := map[string]string{"trtmc_binary": "trtmc", "runtime_root": "/rt", "bundle": "b", "prompt": "p", "negative_prompt": " ",
		"width": "512", "height": "512", "steps": "20", "guidance": "", "seed": "42", "cfg_scale": "4"}
	for name, task := range map[string]string{"trtmc.yaml": "image_generation", "trtmc-older.yaml": "diffusion_media_generation"} {
		tg, err := Read(filepath.Join(repoRoot(), "suites", "targets", name), repoRoot())
		if err != nil {
			t.Fatal(err)
		}
		args, err := Expand(tg.NativeRun[task], values)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		line := " " + strings.Join(args, " ") + " "
		if !strings.Contains(line, " --cfg-scale 4 ") || strings.Contains(line, "--guidance-scale") {
			t.Errorf("%s %s: %v has no --cfg-scale 4, or passes the undeclared guidance", name, task, args)
		}
	}
}

// TRTMC's worker gives up loading after startup_timeout_s = 900 s
// (apps/perf_serving/trtmc_perf_serving/backends/trtmc.py @7b798a32): waiting longer for the server
// only hides that it has already failed.
func TestTRTMCServingStartupWithinTheWorkersTimeout(t *testing.T) {
	tg, err := Read(filepath.Join(repoRoot(), "suites", "targets", "trtmc.yaml"), "/checkout")
	if err != nil {
		t.Fatal(err)
	}
	if s := tg.Server.StartupSeconds; s <= 0 || s > 900 {
		t.Errorf("startup_seconds %d, want 1..900", s)
	}
}
