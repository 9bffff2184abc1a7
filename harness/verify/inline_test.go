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
	write := func(rel, body string) string {
		path := filepath.Join(trtmc, rel)
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte(body), 0o644)
		sum, _ := bundle.FileSHA256(path)
		return sum
	}
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
	cases := []struct {
		name string
		edit func(r *evidence.Result)
		want string
	}{
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
	for _, c := range cases {
		r := good()
		c.edit(&r)
		report, got := collect()
		checkInlineDataset(pins{root: t.TempDir()}, "t2i/flux-schnell", stage, r, report)
		if !containsAll(*got, c.want) {
			t.Errorf("%s: got %v, want %q", c.name, *got, c.want)
		}
	}
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
