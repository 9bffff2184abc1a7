package sphinxqa

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/native/audio"
	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/families/sphinx"
	"github.com/trtmc-qual/trtmc-qual/native/families/sphinxqa/reader"
	"github.com/trtmc-qual/trtmc-qual/native/family"
	"github.com/trtmc-qual/trtmc-qual/native/family/asrgate"
	"github.com/trtmc-qual/trtmc-qual/native/family/familytest"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

var profiles = []string{"sphinxqa-en-us", "sphinxqa-an4-l0"}

func load(t *testing.T, b *bundle.Bundle) (task.Model, task.AudioAnswerer) {
	t.Helper()
	m, err := Family{}.Load(b, family.LoadOptions{Lanes: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	qa, err := task.Lookup[task.AudioAnswerer](m, b.Header.Profile, task.AudioTextToText)
	if err != nil {
		t.Fatal(err)
	}
	return m, qa
}

func gate(t *testing.T, b *bundle.Bundle, m manifest.Manifest, root string) family.GateResult {
	t.Helper()
	res, err := Family{}.Gate(context.Background(), b, m, m.Testcases[0], family.GateEnv{Root: root, WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestGatePassesOnEveryProfile(t *testing.T) {
	for _, profile := range profiles {
		t.Run(profile, func(t *testing.T) {
			b, m := familytest.Build(t, Family{}, profile)
			res := gate(t, b, m, familytest.RepoRoot())
			if !res.Passed || res.Figures["upstream_mismatches"] != 0 || res.BundleSHA != b.SHA256 || len(res.Items) == 0 {
				t.Fatalf("gate: passed=%v figures=%v failures=%v", res.Passed, res.Figures, res.Failures)
			}
			for _, it := range res.Items {
				if it.Output != it.Expected {
					t.Errorf("%s: native %q, upstream %q", it.ID, it.Output, it.Expected)
				}
			}
			figs, _ := json.Marshal(res.Figures)
			t.Logf("%s: %s", profile, figs)
		})
	}
}

// TestGateFailsWhenTheUpstreamTranscriptDiffers changes one upstream transcript: every pair
// about that clip whose answer changes must fail the equality check.
func TestGateFailsWhenTheUpstreamTranscriptDiffers(t *testing.T) {
	b, m := familytest.Build(t, Family{}, "sphinxqa-an4-l0")
	root := t.TempDir()
	if err := os.CopyFS(filepath.Join(root, "golden"), os.DirFS(filepath.Join(familytest.RepoRoot(), "golden"))); err != nil {
		t.Fatal(err)
	}
	expectedPath := filepath.Join(root, m.Testcases[0].Expected)
	upstream, err := asrgate.ReadUpstream(expectedPath)
	if err != nil {
		t.Fatal(err)
	}
	upstream.Transcripts[3].Text += " seven" // cards-004: "five five" → "five five seven"
	data, _ := json.Marshal(upstream)
	if err := os.WriteFile(expectedPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	res := gate(t, b, m, root)
	var failed []string
	for _, it := range res.Items {
		if !it.Passed {
			failed = append(failed, it.ID)
		}
	}
	want := []string{"cards-004-word_count", "cards-004-last_word", "cards-004-digit_count"}
	if res.Passed || !reflect.DeepEqual(failed, want) || res.Figures["upstream_mismatches"] != float64(len(want)) {
		t.Fatalf("gate with a changed upstream transcript: passed=%v failed=%v figures=%v", res.Passed, failed, res.Figures)
	}
}

// TestUpstreamTranscriptsApplyToThisBundle regenerates the stage 3 upstream transcripts with
// pocketsphinx_batch on the sphinxqa bundle's own model files: the pinned upstream transcripts the gate
// reads is what the upstream tool says for exactly these files, clip by clip (the stage-3
// upstream transcripts cover more clips than the QA pairs use: every QA clip must be in it, unchanged).
func TestUpstreamTranscriptsApplyToThisBundle(t *testing.T) {
	for _, profile := range profiles {
		t.Run(profile, func(t *testing.T) {
			b, m := familytest.Build(t, Family{}, profile)
			pairs, err := reader.ReadPairs(filepath.Join(familytest.RepoRoot(), m.Testcases[0].Dataset))
			if err != nil {
				t.Fatal(err)
			}
			set, err := dataset.ReadASR(filepath.Join(familytest.RepoRoot(), pairs[0].Dataset))
			if err != nil {
				t.Fatal(err)
			}
			clips, err := set.Materialize(familytest.RepoRoot(), t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			got, err := sphinx.TranscribeUpstream(b, clips, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			want, err := asrgate.ReadUpstream(filepath.Join(familytest.RepoRoot(), m.Testcases[0].Expected))
			if err != nil {
				t.Fatal(err)
			}
			pinned := map[string]string{}
			for _, tr := range want.Transcripts {
				pinned[tr.ID] = tr.Text
			}
			for _, tr := range got.Transcripts {
				if text, ok := pinned[tr.ID]; !ok || text != tr.Text {
					t.Errorf("clip %s: upstream on the sphinxqa bundle says %q, the stage 3 upstream transcript %q (present %v)", tr.ID, tr.Text, text, ok)
				}
			}
			if len(got.Transcripts) != len(clips) || got.Command != want.Command {
				t.Fatalf("upstream ran on %d of %d clips, command %q vs the stage 3 file's %q", len(got.Transcripts), len(clips), got.Command, want.Command)
			}
		})
	}
}

func TestOnlyAudioTextToTextIsOffered(t *testing.T) {
	b, _ := familytest.Build(t, Family{}, "sphinxqa-an4-l0")
	m, _ := load(t, b)
	if got := task.Names(m.Tasks()); !reflect.DeepEqual(got, []task.Name{task.AudioTextToText}) {
		t.Fatalf("tasks %v", got)
	}
	for _, n := range []task.Name{task.SpeechTranscription, task.TextGeneration, task.TextToImage} {
		var unsup *task.UnsupportedCapabilityError
		if _, err := m.Task(n); !errors.As(err, &unsup) || unsup.Task != n {
			t.Errorf("%s: err %v, want UnsupportedCapabilityError", n, err)
		}
	}
	if b.Header.Settings["statement"] != Statement || !strings.Contains(Statement, "cascade reference: PocketSphinx + templated reader") {
		t.Errorf("bundle statement %v", b.Header.Settings["statement"])
	}
}

func TestBuildRefusesAManifestWithoutTheStatement(t *testing.T) {
	m, err := manifest.Read(filepath.Join(familytest.RepoRoot(), "native", "families", Name, "manifests", "sphinxqa-an4-l0.json"))
	if err != nil {
		t.Fatal(err)
	}
	m.Build["statement"] = "an audio-language model"
	if _, _, err := (Family{}).Build(m); err == nil || !strings.Contains(err.Error(), "statement") {
		t.Fatalf("build without the cascade statement: err %v", err)
	}
}

// TestRefusalsAndBadAudio: undeclared and empty questions are refused with their codes, and
// bad audio with the recognizer's codes; a refused question is never answered.
func TestRefusalsAndBadAudio(t *testing.T) {
	b, _ := familytest.Build(t, Family{}, "sphinxqa-an4-l0")
	_, qa := load(t, b)
	clip, err := os.ReadFile("/usr/share/pocketsphinx/test/data/cards/004.wav")
	if err != nil {
		t.Fatalf("pocketsphinx-testdata missing (run `make deps`): %v", err)
	}
	a, err := audio.DecodeWAV(clip)
	if err != nil {
		t.Fatal(err)
	}
	freeForm, err := os.ReadFile(filepath.Join(familytest.RepoRoot(), "golden", "audioqa", "pairs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var first struct{ Question string }
	json.Unmarshal([]byte(strings.SplitN(string(freeForm), "\n", 2)[0]), &first)
	cases := []struct {
		name     string
		audio    task.Audio
		question string
		code     string
	}{
		{"free-form probe question", a, first.Question, reader.CodeUnsupportedQuestion},
		{"empty question", a, "  ", reader.CodeEmptyQuestion},
		{"wrong rate", decode(t, audio.EncodePCM16(make([]int16, 8000), 1, 8000)), "How many words are spoken?", "unsupported_sample_rate"},
		{"too long", decode(t, audio.EncodePCM16(make([]int16, 31*16000), 1, 16000)), "How many words are spoken?", "audio_too_long"},
	}
	for _, c := range cases {
		ans, err := qa.Answer(context.Background(), task.AudioQuestion{Audio: c.audio, Question: c.question})
		if audio.CodeOf(err) != c.code || ans != "" {
			t.Errorf("%s: answer %q err %v, want code %s and no answer", c.name, ans, err, c.code)
		}
	}
	ans, err := qa.Answer(context.Background(), task.AudioQuestion{Audio: a, Question: "Which digits are spoken?"})
	if err != nil || ans != "5 5" {
		t.Errorf("digits of cards-004: %q %v, want \"5 5\"", ans, err)
	}
}

func decode(t *testing.T, wav []byte) task.Audio {
	t.Helper()
	a, err := audio.DecodeWAV(wav)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
