package verify

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/verify/pinned"
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
	stage := evidence.Stage{Stage: "t2i", TargetKind: "trtmc", Inventory: []evidence.InventoryRow{{Profile: "flux-schnell", Manifest: rel}}}
	good := func() evidence.Result {
		return evidence.Result{Profile: "flux-schnell", Gate: &evidence.GateResult{Testcase: "flux-schnell"},
			Dataset: evidence.Dataset{Path: rel + "#testcases/flux-schnell/test_prompt", SHA256: sum, Items: 1},
			Outputs: []evidence.Output{{RequestID: "r1", InputID: "flux-schnell"}}}
	}
	report, got := collect()
	(pins{Root: t.TempDir(), TRTMCRoot: envOptions().TRTMCRoot}).CheckInlineDataset("t2i/flux-schnell", stage, good(), report)
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
	escape.Inventory = []evidence.InventoryRow{{Profile: "flux-schnell", Manifest: "../x.json"}}
	r := good()
	r.Dataset.Path = "../x.json#testcases/flux-schnell/test_prompt"
	report, got = collect()
	(pins{Root: t.TempDir(), TRTMCRoot: envOptions().TRTMCRoot}).CheckInlineDataset("t2i/flux-schnell", escape, r, report)
	if !containsAll(*got, `"../x.json" is not a path inside`) {
		t.Errorf("escaping path: %v", *got)
	}
	t.Setenv("QUAL_TRTMC_ROOT", "")
	report, got = collect()
	(pins{Root: t.TempDir(), TRTMCRoot: envOptions().TRTMCRoot}).CheckInlineDataset("t2i/flux-schnell", stage, good(), report)
	if !containsAll(*got, "set QUAL_TRTMC_ROOT") {
		t.Errorf("without the checkout: %v", *got)
	}
	// checkStored leaves such a path to checkInlineDataset (no dataset file to re-hash) ...
	report, got = collect()
	checkStored(t.TempDir(), pins{Root: t.TempDir(), TRTMCRoot: envOptions().TRTMCRoot}, "t2i/flux-schnell", stage, good(), report)
	if len(*got) != 0 {
		t.Errorf("checkStored on an inline dataset: %v", *got)
	}
	// ... and a reference row cannot claim one: its pinned manifest's testcases name datasets.
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "native", "families", "procdiff", "manifests"), 0o755)
	refRel := "native/families/procdiff/manifests/pd.json"
	os.WriteFile(filepath.Join(root, refRel), []byte(`{"name":"pd","testcases":[{"name":"c","dataset":"golden/t2i/prompts.jsonl","test_prompt":"x"}]}`), 0o644)
	refSum, _ := pinned.FileSHA256(filepath.Join(root, refRel))
	ref := evidence.Stage{Stage: "t2i", TargetKind: "reference", Inventory: []evidence.InventoryRow{{Profile: "pd", Manifest: refRel}}}
	r = evidence.Result{Profile: "pd", Dataset: evidence.Dataset{Path: refRel + "#testcases/c/test_prompt", SHA256: refSum, Items: 1}}
	report, got = collect()
	(pins{Root: root, TRTMCRoot: envOptions().TRTMCRoot}).CheckInlineDataset("t2i/pd", ref, r, report)
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
	stage := evidence.Stage{Stage: "asr", TargetKind: "trtmc", Inventory: []evidence.InventoryRow{{Profile: "whisper-tiny-fp16", Manifest: rel}}}
	good := func() evidence.Result {
		return evidence.Result{Profile: "whisper-tiny-fp16", Gate: &evidence.GateResult{Testcase: "whisper-tiny-fp16"},
			Dataset: evidence.Dataset{Path: rel + "#testcases/whisper-tiny-fp16/test_input_audio", SHA256: wavSum, Items: 1},
			Outputs: []evidence.Output{{RequestID: "r1", InputID: "whisper-tiny-fp16"}, {RequestID: "r2", InputID: "whisper-tiny-fp16"}}}
	}
	report, got := collect()
	(pins{Root: t.TempDir(), TRTMCRoot: envOptions().TRTMCRoot}).CheckInlineDataset("asr/whisper-tiny-fp16", stage, good(), report)
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
	(pins{Root: t.TempDir(), TRTMCRoot: envOptions().TRTMCRoot}).CheckInlineDataset("asr/whisper-tiny-fp16", stage, good(), report)
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
		sum, _ := pinned.FileSHA256(path)
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
		(pins{Root: t.TempDir(), TRTMCRoot: envOptions().TRTMCRoot}).CheckInlineDataset(where, stage, r, report)
		if !containsAll(*got, c.want) {
			t.Errorf("%s: got %v, want %q", c.name, *got, c.want)
		}
	}
}

// ownClipRow is where ownClipRun lays out its row, relative to the run directory.
const ownClipRow = "asr/whisper-tiny-fp16/"

// ownClipRun lays out a TRTMC ASR row whose input is its testcase's own clip (test_input_audio)
// as a run stores it: the clip in the checkout (QUAL_TRTMC_ROOT), the copy the run sent,
// <row>/inputs/<testcase>.wav beside the server records (workload's ownClip), and AIPerf's
// inputs.json naming it, in the artifact directory and in each of two profile runs. The clip is
// a real recording (2.4 s at 8 kHz), so the recorded 30 s limit can be re-applied to it.
func ownClipRun(t *testing.T) (string, evidence.Stage, evidence.Result) {
	t.Helper()
	clip, err := os.ReadFile(filepath.Join(repoRootForTest(t), "golden", "asr", "sphinx-tidigits", "clips", "dhd.2934z.wav"))
	if err != nil {
		t.Fatal(err)
	}
	trtmc := t.TempDir()
	rel := "families/whisper/tests/manifests/whisper-tiny-fp16.json"
	write := writer(trtmc)
	write(rel, ownClipManifest(30))
	sum := write("families/whisper/tests/data/Recording.wav", string(clip))
	t.Setenv("QUAL_TRTMC_ROOT", trtmc)
	runDir := t.TempDir()
	run := writer(runDir)
	run(ownClipRow+"server-records.jsonl", "")
	run(ownClipRow+"inputs/whisper-tiny-fp16.wav", string(clip))
	for _, dir := range []string{"", "profile_runs/run_0001/", "profile_runs/run_0002/"} {
		run(ownClipRow+"aiperf/artifacts/"+dir+"inputs.json", `{"data":[{"session_id":"whisper-tiny-fp16"}]}`)
	}
	stage := evidence.Stage{Stage: "asr", TargetKind: "trtmc", Inventory: []evidence.InventoryRow{{Profile: "whisper-tiny-fp16", Manifest: rel}}}
	r := evidence.Result{Profile: "whisper-tiny-fp16", Status: evidence.StatusQualified, Gate: &evidence.GateResult{Testcase: "whisper-tiny-fp16"},
		Dataset: evidence.Dataset{Path: rel + "#testcases/whisper-tiny-fp16/test_input_audio", SHA256: sum, Items: 1},
		Records: ownClipRow + "server-records.jsonl", AIPerf: &evidence.AIPerfRun{Dir: ownClipRow + "aiperf/artifacts"},
		Limits:  &evidence.InputLimits{MaxClipSeconds: 30, MaxClipSource: "max_seconds in whisper-tiny-fp16 build"},
		Outputs: []evidence.Output{{RequestID: "r1", InputID: "whisper-tiny-fp16"}, {RequestID: "r2", InputID: "whisper-tiny-fp16"}}}
	return runDir, stage, r
}

// ownClipManifest is ownClipRun's manifest in the checkout, declaring maxSeconds.
func ownClipManifest(maxSeconds int) string {
	return fmt.Sprintf(`{"name":"whisper-tiny-fp16","bundle":"whisper-tiny-fp16.bundle","family":"whisper","task":"transcription","hf_id":"openai/whisper-tiny",
		"build":{"max_seconds":%d},"testcases":[{"name":"whisper-tiny-fp16","test_input_audio":"data/Recording.wav"}]}`, maxSeconds)
}

// rowInputProblems runs what Run checks of a row's inputs: the stored files (checkStored) and
// the testcase's own input (checkInlineDataset).
func rowInputProblems(t *testing.T, runDir string, s evidence.Stage, r evidence.Result) []string {
	t.Helper()
	p := pins{Root: repoRootForTest(t), TRTMCRoot: envOptions().TRTMCRoot}
	report, got := collect()
	checkStored(runDir, p, s.Stage+"/"+r.Profile, s, r, report)
	p.CheckInlineDataset(s.Stage+"/"+r.Profile, s, r, report)
	return *got
}

// TestOwnClipRowsStoredInputsAreChecked: a row whose input is its TRTMC testcase's own clip gets
// the checks a dataset row's clips get: the stored copy it sent must hash to the clip the evidence
// records, every AIPerf inputs.json must name that clip and nothing else, and the recorded limits
// are re-applied to the stored copy (a skip must be honest, a clip over them must not be sent).
// Each forgery is refused naming the file or the clip.
func TestOwnClipRowsStoredInputsAreChecked(t *testing.T) {
	runDir, stage, r := ownClipRun(t)
	if got := rowInputProblems(t, runDir, stage, r); len(got) != 0 {
		t.Fatalf("the honest row is refused: %v", got)
	}
	other := filepath.Join(repoRootForTest(t), "golden", "asr", "sphinx-tidigits", "clips", "synth-1.wav")
	otherSum, err := pinned.FileSHA256(other)
	if err != nil {
		t.Fatal(err)
	}
	stored := ownClipRow + "inputs/whisper-tiny-fp16.wav"
	cases := []struct {
		name string
		edit func(t *testing.T, runDir string, r *evidence.Result)
		want []string // one problem must contain all of these
	}{
		{"the stored clip replaced by another valid WAV", func(t *testing.T, runDir string, r *evidence.Result) {
			data, err := os.ReadFile(other)
			if err != nil {
				t.Fatal(err)
			}
			writer(runDir)(stored, string(data))
		}, []string{stored + ": stored input sha256 " + otherSum, "pinned " + r.Dataset.SHA256}},
		{"the stored clip removed", func(t *testing.T, runDir string, r *evidence.Result) {
			os.Remove(filepath.Join(runDir, stored))
		}, []string{stored + ": stored input pinned in ", "cannot be read", "no such file"}},
		{"one AIPerf run given another clip", func(t *testing.T, runDir string, r *evidence.Result) {
			writer(runDir)(ownClipRow+"aiperf/artifacts/profile_runs/run_0002/inputs.json", `{"data":[{"session_id":"synth-1"}]}`)
		}, []string{ownClipRow + "aiperf/artifacts/profile_runs/run_0002/inputs.json: clip whisper-tiny-fp16 was neither sent nor recorded as skipped"}},
		{"an input sent beside the clip", func(t *testing.T, runDir string, r *evidence.Result) {
			writer(runDir)(ownClipRow+"aiperf/artifacts/inputs.json", `{"data":[{"session_id":"whisper-tiny-fp16"},{"session_id":"synth-1"}]}`)
		}, []string{ownClipRow + "aiperf/artifacts/inputs.json: AIPerf was given inputs [synth-1] that are not clips of", r.Dataset.Path}},
		{"the clip recorded as skipped on a qualified row", func(t *testing.T, runDir string, r *evidence.Result) {
			r.Skipped = []evidence.SkippedInput{{Clip: "whisper-tiny-fp16", Seconds: 40, Reason: "too long"}}
		}, []string{"admission recomputed differently: .skipped_inputs: evidence has [map[clip:whisper-tiny-fp16 reason:too long"}},
		{"a clip the limits skip served", func(t *testing.T, runDir string, r *evidence.Result) {
			writer(os.Getenv("QUAL_TRTMC_ROOT"))("families/whisper/tests/manifests/whisper-tiny-fp16.json", ownClipManifest(1))
			r.Limits.MaxClipSeconds = 1
			r.Skipped = []evidence.SkippedInput{{Clip: "whisper-tiny-fp16", Seconds: 2.4, SampleRate: 8000,
				Reason: "clip of 2.40 s exceeds family 's maximum clip duration 1 s (max_seconds in whisper-tiny-fp16 build)"}}
		}, []string{"request r1 served clip whisper-tiny-fp16, which breaks the limits it is admitted under"}},
		{"its only clip skipped, the row not failed", func(t *testing.T, runDir string, r *evidence.Result) {
			writer(os.Getenv("QUAL_TRTMC_ROOT"))("families/whisper/tests/manifests/whisper-tiny-fp16.json", ownClipManifest(1))
			r.Limits.MaxClipSeconds, r.AIPerf, r.Outputs = 1, nil, nil
			r.Skipped = []evidence.SkippedInput{{Clip: "whisper-tiny-fp16", Reason: "beyond 1 s"}}
		}, []string{"admission not recomputable: all 1 pinned clips", "a row never qualifies on zero inputs (the row is aiperf-qualified)"}},
		{"a clip over the manifest's limits sent", func(t *testing.T, runDir string, r *evidence.Result) {
			writer(os.Getenv("QUAL_TRTMC_ROOT"))("families/whisper/tests/manifests/whisper-tiny-fp16.json", ownClipManifest(1))
			r.Limits.MaxClipSeconds = 1
		}, []string{"admission recomputed differently: .skipped_inputs[whisper-tiny-fp16]: recomputed map[clip:whisper-tiny-fp16 reason:clip of 2.40 s exceeds"}},
		{"limits other than the manifest's recorded", func(t *testing.T, runDir string, r *evidence.Result) {
			r.Limits.MaxClipSeconds = 60
		}, []string{"admission recomputed differently: .input_limits.max_clip_seconds: recomputed 30, evidence says 60"}},
		{"checked without the checkout", func(t *testing.T, runDir string, r *evidence.Result) {
			t.Setenv("QUAL_TRTMC_ROOT", "")
		}, []string{"input limits: manifest families/whisper/tests/manifests/whisper-tiny-fp16.json is in the TRTMC checkout the run used: set QUAL_TRTMC_ROOT"}},
		{"a testcase name leaving inputs/", func(t *testing.T, runDir string, r *evidence.Result) {
			r.Dataset.Path = "families/whisper/tests/manifests/whisper-tiny-fp16.json#testcases/../whisper-tiny-fp16/test_input_audio"
			writer(runDir)(ownClipRow+"whisper-tiny-fp16.wav", "RIFF")
		}, []string{`testcase "../whisper-tiny-fp16" is not a file name its stored clip can have`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			runDir, stage, r := ownClipRun(t)
			c.edit(t, runDir, &r)
			if got := rowInputProblems(t, runDir, stage, r); !containsAll(got, c.want...) {
				t.Errorf("got %v, want one containing %q", got, c.want)
			}
		})
	}
}
