package checkpoint

import (
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/report"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
)

func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// limitsCheckpoint prepares an ASR checkpoint on a manifest, without building or serving.
func limitsCheckpoint(t *testing.T, manifestPath string) *Checkpoint {
	t.Helper()
	root := moduleRoot()
	env := &Env{Root: root, Target: &target.Target{Path: filepath.Join(root, "suites", "targets", "reference.yaml"), Kind: "reference"},
		RunDir: t.TempDir(), Stage: stage.ASR, Log: io.Discard}
	c, err := New(env, evidence.InventoryRow{Stage: string(stage.ASR), Profile: filepath.Base(manifestPath), Manifest: manifestPath, Kind: evidence.KindFull, Counted: true})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A family declaring a 3 s maximum: the four longer pinned clips are not sent (not in AIPerf's
// rows, so neither served nor run natively), each is recorded with the limit and its source, and
// the report lists them under the stage's row table.
func TestClipsBeyondTheFamilysLimitAreNotSent(t *testing.T) {
	c := limitsCheckpoint(t, filepath.Join(moduleRoot(), "harness", "checkpoint", "testdata", "clip-limits", "manifests", "sphinx-en-us-3s.json"))
	kept, err := c.loadInputs()
	if err != nil {
		t.Fatal(err)
	}
	if c.Result.Dataset.Items != 6 || len(kept) != 2 || len(c.Result.Skipped) != 4 {
		t.Fatalf("dataset items %d, kept %d, skipped %d; want 6 = 2 sent + 4 skipped: %+v", c.Result.Dataset.Items, len(kept), len(c.Result.Skipped), c.Result.Skipped)
	}
	if c.Result.Limits == nil || c.Result.Limits.MaxClipSeconds != 3 || c.Result.Limits.SampleRate != 16000 {
		t.Fatalf("recorded limits %+v, want 3 s and 16000 Hz", c.Result.Limits)
	}
	skipped := map[string]bool{}
	for _, s := range c.Result.Skipped {
		skipped[s.Clip] = true
		if s.Seconds <= 3 || !strings.Contains(s.Reason, "exceeds family sphinx_short's maximum clip duration 3 s (max_seconds in sphinx-en-us-3s build)") {
			t.Errorf("skipped %+v: want a clip over 3 s with the limit and its source", s)
		}
	}
	for _, in := range kept {
		if in.Seconds > 3 || skipped[in.ID] {
			t.Errorf("sent clip %s of %.2f s", in.ID, in.Seconds)
		}
	}
	load, err := c.W.AIPerf(kept, manifest.Manifest{}, manifest.Testcase{})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range load.Rows {
		if skipped[row["session_id"].(string)] {
			t.Errorf("AIPerf row %v sends a skipped clip", row)
		}
	}
	if len(load.Rows) != 2 {
		t.Errorf("AIPerf gets %d rows, want the 2 admitted clips", len(load.Rows))
	}
	e := evidence.Evidence{Stages: []evidence.Stage{{Stage: "asr", Number: 3, Results: []evidence.Result{c.Result}}}}
	page := report.HTML(e, nil)
	if want := "<li>sphinx-en-us-3s: clip <code>"; strings.Count(string(page), want) != 4 || !strings.Contains(string(page), "Inputs not sent (4)") {
		t.Errorf("report.html lacks the row's 4 skipped clips (%q)", want)
	}
	md := report.Markdown(e, nil)
	for _, want := range []string{"Inputs not sent (4)", "- sphinx-en-us-3s: clip `sense_and_sensibility_01_austen_64kb-0870` (7.10 s, 16000 Hz): clip of 7.10 s exceeds family sphinx_short's maximum clip duration 3 s"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

// A family whose limits admit none of the pinned clips: the row fails with the reason, every clip
// listed as skipped — it never qualifies on zero inputs.
func TestARowWithEveryClipSkippedFails(t *testing.T) {
	for name, want := range map[string]string{
		"sphinx-en-us-1s.json": "maximum clip duration 1 s (max_audio_seconds in sphinx-en-us-1s build)",
		"sphinx-en-us-8k.json": "clip sample rate 16000 Hz is not the declared 8000 Hz (sample_rate in sphinx-en-us-8k build)",
	} {
		c := limitsCheckpoint(t, filepath.Join(moduleRoot(), "harness", "checkpoint", "testdata", "clip-limits", "manifests", name))
		kept, err := c.loadInputs()
		if err == nil || len(kept) != 0 || !strings.Contains(err.Error(), "all 6 pinned clips") || !strings.Contains(err.Error(), "never qualifies on zero inputs") {
			t.Errorf("%s: kept %d, error %v; want an error saying no clip can be sent", name, len(kept), err)
		}
		if len(c.Result.Skipped) != 6 || !strings.Contains(c.Result.Skipped[0].Reason, want) {
			t.Errorf("%s: skipped %+v, want all 6 with %q", name, c.Result.Skipped, want)
		}
	}
}

// Every reference ASR profile, and the contract double's sphinx-en-us (its testcase's own
// test_input_audio clip, read in the double's tree as a TRTMC checkout), sends every pinned clip:
// nothing the reference families or TRTMC's double declare excludes one.
func TestEveryReferenceASRProfileSendsItsWholeDataset(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(moduleRoot(), "native", "families", "*", "manifests", "*.json"))
	double := filepath.Join(moduleRoot(), "suites", "targets", "testdata", "trtmc-double")
	paths = append(paths, filepath.Join(double, "families", "sphinx", "tests", "manifests", "sphinx-en-us.json"))
	n := 0
	for _, p := range paths {
		m, err := manifest.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		if m.TaskString() != "transcription" {
			continue
		}
		n++
		c := limitsCheckpoint(t, p)
		if strings.HasPrefix(p, double) {
			c.Env.Target = &target.Target{Path: filepath.Join(moduleRoot(), "suites", "targets", "trtmc.yaml"), Kind: "trtmc", Root: double}
		}
		kept, err := c.loadInputs()
		if err != nil || len(kept) != c.Result.Dataset.Items || len(c.Result.Skipped) != 0 || len(kept) == 0 {
			t.Errorf("%s: %d of %d sent, skipped %+v (%v)", p, len(kept), c.Result.Dataset.Items, c.Result.Skipped, err)
		}
	}
	if n < 5 {
		t.Errorf("only %d transcription manifests checked", n)
	}
}

// The reference families declare 30 s and their profiles' own rates: every pinned clip is sent,
// and the limits are recorded (sphinx-tidigits takes its 8 kHz clips by its own sample_rate,
// although the family's profiles differ).
func TestReferenceFamiliesSendEveryPinnedClip(t *testing.T) {
	for profile, rate := range map[string]int{"sphinx-en-us": 16000, "sphinx-tidigits": 8000} {
		c := limitsCheckpoint(t, filepath.Join(moduleRoot(), "native", "families", "sphinx", "manifests", profile+".json"))
		kept, err := c.loadInputs()
		if err != nil {
			t.Fatal(err)
		}
		if len(kept) != c.Result.Dataset.Items || len(c.Result.Skipped) != 0 {
			t.Errorf("%s: %d of %d sent, skipped %+v", profile, len(kept), c.Result.Dataset.Items, c.Result.Skipped)
		}
		if l := c.Result.Limits; l == nil || l.MaxClipSeconds != 30 || l.SampleRate != rate || !strings.Contains(l.SampleRateSource, profile) {
			t.Errorf("%s: limits %+v, want 30 s and its own %d Hz", profile, l, rate)
		}
	}
}
