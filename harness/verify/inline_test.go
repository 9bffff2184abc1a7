package verify

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/family"
)

// TestInlineDatasetResolvesToTheManifestsTestcase: a row whose input is its TRTMC testcase's own
// test_prompt is accepted only when dataset.path names the row's manifest, at its recorded
// sha256 in the TRTMC checkout, and a testcase (the gate's) carrying its prompt in that field; a
// path resolving to anything else is refused, naming what differs.
func TestInlineDatasetResolvesToTheManifestsTestcase(t *testing.T) {
	trtmc := t.TempDir()
	rel := "families/flux/tests/manifests/flux-schnell.json"
	write := writer(trtmc)
	sum := write(rel, `{"name":"flux-schnell","testcases":[{"name":"flux-schnell","test_prompt":"A photo of a cat","seed":42},
		{"name":"both","dataset":"p.jsonl","test_prompt":"x"}]}`)
	otherSum := write("families/flux/tests/manifests/other.json", `{"name":"flux-schnell","testcases":[{"name":"flux-schnell","test_prompt":"A dog"}]}`)
	t.Setenv("QUAL_TRTMC_ROOT", trtmc)
	stage := evidence.Stage{Stage: "t2i", TargetKind: "trtmc", Inventory: []inventory.Row{{Profile: "flux-schnell", Manifest: rel}}}
	good := func() evidence.Result {
		return evidence.Result{Profile: "flux-schnell", Gate: &family.GateResult{Testcase: "flux-schnell"},
			Dataset: evidence.Dataset{Path: rel + "#testcases/flux-schnell/test_prompt", SHA256: sum, Items: 1},
			Outputs: []evidence.Output{{RequestID: "r1", InputID: "flux-schnell"}}}
	}
	report, got := collect()
	checkInlineDataset(pins{root: t.TempDir()}, "t2i/flux-schnell", stage, good(), report)
	if len(*got) != 0 {
		t.Fatalf("the manifest's own testcase prompt is refused: %v", *got)
	}
	cases := []inlineCase{
		{"another manifest", func(r *evidence.Result) {
			r.Dataset.Path, r.Dataset.SHA256 = "families/flux/tests/manifests/other.json#testcases/flux-schnell/test_prompt", otherSum
		}, "the row's manifest is " + rel},
		{"a changed manifest", func(r *evidence.Result) { r.Dataset.SHA256 = otherSum }, "evidence records " + otherSum},
		{"no such testcase", func(r *evidence.Result) {
			r.Dataset.Path = rel + "#testcases/flux-dev/test_prompt"
			r.Gate.Testcase = "flux-dev"
		}, `has no testcase "flux-dev"`},
		{"another field", func(r *evidence.Result) { r.Dataset.Path = rel + "#testcases/flux-schnell/prompt" }, "input is not its prompt"},
		{"a testcase with a dataset", func(r *evidence.Result) {
			r.Dataset.Path, r.Gate.Testcase = rel+"#testcases/both/test_prompt", "both"
		}, `dataset "p.jsonl"`},
		{"not the gate's testcase", func(r *evidence.Result) { r.Gate.Testcase = "both" }, `the gate's is "both"`},
		{"more than one item", func(r *evidence.Result) { r.Dataset.Items = 2 }, "evidence records 2 items"},
		{"another input sent", func(r *evidence.Result) { r.Outputs[0].InputID = "p01" }, `input_id "p01" is not testcase "flux-schnell"'s prompt`},
		{"another profile", func(r *evidence.Result) { r.Profile = "flux-2-dev" }, "no row for profile flux-2-dev"},
	}
	refusals(t, "t2i/flux-schnell", stage, good, cases)
	// A path leaving the checkout, and a run checked without the checkout, are refused too.
	escape := stage
	escape.Inventory = []inventory.Row{{Profile: "flux-schnell", Manifest: "../x.json"}}
	r := good()
	r.Dataset.Path = "../x.json#testcases/flux-schnell/test_prompt"
	report, got = collect()
	checkInlineDataset(pins{root: t.TempDir()}, "t2i/flux-schnell", escape, r, report)
	if !containsAll(*got, `"../x.json" is not a path inside`) {
		t.Errorf("escaping path: %v", *got)
	}
	t.Setenv("QUAL_TRTMC_ROOT", "")
	report, got = collect()
	checkInlineDataset(pins{root: t.TempDir()}, "t2i/flux-schnell", stage, good(), report)
	if !containsAll(*got, "set QUAL_TRTMC_ROOT") {
		t.Errorf("without the checkout: %v", *got)
	}
	// checkStored leaves such a path to checkInlineDataset (no dataset file to re-hash) ...
	report, got = collect()
	checkStored(t.TempDir(), pins{root: t.TempDir()}, "t2i/flux-schnell", "t2i", good(), report)
	if len(*got) != 0 {
		t.Errorf("checkStored on an inline dataset: %v", *got)
	}
	// ... and a reference row cannot claim one: its pinned manifest's testcases name datasets.
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "native", "families", "procdiff", "manifests"), 0o755)
	refRel := "native/families/procdiff/manifests/pd.json"
	os.WriteFile(filepath.Join(root, refRel), []byte(`{"name":"pd","testcases":[{"name":"c","dataset":"golden/t2i/prompts.jsonl","test_prompt":"x"}]}`), 0o644)
	refSum, _ := bundle.FileSHA256(filepath.Join(root, refRel))
	ref := evidence.Stage{Stage: "t2i", TargetKind: "reference", Inventory: []inventory.Row{{Profile: "pd", Manifest: refRel}}}
	r = evidence.Result{Profile: "pd", Dataset: evidence.Dataset{Path: refRel + "#testcases/c/test_prompt", SHA256: refSum, Items: 1}}
	report, got = collect()
	checkInlineDataset(pins{root: root}, "t2i/pd", ref, r, report)
	if !containsAll(*got, "input is not its test_prompt") {
		t.Errorf("reference row with an inline dataset: %v", *got)
	}
}

// TestInputAudioResolvesToTheTestcasesClip: a row whose input is its TRTMC ASR testcase's own
// test_input_audio clip is accepted only when dataset.path names the row's manifest and the gate's
// testcase, whose clip resolves in QUAL_TRTMC_ROOT to a WAV with the recorded sha256, and every
// request's input is that clip; a wrong path, a wrong hash or an escaping clip is refused.
func TestInputAudioResolvesToTheTestcasesClip(t *testing.T) {
	trtmc := t.TempDir()
	rel := "families/whisper/tests/manifests/whisper-tiny-fp16.json"
	write := writer(trtmc)
	wavSum := write("families/whisper/tests/data/Recording.wav", "RIFF a clip")
	otherSum := write("families/whisper/tests/data/other.wav", "RIFF another clip")
	manifestSum := write(rel, `{"name":"whisper-tiny-fp16","testcases":[{"name":"whisper-tiny-fp16","test_input_audio":"data/Recording.wav"},
		{"name":"escape","test_input_audio":"../../../outside.wav"},{"name":"prompted","test_prompt":"x"}]}`)
	write("outside.wav", "RIFF a clip")
	t.Setenv("QUAL_TRTMC_ROOT", trtmc)
	stage := evidence.Stage{Stage: "asr", TargetKind: "trtmc", Inventory: []inventory.Row{{Profile: "whisper-tiny-fp16", Manifest: rel}}}
	good := func() evidence.Result {
		return evidence.Result{Profile: "whisper-tiny-fp16", Gate: &family.GateResult{Testcase: "whisper-tiny-fp16"},
			Dataset: evidence.Dataset{Path: rel + "#testcases/whisper-tiny-fp16/test_input_audio", SHA256: wavSum, Items: 1},
			Outputs: []evidence.Output{{RequestID: "r1", InputID: "whisper-tiny-fp16"}, {RequestID: "r2", InputID: "whisper-tiny-fp16"}}}
	}
	report, got := collect()
	checkInlineDataset(pins{root: t.TempDir()}, "asr/whisper-tiny-fp16", stage, good(), report)
	if len(*got) != 0 {
		t.Fatalf("the testcase's own clip is refused: %v", *got)
	}
	cases := []inlineCase{
		{"another clip's hash", func(r *evidence.Result) { r.Dataset.SHA256 = otherSum }, "evidence records " + otherSum},
		{"the manifest's hash", func(r *evidence.Result) { r.Dataset.SHA256 = manifestSum }, "evidence records " + manifestSum},
		{"another field", func(r *evidence.Result) { r.Dataset.Path = rel + "#testcases/whisper-tiny-fp16/test_prompt" }, "manifest in QUAL_TRTMC_ROOT: sha256"},
		{"a prompt testcase", func(r *evidence.Result) {
			r.Dataset.Path, r.Gate.Testcase = rel+"#testcases/prompted/test_input_audio", "prompted"
		}, `testcase "prompted"'s input is not its own test_input_audio clip`},
		{"an escaping clip", func(r *evidence.Result) {
			r.Dataset.Path, r.Gate.Testcase = rel+"#testcases/escape/test_input_audio", "escape"
		}, `"../../../outside.wav" is not a path inside`},
		{"another manifest", func(r *evidence.Result) {
			r.Dataset.Path = "families/whisper/tests/manifests/other.json#testcases/whisper-tiny-fp16/test_input_audio"
		}, "the row's manifest is " + rel},
		{"more than one item", func(r *evidence.Result) { r.Dataset.Items = 6 }, "is one clip, evidence records 6 items"},
		{"another input sent", func(r *evidence.Result) { r.Outputs[1].InputID = "clip-2" }, `input_id "clip-2" is not testcase "whisper-tiny-fp16"'s clip`},
	}
	refusals(t, "asr/whisper-tiny-fp16", stage, good, cases)
	os.Remove(filepath.Join(trtmc, "families/whisper/tests/data/Recording.wav"))
	report, got = collect()
	checkInlineDataset(pins{root: t.TempDir()}, "asr/whisper-tiny-fp16", stage, good(), report)
	if !containsAll(*got, "test_input_audio data/Recording.wav in QUAL_TRTMC_ROOT") {
		t.Errorf("a missing clip: %v", *got)
	}
}

// writer writes files under root and returns their sha256.
func writer(root string) func(rel, body string) string {
	return func(rel, body string) string {
		path := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte(body), 0o644)
		sum, _ := bundle.FileSHA256(path)
		return sum
	}
}

// inlineCase is one edit of a good row and the refusal it must draw.
type inlineCase struct {
	name string
	edit func(r *evidence.Result)
	want string
}

// refusals checks every case's edited row is refused with its message.
func refusals(t *testing.T, where string, stage evidence.Stage, good func() evidence.Result, cases []inlineCase) {
	t.Helper()
	for _, c := range cases {
		r := good()
		c.edit(&r)
		report, got := collect()
		checkInlineDataset(pins{root: t.TempDir()}, where, stage, r, report)
		if !containsAll(*got, c.want) {
			t.Errorf("%s: got %v, want %q", c.name, *got, c.want)
		}
	}
}
