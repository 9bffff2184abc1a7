package workload

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
)

// asrManifest writes a newer-layout TRTMC ASR manifest under root/families/whisper/tests/manifests
// (whisper-tiny-fp16.json's pattern: the testcase names its clip in test_input_audio, relative to
// families/whisper/tests) and the clip itself: a real recording of the repository.
func asrManifest(t *testing.T, root, testcases string) manifest.Manifest {
	t.Helper()
	tests := filepath.Join(root, "families", "whisper", "tests")
	os.MkdirAll(filepath.Join(tests, "manifests"), 0o755)
	os.MkdirAll(filepath.Join(tests, "data"), 0o755)
	wav, err := os.ReadFile(filepath.Join(repoRoot(), "golden", "asr", "sphinx-tidigits", "clips", "dhd.2934z.wav"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(tests, "data", "Recording.wav"), wav, 0o644)
	path := filepath.Join(tests, "manifests", "whisper-tiny-fp16.json")
	os.WriteFile(path, []byte(`{"name":"whisper-tiny-fp16","bundle":"whisper-tiny-fp16.bundle","family":"whisper","task":"transcription",
		"precision":"fp16","testcases":`+testcases+`}`), 0o644)
	m, err := manifest.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A test_input_audio testcase is exactly one clip, the checkout's WAV resolved as TRTMC's
// benchmark resolves it, with no gold text; the evidence names the testcase's field, with the
// WAV file's sha256, and says there is no gold transcript.
func TestTestInputAudioIsOneClip(t *testing.T) {
	root := t.TempDir()
	m := asrManifest(t, root, `[{"name":"whisper-tiny-fp16","max_new_tokens":120,"test_input_audio":"data/Recording.wav"}]`)
	tc := m.Testcases[0]
	wav := filepath.Join(root, "families", "whisper", "tests", "data", "Recording.wav")
	w, _ := Get("asr")
	dir := t.TempDir()
	inputs, err := w.Inputs(repoRoot(), m, tc, dir)
	if err != nil || len(inputs) != 1 {
		t.Fatalf("inputs %+v, %v", inputs, err)
	}
	stored := filepath.Join(dir, "inputs", "whisper-tiny-fp16.wav") // the run's copy, as dataset clips are
	if in := inputs[0]; in.ID != "whisper-tiny-fp16" || in.HostPath != stored || in.Gold != "" || in.SampleRate != 8000 || in.Seconds <= 0 || in.AudioSHA == "" {
		t.Errorf("input %+v", in)
	}
	if a, b := fileSum(t, stored), fileSum(t, wav); a != b {
		t.Errorf("stored copy sha256 %s, checkout's clip %s", a, b)
	}
	l, err := w.AIPerf(inputs, m, tc)
	if err != nil || len(l.Rows) != 1 || l.Media[inputs[0].ContainerPath] != stored {
		t.Errorf("load %+v, %v", l, err)
	}
	ds, err := DatasetOf(repoRoot(), root, m, tc)
	sum, _ := bundle.FileSHA256(wav)
	if err != nil || ds.Path != "families/whisper/tests/manifests/whisper-tiny-fp16.json#testcases/whisper-tiny-fp16/test_input_audio" || ds.SHA256 != sum || ds.Note != NoGold {
		t.Fatalf("dataset %+v, %v", ds, err)
	}
	if _, name, field, ok := InlineSource(ds.Path); !ok || name != "whisper-tiny-fp16" || field != "test_input_audio" {
		t.Errorf("InlineSource(%q) = %q %q %v", ds.Path, name, field, ok)
	}
}

// A test_input_audio leaving the family's test directory (.., absolute) is refused by the
// inputs and the evidence alike; a testcase with neither a dataset nor a clip keeps the clear
// error naming the manifest and the testcase.
func TestTestInputAudioEscapeIsRefused(t *testing.T) {
	root := t.TempDir()
	w, _ := Get("asr")
	for _, p := range []string{"../../../../golden/asr/sphinx-tidigits/clips/dhd.2934z.wav", "data/../../x.wav", filepath.Join(repoRoot(), "golden", "asr", "sphinx-tidigits", "clips", "dhd.2934z.wav")} {
		m := asrManifest(t, root, `[{"name":"c","test_input_audio":"`+filepath.ToSlash(p)+`"}]`)
		if in, err := w.Inputs(repoRoot(), m, m.Testcases[0], t.TempDir()); err == nil || !strings.Contains(err.Error(), "is not a path inside") {
			t.Errorf("%s: inputs %+v, %v", p, in, err)
		}
		if ds, err := DatasetOf(repoRoot(), root, m, m.Testcases[0]); err == nil || !strings.Contains(err.Error(), "is not a path inside") {
			t.Errorf("%s: dataset %+v, %v", p, ds, err)
		}
	}
	m := asrManifest(t, root, `[{"name":"c","max_new_tokens":120}]`)
	if _, err := DatasetOf(repoRoot(), root, m, m.Testcases[0]); err == nil || !strings.Contains(err.Error(), m.Path+` testcase "c": no dataset and no prompt, test_prompt or test_input_audio`) {
		t.Errorf("neither: %v", err)
	}
	if _, err := w.Inputs(repoRoot(), m, m.Testcases[0], t.TempDir()); err == nil || !strings.Contains(err.Error(), `testcase "c" names no dataset`) {
		t.Errorf("neither, inputs: %v", err)
	}
}

// Outputs without gold (a testcase's own clip) claim no gold WER: the rule says so, an empty
// transcript still fails.
func TestASRMeaningWithoutGold(t *testing.T) {
	w, _ := Get("asr")
	good := []evidence.Output{{RequestID: "r1", HTTPOutput: "he was not"}, {RequestID: "r2", HTTPOutput: "he was not"}}
	m, err := w.Meaning(manifest.Thresholds{}, good, nil) // no gold_wer bound needed: none is claimed
	if _, claimed := m.Checks["gold_wer"]; err != nil || claimed || len(m.Failures) != 0 || !strings.Contains(m.Rule, NoGold) {
		t.Fatalf("meaning %+v, %v", m, err)
	}
	bad := []evidence.Output{{RequestID: "r1", HTTPOutput: " "}}
	if m, err := w.Meaning(manifest.Thresholds{}, bad, nil); err != nil || len(m.Failures) != 1 || m.Checks["empty_transcripts"] != 1 {
		t.Errorf("empty transcript: %+v, %v", m, err)
	}
	// With gold, the gold WER is still required (its bound is missing here: an error).
	if _, err := w.Meaning(manifest.Thresholds{}, []evidence.Output{{HTTPOutput: "a", Gold: "a"}}, nil); err == nil {
		t.Error("gold outputs without a gold_wer bound are accepted")
	}
}

func fileSum(t *testing.T, path string) string {
	t.Helper()
	sum, err := bundle.FileSHA256(path)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// An ASR request's native values name its clip's decoded rate, which sizes a streaming twin's
// chunk for that clip (harness/target NativeArgs); a clip of unknown rate names none.
func TestASRNativeValuesNameTheClipsSampleRate(t *testing.T) {
	for _, c := range []struct {
		rate int
		want string
	}{{16000, "16000"}, {8000, "8000"}, {0, ""}} {
		got := clipNative(Input{ContainerPath: "/data/x.wav", SampleRate: c.rate})
		if got["input"] != "/data/x.wav" || got["sample_rate"] != c.want {
			t.Errorf("rate %d: %v", c.rate, got)
		}
		planned, err := asr{}.PlannedNative(Input{ContainerPath: "/data/x.wav", SampleRate: c.rate}, Load{})
		if err != nil || planned["sample_rate"] != c.want {
			t.Errorf("planned, rate %d: %v %v", c.rate, planned, err)
		}
	}
}
