package verify

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/accuracy"
	"github.com/trtmc-qual/trtmc-qual/harness/claim"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
)

// TestAccuracyClustersComeFromThePinnedDataset: verify gives the accuracy claim the groups of the
// repository's copy of the dataset, so evidence bootstrapped by clip when the dataset groups its
// clips (or the reverse) is derived differently.
func TestAccuracyClustersComeFromThePinnedDataset(t *testing.T) {
	root := t.TempDir()
	ds := `{"name": "d", "clips": [{"id": "a", "group": "spk1"}, {"id": "b", "group": "spk1"}, {"id": "c"}]}`
	if err := os.WriteFile(filepath.Join(root, "dataset.json"), []byte(ds), 0o644); err != nil {
		t.Fatal(err)
	}
	gate := &evidence.GateResult{Figures: map[string]float64{"gold_wer": 0.25}, Thresholds: map[string]float64{"gold_wer": 0.35},
		Items: []evidence.GateItem{{ID: "a", Gold: "one two", Output: "one two"}, {ID: "b", Gold: "three four", Output: "three for"},
			{ID: "c", Gold: "five six", Output: "five six"}}}
	grouped, err := accuracy.Gate(gate, map[string]string{"a": "spk1", "b": "spk1"})
	if err != nil {
		t.Fatal(err)
	}
	byClip, err := accuracy.Gate(gate, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		acc  []evidence.Accuracy
		want bool
	}{{grouped, false}, {byClip, true}} {
		r := evidence.Result{Gate: gate, Accuracy: c.acc, Dataset: evidence.Dataset{Path: "dataset.json"}}
		problems := claim.Accuracy().Check(loadArtifacts(t.TempDir(), pins{Root: root, TRTMCRoot: envOptions().TRTMCRoot}, "reference", evidence.Stage{}, r, false))
		if got := len(problems) > 0; got != c.want {
			t.Errorf("clustered by %q: problems %v", c.acc[0].ClusterBy, problems)
		}
	}
}

// TestAVariantRowsGroupsComeFromItsPinnedManifest: a variant row serves nothing, so it records no
// dataset.path; its gate's groups still come from its pinned manifest's testcase dataset (the
// five LibriVox clips of sphinx-en-us-fast are one recording, each LibriSpeech clip its
// speaker's; goforward declares none), as the run computed them.
func TestAVariantRowsGroupsComeFromItsPinnedManifest(t *testing.T) {
	root := repoRoot(t)
	m, err := manifest.Read(filepath.Join(root, "native", "families", "sphinx", "manifests", "sphinx-en-us-fast.json"))
	if err != nil {
		t.Fatal(err)
	}
	tc := m.Testcases[0]
	groups, err := pins{Root: root, TRTMCRoot: envOptions().TRTMCRoot}.GateGroups(evidence.Stage{}, evidence.Result{Profile: "sphinx-en-us-fast", Gate: &evidence.GateResult{Testcase: tc.Name}})
	if err != nil || len(groups) != 8 || groups["61-70968-0000"] != "librispeech-speaker:61" ||
		groups["sense_and_sensibility_01_austen_64kb-0870"] != groups["sense_and_sensibility_01_austen_64kb-0930"] {
		t.Fatalf("groups of %s (%s): %v %v", tc.Name, tc.Dataset, groups, err)
	}
	if none, err := (pins{Root: root, TRTMCRoot: envOptions().TRTMCRoot}).GateGroups(evidence.Stage{}, evidence.Result{Profile: "not-pinned"}); err != nil || none != nil {
		t.Errorf("a row with no gate and no dataset: %v %v", none, err)
	}
}

// TestATRTMCRowsGroupsComeFromItsCheckoutManifest: a trtmc row named like a reference profile
// (sphinx-en-us) takes its gate's groups from its own manifest in the TRTMC checkout, whose
// testcase names another dataset (TIDIGITS: one voice, five clips), not from the reference
// manifest of that name (the LibriVox recording); without the checkout it is an error.
func TestATRTMCRowsGroupsComeFromItsCheckoutManifest(t *testing.T) {
	root := repoRoot(t)
	trtmc := t.TempDir()
	writer(trtmc)(namesake, namesakeManifest(30, "golden/asr/sphinx-tidigits/dataset.json"))
	t.Setenv("QUAL_TRTMC_ROOT", trtmc)
	stage := evidence.Stage{Stage: "asr", TargetKind: "trtmc", Inventory: []evidence.InventoryRow{{Profile: "sphinx-en-us", Manifest: namesake}}}
	r := evidence.Result{Profile: "sphinx-en-us", Gate: &evidence.GateResult{Testcase: "sphinx-en-us-librivox"}}
	got, err := pins{Root: root, TRTMCRoot: envOptions().TRTMCRoot}.GateGroups(stage, r)
	if err != nil {
		t.Fatal(err)
	}
	want, err := dataset.Groups(filepath.Join(root, "golden", "asr", "sphinx-tidigits", "dataset.json"))
	if err != nil || len(want) == 0 || !maps.Equal(got, want) {
		t.Fatalf("groups %v, want the checkout testcase's dataset's %v (%v)", got, want, err)
	}
	t.Setenv("QUAL_TRTMC_ROOT", "")
	if _, err := (pins{Root: root, TRTMCRoot: envOptions().TRTMCRoot}).GateGroups(stage, r); err == nil || !strings.Contains(err.Error(), "set QUAL_TRTMC_ROOT") {
		t.Errorf("without the checkout: %v", err)
	}
}
