package verify

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
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
		AIPerf: &evidence.AIPerfRun{Dir: "asr/short-3s/aiperf/artifacts"}, Limits: lim}
	for _, c := range set.Clips {
		if c.Duration > 3 {
			r.Skipped = append(r.Skipped, evidence.SkippedInput{Clip: c.ID, Seconds: c.Duration, SampleRate: 16000, Reason: "beyond 3 s"})
		}
	}
	return runDir, datasetPath, r
}

var shortClips = []string{"sense_and_sensibility_01_austen_64kb-0880", "goforward"}

func TestAdmissionAcceptsAnHonestSkip(t *testing.T) {
	runDir, ds, r := admissionRun(t, shortClips)
	report, problems := collect()
	checkAdmission(runDir, pins{root: repoRootForTest(t)}, inputSource{datasetPath: ds}, "asr/short-3s", "asr", r, report)
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
		}, want: "clip goforward (2.79 s, 16000 Hz) is recorded as skipped (\"too long\") but breaks none of the limits that apply"},
		"a long clip dropped from the skipped list": {sent: shortClips, edit: func(r *evidence.Result) { r.Skipped = r.Skipped[1:] },
			want: "was not skipped but breaks the family's declared limits: clip of 7.10 s exceeds"},
		"a skipped clip that was sent": {sent: append([]string{"sense_and_sensibility_01_austen_64kb-0870"}, shortClips...),
			want: "clip sense_and_sensibility_01_austen_64kb-0870 is recorded as skipped but AIPerf was given it"},
		"skips without limits": {sent: shortClips, edit: func(r *evidence.Result) { r.Limits = nil },
			want: "4 clips recorded as skipped, but no input limits are recorded"},
		"every clip skipped on a qualified row": {sent: nil, edit: func(r *evidence.Result) {
			r.Limits.MaxClipSeconds = 1
			r.AIPerf = nil
			for _, id := range shortClips {
				r.Skipped = append(r.Skipped, evidence.SkippedInput{Clip: id, Reason: "beyond 1 s"})
			}
		}, want: "every pinned clip was skipped, yet the row is aiperf-qualified"},
	}
	for name, tc := range cases {
		runDir, ds, r := admissionRun(t, tc.sent)
		if tc.edit != nil {
			tc.edit(&r)
		}
		report, problems := collect()
		checkAdmission(runDir, pins{root: repoRootForTest(t)}, inputSource{datasetPath: ds}, "asr/short-3s", "asr", r, report)
		if !strings.Contains(strings.Join(*problems, "\n"), tc.want) {
			t.Errorf("%s: problems %v, want one containing %q", name, *problems, tc.want)
		}
	}
}

// A reference row's recorded limits must be its pinned manifest's: a lowered limit that would
// excuse skipping clips is refused.
func TestAdmissionRequiresAReferenceRowsPinnedLimits(t *testing.T) {
	runDir, ds, r := admissionRun(t, shortClips)
	dir := filepath.Join(runDir, "asr", "sphinx-en-us")
	if err := os.Rename(filepath.Join(runDir, "asr", "short-3s"), dir); err != nil {
		t.Fatal(err)
	}
	r.Profile, r.AIPerf.Dir = "sphinx-en-us", "asr/sphinx-en-us/aiperf/artifacts"
	report, problems := collect()
	checkAdmission(runDir, pins{root: repoRootForTest(t)}, inputSource{datasetPath: ds}, "asr/sphinx-en-us", "asr", r, report)
	got := strings.Join(*problems, "\n")
	for _, want := range []string{"are not the pinned manifest native/families/sphinx/manifests/sphinx-en-us.json's", "is recorded as skipped (\"beyond 3 s\") but breaks none of the limits that apply"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems %v, want one containing %q", *problems, want)
		}
	}
}
