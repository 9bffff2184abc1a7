package verify

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/verify/pinned"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
)

// admissionRun lays out one stage-3 row as a run stores it: the pinned sphinx-en-us clips under
// asr/<profile>/inputs and AIPerf's inputs.json naming the clips sent. Recorded limits: 3 s.
func admissionRun(t *testing.T, sent []string) (string, string, evidence.Result) {
	t.Helper()
	root := repoRootForTest(t)
	runDir := t.TempDir()
	datasetPath := filepath.Join(root, "golden", "asr", "sphinx-en-us", "dataset.json")
	set, err := dataset.ReadASR(datasetPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := set.Materialize(root, filepath.Join(runDir, "asr", "short-3s", "inputs")); err != nil {
		t.Fatalf("pinned recordings not installed (run make deps; make test needs them): %v", err)
	}
	var data []map[string]string
	for _, id := range sent {
		data = append(data, map[string]string{"session_id": id})
	}
	raw, _ := json.Marshal(map[string]any{"data": data})
	art := filepath.Join(runDir, "asr", "short-3s", "aiperf", "artifacts")
	if err := os.MkdirAll(art, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(art, "inputs.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	lim := &evidence.InputLimits{MaxClipSeconds: 3, MaxClipSource: "max_seconds in short-3s build"}
	r := evidence.Result{Profile: "short-3s", Status: evidence.StatusQualified, Dataset: evidence.Dataset{Path: "golden/asr/sphinx-en-us/dataset.json"},
		Records: "asr/short-3s/server-records.jsonl", AIPerf: &evidence.AIPerfRun{Dir: "asr/short-3s/aiperf/artifacts"}, Limits: lim}
	skipBy(t, runDir, &r, "")
	return runDir, datasetPath, r
}

// skipBy records as skipped the row's stored clips its limits exclude, each with the reason the
// run gives (family names the limit).
func skipBy(t *testing.T, runDir string, r *evidence.Result, family string) {
	t.Helper()
	r.Skipped = nil
	paths, _ := filepath.Glob(filepath.Join(runDir, "asr", r.Profile, "inputs", "*.wav"))
	set, err := dataset.ReadASR(filepath.Join(repoRootForTest(t), r.Dataset.Path))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range set.Clips {
		seconds, rate, err := workload.ClipOf(filepath.Join(runDir, "asr", r.Profile, "inputs", c.ID+".wav"))
		if err != nil {
			t.Fatalf("%v (stored: %v)", err, paths)
		}
		if why := r.Limits.Violation(family, seconds, rate); why != "" {
			r.Skipped = append(r.Skipped, evidence.SkippedInput{Clip: c.ID, Seconds: seconds, SampleRate: rate, Reason: why})
		}
	}
}

var shortClips = []string{"sense_and_sensibility_01_austen_64kb-0880", "goforward"}

func TestAdmissionAcceptsAnHonestSkip(t *testing.T) {
	runDir, ds, r := admissionRun(t, shortClips)
	report, problems := collect()
	checkAdmission(pins{Root: repoRootForTest(t), TRTMCRoot: envOptions().TRTMCRoot}, workload.StoredInputs{RunDir: runDir, Root: repoRootForTest(t), Where: "asr/short-3s", Source: workload.InputSource{DatasetPath: ds}, Result: r}, evidence.Stage{Stage: "asr"}, report)
	if len(*problems) != 0 {
		t.Fatalf("an honest row: %v", *problems)
	}
}

// Each way of dropping or inventing a skip is caught with a message naming the clip.
func TestAdmissionCatchesDroppedAndInventedSkips(t *testing.T) {
	cases := map[string]struct {
		sent []string
		edit func(r *evidence.Result)
		want string
	}{
		"a clip neither sent nor skipped": {sent: shortClips[:1], want: "clip goforward was neither sent nor recorded as skipped"},
		"a skipped clip that breaks no limit": {sent: shortClips[:1], edit: func(r *evidence.Result) {
			r.Skipped = append(r.Skipped, evidence.SkippedInput{Clip: "goforward", Reason: "too long"})
		}, want: "admission recomputed differently: .skipped_inputs[goforward]: evidence has map[clip:goforward reason:too long"},
		"a long clip dropped from the skipped list": {sent: shortClips, edit: func(r *evidence.Result) { r.Skipped = r.Skipped[1:] },
			want: "admission recomputed differently: .skipped_inputs[sense_and_sensibility_01_austen_64kb-0870]: recomputed map[clip:sense_and_sensibility_01_austen_64kb-0870 reason:clip of 7.10 s exceeds"},
		"a skipped clip that was sent": {sent: append([]string{"sense_and_sensibility_01_austen_64kb-0870"}, shortClips...),
			want: "clip sense_and_sensibility_01_austen_64kb-0870 is recorded as skipped but AIPerf was given it"},
		"skips without limits": {sent: shortClips, edit: func(r *evidence.Result) { r.Limits = nil },
			want: "admission recomputed differently: .skipped_inputs: evidence has [map[clip:sense_and_sensibility_01_austen_64kb-0870"},
		"every clip skipped on a qualified row": {sent: nil, edit: func(r *evidence.Result) {
			r.Limits.MaxClipSeconds = 1
			r.AIPerf = nil
			for _, id := range shortClips {
				r.Skipped = append(r.Skipped, evidence.SkippedInput{Clip: id, Reason: "beyond 1 s"})
			}
		}, want: "admission not recomputable: all 6 pinned clips of golden/asr/sphinx-en-us/dataset.json are beyond family 's declared limits (listed as skipped inputs): nothing can be sent, and a row never qualifies on zero inputs (the row is aiperf-qualified)"},
	}
	for name, tc := range cases {
		runDir, ds, r := admissionRun(t, tc.sent)
		if tc.edit != nil {
			tc.edit(&r)
		}
		report, problems := collect()
		checkAdmission(pins{Root: repoRootForTest(t), TRTMCRoot: envOptions().TRTMCRoot}, workload.StoredInputs{RunDir: runDir, Root: repoRootForTest(t), Where: "asr/short-3s", Source: workload.InputSource{DatasetPath: ds}, Result: r}, evidence.Stage{Stage: "asr"}, report)
		if !strings.Contains(strings.Join(*problems, "\n"), tc.want) {
			t.Errorf("%s: problems %v, want one containing %q", name, *problems, tc.want)
		}
	}
}

// A reference row's recorded limits must be its pinned manifest's: a lowered limit that would
// excuse skipping clips is refused.
func TestAdmissionRequiresAReferenceRowsPinnedLimits(t *testing.T) {
	runDir, ds, r := admissionRun(t, shortClips)
	r = asProfile(t, runDir, r, "sphinx-en-us")
	report, problems := collect()
	checkAdmission(pins{Root: repoRootForTest(t), TRTMCRoot: envOptions().TRTMCRoot}, workload.StoredInputs{RunDir: runDir, Root: repoRootForTest(t), Where: "asr/sphinx-en-us", Source: workload.InputSource{DatasetPath: ds}, Result: r}, evidence.Stage{Stage: "asr"}, report)
	got := strings.Join(*problems, "\n")
	for _, want := range []string{"admission recomputed differently: .input_limits.max_clip_seconds: recomputed 30, evidence says 3"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems %v, want one containing %q", *problems, want)
		}
	}
}

// namesake is a TRTMC checkout's manifest for a profile that shares a reference profile's name
// (sphinx-en-us) but not its manifest: the row's limits and dataset are this file's.
const namesake = "families/sphinx/tests/manifests/sphinx-en-us.json"

// namesakeManifest is that manifest declaring maxSeconds and sample rate 16 kHz, its testcase
// naming dataset.
func namesakeManifest(maxSeconds int, dataset string) string {
	return fmt.Sprintf(`{"name": "sphinx-en-us", "bundle": "sphinx-en-us.bundle", "family": "sphinx", "task": "transcription", "precision": "fp32",
		"source_package": "pocketsphinx-en-us", "source_model": "en-us", "source_version": "0.8+5prealpha+1-15",
		"build": {"sample_rate": 16000, "max_seconds": %d, "language": "en"},
		"testcases": [{"name": "sphinx-en-us-librivox", "dataset": %q}]}`, maxSeconds, dataset)
}

// namesakeRun lays out a TRTMC stage-3 row named sphinx-en-us, as a run stores it, whose checkout
// manifest (QUAL_TRTMC_ROOT) declares a 3 s clip limit where the reference manifest of that name
// declares 30 s: limits 3 s, the clips over them skipped, the short ones sent.
func namesakeRun(t *testing.T) (string, evidence.Stage, evidence.Result) {
	t.Helper()
	runDir, ds, r := admissionRun(t, shortClips)
	r = asProfile(t, runDir, r, "sphinx-en-us")
	writer(runDir)("asr/sphinx-en-us/server-records.jsonl", "")
	sum, err := pinned.FileSHA256(ds)
	if err != nil {
		t.Fatal(err)
	}
	r.Records, r.Dataset.SHA256 = "asr/sphinx-en-us/server-records.jsonl", sum
	r.Limits = &evidence.InputLimits{MaxClipSeconds: 3, MaxClipSource: "max_seconds in sphinx-en-us build", SampleRate: 16000, SampleRateSource: "sample_rate in sphinx-en-us build"}
	skipBy(t, runDir, &r, "sphinx")
	trtmc := t.TempDir()
	writer(trtmc)(namesake, namesakeManifest(3, r.Dataset.Path))
	t.Setenv("QUAL_TRTMC_ROOT", trtmc)
	stage := evidence.Stage{Stage: "asr", TargetKind: "trtmc", Inventory: []evidence.InventoryRow{{Profile: "sphinx-en-us", Family: "sphinx", Manifest: namesake}}}
	return runDir, stage, r
}

// asProfile moves admissionRun's row to another profile's directory.
func asProfile(t *testing.T, runDir string, r evidence.Result, profile string) evidence.Result {
	t.Helper()
	if err := os.Rename(filepath.Join(runDir, "asr", r.Profile), filepath.Join(runDir, "asr", profile)); err != nil {
		t.Fatal(err)
	}
	r.Profile, r.AIPerf.Dir = profile, "asr/"+profile+"/aiperf/artifacts"
	return r
}

// referenceLimits sends every clip under the reference manifest's limits (30 s, 16 kHz): what
// a run would record had it judged the TRTMC row by the reference manifest of the same name.
func referenceLimits(t *testing.T, runDir string, r *evidence.Result) {
	t.Helper()
	var data []string
	for _, id := range shortClips {
		data = append(data, `{"session_id":"`+id+`"}`)
	}
	for _, s := range r.Skipped {
		data = append(data, `{"session_id":"`+s.Clip+`"}`)
	}
	writer(runDir)(r.AIPerf.Dir+"/inputs.json", `{"data":[`+strings.Join(data, ",")+`]}`)
	r.Limits.MaxClipSeconds, r.Skipped = 30, nil
}

// TestTRTMCRowsLimitsAreItsCheckoutManifests: a TRTMC row's clip limits and dataset are its own
// manifest's, read in the TRTMC checkout, even when a reference profile has its name: evidence
// holding the checkout manifest's limits and honest skips verifies clean; evidence holding the
// reference manifest's laxer limits (every clip sent), or its dataset where the checkout's
// testcase names another, is refused naming the checkout's manifest; and without QUAL_TRTMC_ROOT
// the row is refused, never passed.
func TestTRTMCRowsLimitsAreItsCheckoutManifests(t *testing.T) {
	runDir, stage, r := namesakeRun(t)
	if got := rowInputProblems(t, runDir, stage, r); len(got) != 0 {
		t.Fatalf("the checkout manifest's limits and honest skips are refused: %v", got)
	}
	cases := []struct {
		name string
		edit func(t *testing.T, runDir string, r *evidence.Result)
		want [][]string // for each, one problem must contain all of its parts
	}{
		{"the reference manifest's limits recorded, every clip sent", referenceLimits, [][]string{
			{"admission recomputed differently: .input_limits.max_clip_seconds: recomputed 3, evidence says 30"},
		}},
		{"the reference manifest's dataset recorded, the checkout's testcase names another", func(t *testing.T, runDir string, r *evidence.Result) {
			writer(os.Getenv("QUAL_TRTMC_ROOT"))(namesake, namesakeManifest(30, "golden/asr/sphinx-tidigits/dataset.json"))
			referenceLimits(t, runDir, r)
		}, [][]string{{`dataset.path "golden/asr/sphinx-en-us/dataset.json" is not the dataset [golden/asr/sphinx-tidigits/dataset.json] of the manifest ` + namesake + " in QUAL_TRTMC_ROOT"}}},
		{"without the checkout", func(t *testing.T, runDir string, r *evidence.Result) {
			t.Setenv("QUAL_TRTMC_ROOT", "")
		}, [][]string{{"manifest " + namesake + " is in the TRTMC checkout the run used: set QUAL_TRTMC_ROOT (make verify TRTMC_ROOT=) to check it"}}},
		{"a row the stage's inventory does not list", func(t *testing.T, runDir string, r *evidence.Result) {
			*r = asProfile(t, runDir, *r, "sphinx-en-us-fast")
			r.Records = "asr/sphinx-en-us-fast/server-records.jsonl"
		}, [][]string{{"the stage's inventory has no row for profile sphinx-en-us-fast"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			runDir, stage, r := namesakeRun(t)
			c.edit(t, runDir, &r)
			got := rowInputProblems(t, runDir, stage, r)
			for _, want := range c.want {
				if !containsAll(got, want...) {
					t.Errorf("got %v, want one containing %q", got, want)
				}
			}
		})
	}
}

// The family a skipped clip's reason names is the one the row's manifest gives, as the suite
// reads it, never the recorded inventory row's (which a forger can relabel with the reasons).
func TestAdmissionFamilyIsTheManifests(t *testing.T) {
	s := evidence.Stage{Stage: "asr", TargetKind: "reference", Inventory: []evidence.InventoryRow{{Profile: "sphinx-en-us", Family: "whisper"}}}
	r := evidence.Result{Profile: "sphinx-en-us"}
	report, problems := collect()
	limits, family := pinnedLimits(pins{Root: repoRootForTest(t)}, "asr/sphinx-en-us", s, r, report)
	if len(*problems) != 0 || family != "sphinx" || limits.MaxClipSeconds == 0 {
		t.Errorf("family %q, limits %+v, problems %v; want the pinned manifest's family sphinx and its limits", family, limits, *problems)
	}
}
