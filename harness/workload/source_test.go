package workload

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
)

// trtmcManifest writes a newer-layout TRTMC image manifest under root/families/flux/tests/manifests
// (flux-schnell's pattern: top-level image size, the testcase carrying test_prompt, steps, seed).
func trtmcManifest(t *testing.T, root, testcases string) manifest.Manifest {
	t.Helper()
	path := filepath.Join(root, "families", "flux", "tests", "manifests", "flux-schnell.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(`{"name":"flux-schnell","bundle":"flux-schnell.bundle","family":"flux","task":"image_generation",
		"precision":"fp16","image_height":1024,"image_width":1024,"testcases":`+testcases+`}`), 0o644)
	m, err := manifest.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A test_prompt testcase is one input built from its fields; its request settings go to AIPerf as
// a dataset prompt's do (seed per row, steps fixed); the evidence names the manifest's testcase.
func TestTestPromptIsOneInput(t *testing.T) {
	root := t.TempDir()
	m := trtmcManifest(t, root, `[{"name":"flux-schnell","test_prompt":"A photo of a cat sitting on a windowsill at sunset",
		"test_type":"diffusion","num_inference_steps":4,"seed":42}]`)
	tc := m.Testcases[0]
	w, _ := Get("t2i")
	inputs, err := w.Inputs(repoRoot(), m, tc, t.TempDir())
	if err != nil || len(inputs) != 1 || inputs[0].ID != "flux-schnell" || inputs[0].Prompt.Prompt != tc.TestPrompt || inputs[0].Prompt.Seed != 42 {
		t.Fatalf("inputs %+v, %v", inputs, err)
	}
	l, err := w.AIPerf(inputs, m, tc)
	if err != nil || len(l.Rows) != 1 || l.Rows[0]["text"] != tc.TestPrompt || l.ExtraInputs["num_inference_steps"] != 4.0 || l.ExtraInputs["size"] != "1024x1024" {
		t.Fatalf("load %+v, %v", l, err)
	}
	if extra := l.Rows[0]["extra"].(map[string]any); extra["seed"] != int64(42) {
		t.Errorf("row extra %v", extra)
	}
	ds, err := DatasetOf(repoRoot(), root, m, tc)
	sum, _ := bundle.FileSHA256(m.Path)
	if err != nil || ds.Path != "families/flux/tests/manifests/flux-schnell.json#testcases/flux-schnell/test_prompt" || ds.SHA256 != sum {
		t.Fatalf("dataset %+v, %v", ds, err)
	}
	file, name, field, ok := InlineSource(ds.Path)
	if !ok || file != "families/flux/tests/manifests/flux-schnell.json" || name != "flux-schnell" || field != "test_prompt" {
		t.Errorf("InlineSource(%q) = %q %q %q %v", ds.Path, file, name, field, ok)
	}
	for _, p := range []string{"golden/t2i/prompts.jsonl", "m.json#", "m.json#testcases/x", "#testcases/x/test_prompt", "m.json#testcases/x/"} {
		if _, _, _, ok := InlineSource(p); ok {
			t.Errorf("InlineSource(%q) read as a testcase's own prompt", p)
		}
	}
	if _, err := DatasetOf(repoRoot(), filepath.Join(root, "families", "other"), m, tc); err == nil {
		t.Error("a manifest outside the manifest root was named")
	}
}

// A testcase with neither a dataset nor a prompt fails naming the manifest and the testcase, in
// every stage; a stage whose inputs are files refuses a testcase without a dataset.
func TestNoDatasetNoPromptIsAnError(t *testing.T) {
	root := t.TempDir()
	m := trtmcManifest(t, root, `[{"name":"flux-schnell","num_inference_steps":4}]`)
	want := m.Path + ` testcase "flux-schnell": no dataset and no prompt`
	if _, err := DatasetOf(repoRoot(), root, m, m.Testcases[0]); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("DatasetOf: %v", err)
	}
	w, _ := Get("t2i")
	if in, err := w.Inputs(repoRoot(), m, m.Testcases[0], t.TempDir()); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("t2i inputs %v, %v", in, err)
	}
	for _, stage := range []string{"asr", "audioqa"} {
		w, _ := Get(stage)
		tc := manifest.Testcase{Name: "c", TestPrompt: "not audio"}
		if _, err := w.Inputs(repoRoot(), m, tc, t.TempDir()); err == nil || !strings.Contains(err.Error(), `testcase "c" names no dataset`) {
			t.Errorf("%s: %v", stage, err)
		}
	}
}
