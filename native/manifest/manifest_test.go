package manifest

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/native/dataset"
)

func familiesDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "families")
}

func TestShippedManifestsReadWithTheirThresholds(t *testing.T) {
	for _, fam := range []string{"sphinx", "procdiff"} {
		ms, err := ReadDir(filepath.Join(familiesDir(), fam, "manifests"))
		if err != nil || len(ms) == 0 {
			t.Fatalf("%s: %d manifests, %v", fam, len(ms), err)
		}
		for _, m := range ms {
			if m.Family != fam || m.TaskString() == "" || m.Path == "" {
				t.Errorf("%s: %+v", m.Name, m)
			}
			th, err := ReadThresholds(ThresholdsPath(m, m.Testcases[0].Name))
			if err != nil || len(th.Overrides) == 0 {
				t.Errorf("%s thresholds: %v", m.Name, err)
			}
		}
	}
}

// A manifest missing required fields is refused with every missing field named.
func TestReadNamesMissingFields(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.json")
	os.WriteFile(path, []byte(`{"name":"x","build":{}}`), 0o644)
	_, err := Read(path)
	if err == nil || !strings.Contains(err.Error(), "missing required fields bundle, family, precision, task (or task_strategy), testcases") {
		t.Errorf("%v", err)
	}
	os.WriteFile(path, []byte(`{"name":`), 0o644)
	if _, err := Read(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("bad JSON: %v", err)
	}
}

// A missing bound is an error naming the file: a gate never runs without it.
func TestThresholdLimits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.json")
	os.WriteFile(path, []byte(`{"threshold_overrides":{"gold_wer":0.3}}`), 0o644)
	th, err := ReadThresholds(path)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := th.Limit("gold_wer"); err != nil || v != 0.3 {
		t.Errorf("gold_wer %v %v", v, err)
	}
	if _, err := th.Limit("cer"); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("missing bound: %v", err)
	}
	os.WriteFile(path, []byte(`{"threshold_overrides":{}}`), 0o644)
	if _, err := ReadThresholds(path); err == nil {
		t.Error("thresholds without any bound were accepted")
	}
}

func TestBuildSettings(t *testing.T) {
	m := Manifest{Build: map[string]any{"model": "en-us", "steps": 4.0}}
	if m.String("model") != "en-us" || m.String("steps") != "" {
		t.Errorf("String: %q %q", m.String("model"), m.String("steps"))
	}
	if v, ok := m.Number("steps"); !ok || v != 4 {
		t.Errorf("Number: %v %v", v, ok)
	}
	if _, ok := m.Number("model"); ok {
		t.Error("a string read as a number")
	}
}

// A TRTMC text-to-image testcase carries its one prompt (test_prompt, or prompt first, as TRTMC's
// benchmark reads them) with its seed (TRTMC's default 42 when absent) and settings; a testcase
// naming a dataset takes its inputs from it; one with neither is an error naming both files.
func TestInlinePromptAndImageSettings(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "flux-schnell.json")
	os.WriteFile(path, []byte(`{"name":"flux-schnell","bundle":"b","family":"flux","task":"image_generation","precision":"fp16",
		"image_height":1024,"image_width":1024,"testcases":[
		{"name":"flux-schnell","test_prompt":"A photo of a cat","num_inference_steps":4,"seed":7,"negative_prompt":"fog"},
		{"name":"qwen","prompt":"A sign","test_prompt":"ignored","guidance_scale":4.5},
		{"name":"both","dataset":"p.jsonl","test_prompt":"x"},
		{"name":"clash","settings":{"num_inference_steps":20},"num_inference_steps":4},
		{"name":"none"}]}`), 0o644)
	os.WriteFile(filepath.Join(dir, "p.jsonl"), []byte(`{"id":"a","prompt":"from the file","seed":1}`+"\n"), 0o644)
	m, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	tc := m.Testcases
	ps, err := m.Prompts(dir, tc[0])
	if err != nil || len(ps) != 1 || ps[0] != (dataset.Prompt{ID: "flux-schnell", Prompt: "A photo of a cat", NegativePrompt: "fog", Seed: 7}) || tc[0].InlinePromptField() != "test_prompt" {
		t.Errorf("test_prompt: %+v %v", ps, err)
	}
	if s, err := tc[0].ImageSettings(); err != nil || s["num_inference_steps"] != 4.0 || len(s) != 1 {
		t.Errorf("settings %v %v", s, err)
	}
	ps, _ = m.Prompts(dir, tc[1])
	if len(ps) != 1 || ps[0].Prompt != "A sign" || ps[0].Seed != 42 || tc[1].InlinePromptField() != "prompt" {
		t.Errorf("prompt before test_prompt, seed 42 by default: %+v", ps)
	}
	if s, _ := tc[1].ImageSettings(); s["guidance_scale"] != 4.5 {
		t.Errorf("guidance_scale: %v", s)
	}
	if ps, err := m.Prompts(dir, tc[2]); err != nil || len(ps) != 1 || ps[0].ID != "a" || tc[2].InlinePromptField() != "" {
		t.Errorf("a dataset is the input when named: %+v %v", ps, err)
	}
	if _, err := tc[3].ImageSettings(); err == nil || !strings.Contains(err.Error(), "num_inference_steps 20 in settings and 4 on the testcase") {
		t.Errorf("conflicting settings: %v", err)
	}
	if _, err := m.Prompts(dir, tc[4]); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), `testcase "none": no dataset and no prompt or test_prompt`) {
		t.Errorf("neither: %v", err)
	}
}

// cfg_scale (TRTMC's true classifier-free guidance, beside guidance_scale) reaches the native run
// as the testcase declares it, and as -1 (TRTMC's CLI: the family's default) when it declares
// none. The first file mirrors families/qwen_image/tests/manifests/qwen-image-l0.json.
func TestCfgScaleArg(t *testing.T) {
	m, err := Read(filepath.Join("..", "..", "suites", "targets", "testdata", "trtmc-newer", "families", "qwen_image", "tests", "manifests", "qwen-image-l0.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Testcases[0].CfgScaleArg(); got != "4" {
		t.Errorf("qwen-image-l0 cfg_scale: %q, want 4", got)
	}
	if s, _ := m.Testcases[0].ImageSettings(); s["cfg_scale"] != nil {
		t.Errorf("cfg_scale must not be a request setting (TRTMC's images route refuses it in a body): %v", s)
	}
	half := 7.5
	for tc, want := range map[*Testcase]string{{Name: "none"}: "-1", {Name: "half", CfgScale: &half}: "7.5"} {
		if got := tc.CfgScaleArg(); got != want {
			t.Errorf("%s: %q, want %q", tc.Name, got, want)
		}
	}
}
