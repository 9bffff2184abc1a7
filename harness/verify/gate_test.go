package verify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/claim"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
	"github.com/trtmc-qual/trtmc-qual/harness/verify/pinned"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
)

// pinnedRoot writes a repository root holding a pinned prompt file.
func pinnedRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "golden", "t2i"), 0o755)
	os.WriteFile(filepath.Join(root, "golden", "t2i", "prompts.jsonl"), []byte(`{"id": "p01", "prompt": "a lighthouse", "seed": 11}`+"\n"), 0o644)
	return root
}

// TestT2IInputIDMustBeAPinnedPrompt: the input id picks the golden PNG; an id that is not a
// pinned prompt (a path, a made-up id) fails the row naming it.
func TestT2IInputIDMustBeAPinnedPrompt(t *testing.T) {
	root := pinnedRoot(t)
	tc := manifest.Testcase{Name: "c", Dataset: "golden/t2i/prompts.jsonl", Expected: "golden/t2i/expected"}
	for _, id := range []string{"../../../etc/x", "p99"} {
		r := evidence.Result{
			Gate:    &evidence.GateResult{Items: []evidence.GateItem{{ID: id, Output: "sha"}}, Figures: map[string]float64{}},
			Outputs: []evidence.Output{{RequestID: "r1", InputID: id, HTTPOutput: "sha"}},
		}
		report, got := collect()
		fails := checkT2IGate(pins{Root: root, TRTMCRoot: envOptions().TRTMCRoot}, "t2i/p", tc, manifest.Thresholds{}, r, nil, report)
		if !containsAll(*got, `input_id "`+id+`" is not a prompt id pinned in golden/t2i/prompts.jsonl`) || len(fails) == 0 {
			t.Errorf("input id %q: problems %v, fails %v", id, *got, fails)
		}
	}
}

// TestManifestIsThePinnedOneForTheProfile: the gate's manifest (which decides the dataset and
// references) is resolved by profile among the repository's pinned manifests; an inventory row
// naming another file (absolute, elsewhere, another profile's) fails naming it.
func TestManifestIsThePinnedOneForTheProfile(t *testing.T) {
	root := pinnedRoot(t)
	dir := filepath.Join(root, "native", "families", "procdiff", "manifests")
	os.MkdirAll(dir, 0o755)
	pinned := `{"name": "pd", "bundle": "pd.bundle", "family": "procdiff", "task": "image_generation", "precision": "fp32",
		"testcases": [{"name": "c", "dataset": "golden/t2i/prompts.jsonl", "expected": "golden/t2i/pd"}]}`
	os.WriteFile(filepath.Join(dir, "pd.json"), []byte(pinned), 0o644)
	forged := filepath.Join(t.TempDir(), "pd.json")
	os.WriteFile(forged, []byte(pinned), 0o644)
	p := pins{Root: root, TRTMCRoot: envOptions().TRTMCRoot}
	for _, c := range []struct {
		row  evidence.InventoryRow
		want string
	}{
		{evidence.InventoryRow{Profile: "pd", Manifest: "native/families/procdiff/manifests/pd.json"}, ""},
		{evidence.InventoryRow{Profile: "pd", Manifest: forged}, `inventory manifest "` + forged + `" is not profile pd's pinned manifest native/families/procdiff/manifests/pd.json`},
		{evidence.InventoryRow{Profile: "pd", Manifest: "native/families/procdiff/manifests/../../../../x/pd.json"}, "is not profile pd's pinned manifest"},
		{evidence.InventoryRow{Profile: "zz", Manifest: "native/families/procdiff/manifests/pd.json"}, "profile zz has no pinned manifest"},
		{evidence.InventoryRow{Profile: "*", Manifest: "native/families/procdiff/manifests/pd.json"}, `profile * has no pinned manifest`},
		{evidence.InventoryRow{Profile: "gap:org/m", Manifest: "native/families/procdiff/manifests/pd.json"}, `profile gap:org/m has no pinned manifest`},
	} {
		_, tc, err := p.Testcase(c.row, "c")
		switch {
		case c.want == "" && (err != nil || tc.Dataset != "golden/t2i/prompts.jsonl"):
			t.Errorf("%+v: the pinned manifest was refused: %v", c.row, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v: got %v, want %q", c.row, err, c.want)
		}
	}
}

// TestDatasetIsThePinnedManifests: the recorded dataset path must be the pinned manifest
// testcase's dataset, and its sha256 the repository copy's; another file (even one with a
// matching recorded sha256) fails naming dataset.path.
func TestDatasetIsThePinnedManifests(t *testing.T) {
	root := pinnedRoot(t)
	dir := filepath.Join(root, "native", "families", "procdiff", "manifests")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "pd.json"), []byte(`{"name": "pd", "bundle": "pd.bundle", "family": "procdiff", "task": "image_generation", "precision": "fp32",
		"testcases": [{"name": "c", "dataset": "golden/t2i/prompts.jsonl", "expected": "golden/t2i/pd"}]}`), 0o644)
	os.WriteFile(filepath.Join(root, "golden", "t2i", "easy.jsonl"), []byte(`{"id": "p01", "prompt": "x", "seed": 1}`+"\n"), 0o644)
	sum := func(rel string) string {
		s, err := pinned.FileSHA256(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	p := pins{Root: root, TRTMCRoot: envOptions().TRTMCRoot}
	for _, c := range []struct {
		path, sha, want string
	}{
		{"golden/t2i/prompts.jsonl", sum("golden/t2i/prompts.jsonl"), ""},
		{"golden/t2i/easy.jsonl", sum("golden/t2i/easy.jsonl"), `dataset.path "golden/t2i/easy.jsonl" is not the dataset [golden/t2i/prompts.jsonl] of the pinned manifest native/families/procdiff/manifests/pd.json`},
		{"golden/t2i/prompts.jsonl", sum("golden/t2i/easy.jsonl"), "pinned dataset sha256"},
	} {
		r := evidence.Result{Profile: "pd", Gate: &evidence.GateResult{Testcase: "c"}, Dataset: evidence.Dataset{Path: c.path, SHA256: c.sha}}
		report, got := collect()
		checkStored(t.TempDir(), p, "t2i/pd", evidence.Stage{Stage: "t2i"}, r, report)
		if (c.want == "") != (len(*got) == 0) || (c.want != "" && !containsAll(*got, c.want)) {
			t.Errorf("dataset %s: got %v, want %q", c.path, *got, c.want)
		}
	}
	// A non-reference profile's dataset is still confined to the repository.
	report, got := collect()
	checkStored(t.TempDir(), p, "asr/x", evidence.Stage{Stage: "asr"}, evidence.Result{Profile: "x", Dataset: evidence.Dataset{Path: "../../etc/x"}}, report)
	if !containsAll(*got, `dataset.path "../../etc/x" is not a path inside`) {
		t.Errorf("dataset outside the repository: %v", *got)
	}
}

// TestPinnedProfileIsAReferenceRow: a profile whose manifest is pinned in native/families is a
// reference row whatever target_kind the evidence claims; its gate is recomputed (here: the
// thresholds are not pinned, so recomputation fails) instead of trusting a JUnit report.
func TestPinnedProfileIsAReferenceRow(t *testing.T) {
	root := pinnedRoot(t)
	dir := filepath.Join(root, "native", "families", "procdiff", "manifests")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "pd.json"), []byte(`{"name": "pd", "bundle": "pd.bundle", "family": "procdiff", "task": "image_generation", "precision": "fp32",
		"testcases": [{"name": "c", "dataset": "golden/t2i/prompts.jsonl", "expected": "golden/t2i/pd"}]}`), 0o644)
	run := t.TempDir()
	wd := filepath.Join(run, "t2i", "pd", "work")
	os.MkdirAll(wd, 0o755)
	os.WriteFile(filepath.Join(wd, "gate-junit.xml"), []byte(`<testsuites><testsuite><testcase name="test_model_e2e[c]" time="1"/></testsuite></testsuites>`), 0o644)
	r := evidence.Result{Profile: "pd", Gate: &evidence.GateResult{Testcase: "c", Passed: true}}
	s := evidence.Stage{Stage: "t2i", TargetKind: "trtmc", Results: []evidence.Result{r},
		Inventory: []evidence.InventoryRow{{Profile: "pd", Manifest: "native/families/procdiff/manifests/pd.json"}}}
	for _, runKind := range []string{"trtmc", "reference"} {
		report, got := collect()
		checkGateAndDerive(run, pins{Root: root, TRTMCRoot: envOptions().TRTMCRoot}, "t2i/pd", runKind, s, r, nil, report)
		if !containsAll(*got, `for profile pd, whose manifest native/families/procdiff/manifests/pd.json is the reference target's`) ||
			!containsAll(*got, "thresholds") {
			t.Errorf("run kind %s, stage kind trtmc: %v", runKind, *got)
		}
	}
	// A TRTMC profile of the same name (TRTMC's manifest, families/...) in a TRTMC run has its
	// JUnit re-read; so does a TRTMC profile no reference manifest names.
	s.Inventory[0].Manifest = "families/procdiff/tests/manifests/pd.json"
	report, got := collect()
	checkGateAndDerive(run, pins{Root: root, TRTMCRoot: envOptions().TRTMCRoot}, "t2i/pd", "trtmc", s, r, nil, report)
	if len(*got) != 0 {
		t.Errorf("TRTMC row named like a reference profile: %v", *got)
	}
	report, got = collect()
	checkGateAndDerive(run, pins{Root: root, TRTMCRoot: envOptions().TRTMCRoot}, "t2i/pd", "reference", s, r, nil, report)
	if !containsAll(*got, `target_kind "reference" (stage "trtmc") for profile pd`) {
		t.Errorf("stage trtmc in a reference run: %v", *got)
	}
	r.Profile, s.Inventory[0].Profile = "other", "other"
	os.MkdirAll(filepath.Join(run, "t2i", "other"), 0o755)
	report, got = collect()
	checkGateAndDerive(run, pins{Root: root, TRTMCRoot: envOptions().TRTMCRoot}, "t2i/other", "trtmc", s, r, nil, report)
	if !containsAll(*got, "TRTMC gate: its JUnit report is not in the run") {
		t.Errorf("TRTMC row: %v", *got)
	}
}

// asrRoot writes a pinned one-clip ASR dataset (gold text gold) and its upstream transcripts.
func asrRoot(t *testing.T, gold string) (pins, manifest.Testcase) {
	t.Helper()
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "golden", "asr"), 0o755)
	os.WriteFile(filepath.Join(root, "golden", "asr", "d.json"), []byte(`{"clips": [{"id": "c1", "gold": "`+gold+`"}]}`), 0o644)
	os.WriteFile(filepath.Join(root, "golden", "asr", "upstream.json"), []byte(`{"transcripts": [{"id": "c1", "text": "`+gold+`"}]}`), 0o644)
	return pins{Root: root, TRTMCRoot: envOptions().TRTMCRoot}, manifest.Testcase{Name: "c", Dataset: "golden/asr/d.json", Expected: "golden/asr/upstream.json"}
}

// TestASRGateBoundsNeedTheirFigures: a pinned bound whose figure is neither recomputed nor
// recorded fails the gate (A6); a WER/CER that cannot be computed (errors over an empty gold
// text) is reported and fails, not taken as 0 (A7).
func TestASRGateBoundsNeedTheirFigures(t *testing.T) {
	p, tc := asrRoot(t, "hello")
	r := evidence.Result{Gate: &evidence.GateResult{Family: "other",
		Items:   []evidence.GateItem{{ID: "c1", Output: "hello", Expected: "hello", Gold: "hello"}},
		Figures: map[string]float64{"gold_wer": 0, "gold_cer": 0, "clips": 1}}}
	report, got := collect()
	fails := checkASRGate(p, "asr/p", tc, manifest.Thresholds{Overrides: map[string]float64{"gold_wer": 0.1, "own_wer": 0.2}}, r, report)
	if !containsAll(*got, "pinned bound own_wer (0.2): gate figure own_wer neither recomputed nor recorded") || len(fails) != 1 {
		t.Errorf("missing figure: problems %v, fails %v", *got, fails)
	}
	r.Gate.Figures["own_wer"] = 0.1
	report, got = collect()
	if fails := checkASRGate(p, "asr/p", tc, manifest.Thresholds{Overrides: map[string]float64{"gold_wer": 0.1, "own_wer": 0.2}}, r, report); len(fails) != 0 || len(*got) != 0 {
		t.Errorf("a recorded figure within its bound was refused: %v %v", *got, fails)
	}

	p, tc = asrRoot(t, "")
	r.Gate.Items[0].Expected, r.Gate.Items[0].Gold = "", ""
	report, got = collect()
	fails = checkASRGate(p, "asr/p", tc, manifest.Thresholds{Overrides: map[string]float64{"gold_wer": 0.1}}, r, report)
	if !containsAll(*got, "gate figure gold_wer not computable from the stored transcripts") || !containsAll(fails, "gold_wer not computable") {
		t.Errorf("WER over an empty gold text: problems %v, fails %v", *got, fails)
	}
}

// TestT2IQualifiedRowNeedsServedImages: an aiperf-qualified T2I row whose gate no served image
// recomputes fails; a family-validated row (gate only, by design) does not.
func TestT2IQualifiedRowNeedsServedImages(t *testing.T) {
	root := pinnedRoot(t)
	tc := manifest.Testcase{Name: "c", Dataset: "golden/t2i/prompts.jsonl", Expected: "golden/t2i/expected"}
	r := evidence.Result{Status: evidence.StatusQualified,
		Gate: &evidence.GateResult{Passed: true, Items: []evidence.GateItem{{ID: "p01", Output: "sha", Passed: true, Distance: 1}}, Figures: map[string]float64{"psnr_min_db": 99, "ssim_min": 1}}}
	report, got := collect()
	fails := checkT2IGate(pins{Root: root, TRTMCRoot: envOptions().TRTMCRoot}, "t2i/p", tc, manifest.Thresholds{}, r, nil, report)
	if !containsAll(*got, "t2i/p: gate not recomputed: no served images") || len(fails) == 0 {
		t.Errorf("qualified row with no served images: problems %v, fails %v", *got, fails)
	}
	r.Status = evidence.StatusFamilyValidated
	report, got = collect()
	if fails := checkT2IGate(pins{Root: root, TRTMCRoot: envOptions().TRTMCRoot}, "t2i/p", tc, manifest.Thresholds{}, r, nil, report); len(*got) != 0 || len(fails) != 0 {
		t.Errorf("family-validated row refused: %v %v", *got, fails)
	}
}

// TestOnlyASRIsAdmittedByClipLimits: clip limits, the one re-check only some stages have
// (every stage's gate, stored inputs and input identities are in the Workload: the compiler
// checks them), are re-applied to the ASR stage's rows.
func TestOnlyASRIsAdmittedByClipLimits(t *testing.T) {
	for _, c := range []struct {
		stage     stage.Name
		admission bool
	}{{stage.ASR, true}, {stage.T2I, false}, {stage.AudioQA, false}} {
		w, err := workload.Get(string(c.stage))
		if err != nil {
			t.Fatal(err)
		}
		if _, admission := w.(workload.Admitter); admission != c.admission {
			t.Errorf("%s: admission %v, want %v", c.stage, admission, c.admission)
		}
	}
}

// checkASRGate and checkT2IGate recompute a gate through its workload, as checkGate does once the
// testcase and thresholds are read.
func checkASRGate(p pins, where string, tc manifest.Testcase, th manifest.Thresholds, r evidence.Result, report reporter) []string {
	return recheckGate(stage.ASR, p, where, tc, th, r, nil, report)
}

func checkT2IGate(p pins, where string, tc manifest.Testcase, th manifest.Thresholds, r evidence.Result, pairs []join.Pair, report reporter) []string {
	return recheckGate(stage.T2I, p, where, tc, th, r, pairs, report)
}

func recheckGate(stage stage.Name, p pins, where string, tc manifest.Testcase, th manifest.Thresholds, r evidence.Result, pairs []join.Pair, report reporter) []string {
	w, err := workload.Get(string(stage))
	if err != nil {
		panic(err)
	}
	_, fails, found := w.GateFigures(workload.GateInputs{Root: p.Root, Where: where, Testcase: tc, Thresholds: th, Result: r, Pairs: pairs})
	reportFindings(found, report)
	return fails
}

// checkGateAndDerive is what verify reports of a row's gate: how it was produced (checkGateOf)
// and its derivation (the gate claim, the row's joined requests pairs).
func checkGateAndDerive(runDir string, p pins, where, runKind string, s evidence.Stage, r evidence.Result, pairs []join.Pair, report reporter) {
	checkGateOf(runDir, p, where, runKind, s, r, report)
	w, _ := workload.Get(s.Stage)
	a := &claim.Artifacts{Row: r, Given: claim.Given{Stage: w, GatePins: gatePins(p, runKind, s, r)}, Join: join.Report{Pairs: pairs}}
	for _, problem := range claim.Gate().Check(a) {
		report(where, "%s", problem)
	}
}

// TestTargetKindIsTheTargetFiles: the run's target_kind must be the kind of the repository's
// target file it names.
func TestTargetKindIsTheTargetFiles(t *testing.T) {
	p := pins{Root: repoRootForTest(t), TRTMCRoot: envOptions().TRTMCRoot}
	for _, c := range []struct {
		target, kind, want string
	}{
		{"suites/targets/reference.yaml", "reference", ""},
		{"suites/targets/trtmc.yaml", "trtmc", ""},
		{"suites/targets/reference.yaml", "trtmc", `target_kind "trtmc", but the target file suites/targets/reference.yaml says kind "reference"`},
		{"suites/targets/trtmc.yaml", "reference", `target_kind "reference", but the target file suites/targets/trtmc.yaml says kind "trtmc"`},
		{"../../elsewhere.yaml", "reference", `target_kind reference, but target "../../elsewhere.yaml" is not a path inside`},
		{"../../elsewhere.yaml", "trtmc-nightly", `target_kind "trtmc-nightly" is not one of [reference trtmc]`},
		{"../../elsewhere.yaml", "", `target_kind "" is not one of [reference trtmc]`},
	} {
		report, got := collect()
		checkTargetKind(p, evidence.Evidence{Target: c.target, TargetKind: c.kind, Stages: []evidence.Stage{{Stage: "asr", Target: c.target, TargetKind: c.kind}}}, report)
		if (c.want == "") != (len(*got) == 0) || (c.want != "" && !containsAll(*got, c.want)) {
			t.Errorf("%s as %s: got %v, want %q", c.target, c.kind, *got, c.want)
		}
	}
	// A stage naming another target or kind than the run's (which the target file ties) is named.
	for _, s := range []evidence.Stage{
		{Stage: "t2i", Target: "suites/targets/trtmc.yaml", TargetKind: "reference"},
		{Stage: "t2i", Target: "suites/targets/reference.yaml", TargetKind: "trtmc"},
	} {
		report, got := collect()
		e := evidence.Evidence{Target: "suites/targets/reference.yaml", TargetKind: "reference",
			Stages: []evidence.Stage{{Stage: "asr", Target: "suites/targets/reference.yaml", TargetKind: "reference"}, s}}
		checkTargetKind(p, e, report)
		if !containsAll(*got, "t2i/stage.json", "target "+s.Target+" ("+s.TargetKind+"), but the run's is suites/targets/reference.yaml (reference)") {
			t.Errorf("stage of %s (%s) in a run of reference.yaml: %v", s.Target, s.TargetKind, *got)
		}
	}
}

func repoRootForTest(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}
