package sphinx

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/native/audio"
	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/family"
	"github.com/trtmc-qual/trtmc-qual/native/family/asrgate"
	"github.com/trtmc-qual/trtmc-qual/native/family/familytest"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// repoRoot is the checkout root.
func repoRoot(testing.TB) string { return familytest.RepoRoot() }

// buildProfile builds one manifest's bundle into a temp dir.
func buildProfile(t testing.TB, name string) (*bundle.Bundle, manifest.Manifest) {
	t.Helper()
	return familytest.Build(t, Family{}, name)
}

func loadTranscriber(t testing.TB, b *bundle.Bundle, lanes int) (task.Model, task.Transcriber) {
	t.Helper()
	m, err := Family{}.Load(b, family.LoadOptions{Lanes: lanes})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	tr, err := task.Lookup[task.Transcriber](m, b.Header.Profile, task.SpeechTranscription)
	if err != nil {
		t.Fatal(err)
	}
	return m, tr
}

func clipsOf(t testing.TB, m manifest.Manifest) []task.Audio {
	t.Helper()
	_, clips := familytest.Clips(t, m)
	return clips
}

func transcribe(t testing.TB, tr task.Transcriber, a task.Audio) string {
	t.Helper()
	out, err := tr.Transcribe(context.Background(), a, task.TranscribeConfig{})
	if err != nil {
		t.Fatal(err)
	}
	return out.Text
}

// TestTranscriptsIndependentOfHistory decodes each clip on a fresh decoder, then all clips in
// forward and reverse order on one decoder: every transcript must be the same each time.
func TestTranscriptsIndependentOfHistory(t *testing.T) {
	for _, profile := range []string{"sphinx-en-us", "sphinx-en-us-fast", "sphinx-tidigits", "sphinx-an4-l0"} {
		t.Run(profile, func(t *testing.T) {
			b, m := buildProfile(t, profile)
			clips := clipsOf(t, m)
			fresh := make([]string, len(clips))
			for i, c := range clips {
				_, tr := loadTranscriber(t, b, 1)
				fresh[i] = transcribe(t, tr, c)
			}
			_, tr := loadTranscriber(t, b, 1)
			for i, c := range clips {
				if got := transcribe(t, tr, c); got != fresh[i] {
					t.Errorf("clip %d forward: %q, fresh decoder %q", i, got, fresh[i])
				}
			}
			for i := len(clips) - 1; i >= 0; i-- {
				if got := transcribe(t, tr, clips[i]); got != fresh[i] {
					t.Errorf("clip %d reverse: %q, fresh decoder %q", i, got, fresh[i])
				}
			}
		})
	}
}

func TestCapabilityDispatchRefusesOtherTasks(t *testing.T) {
	b, _ := buildProfile(t, "sphinx-tidigits")
	m, _ := loadTranscriber(t, b, 1) // declares a streaming bundle mode, implements whole-clip transcription
	if got := task.Names(m.Tasks()); len(got) != 1 || got[0] != task.SpeechTranscription {
		t.Fatalf("tasks = %v, want [speech_transcription]", got)
	}
	for _, name := range []task.Name{task.TextToImage, task.AudioTextToText} {
		_, err := task.Lookup[task.ImageGenerator](m, "sphinx-tidigits", name)
		var unsupported *task.UnsupportedCapabilityError
		if !errors.As(err, &unsupported) || unsupported.Task != name || unsupported.Model != "sphinx-tidigits" {
			t.Errorf("asking for %s: err = %v, want UnsupportedCapabilityError naming model and task", name, err)
		}
	}
}

func TestConcurrentCallsMatchSequential(t *testing.T) {
	b, m := buildProfile(t, "sphinx-an4-l0")
	clips := clipsOf(t, m)
	_, seq := loadTranscriber(t, b, 1)
	want := make([]string, len(clips))
	for i, c := range clips {
		want[i] = transcribe(t, seq, c)
	}
	_, pooled := loadTranscriber(t, b, 2)
	var wg sync.WaitGroup
	errs := make(chan string, 8*len(clips))
	for g := range 8 {
		wg.Go(func() {
			for k := range clips {
				i := (k + g) % len(clips) // each goroutine starts at a different clip
				out, err := pooled.Transcribe(context.Background(), clips[i], task.TranscribeConfig{})
				if err != nil || out.Text != want[i] {
					errs <- fmt.Sprintf("goroutine %d clip %d: %q (err %v), sequential %q", g, i, out.Text, err, want[i])
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestProbeClipsAreRejectedWithTheirReason(t *testing.T) {
	b, _ := buildProfile(t, "sphinx-en-us")
	_, tr := loadTranscriber(t, b, 1)
	speech, err := os.ReadFile("/usr/share/pocketsphinx/test/data/goforward.raw")
	if err != nil {
		t.Fatalf("pocketsphinx-testdata missing (run `make deps`): %v", err)
	}
	pcm := make([]int16, len(speech)/2)
	for i := range pcm {
		pcm[i] = int16(uint16(speech[2*i]) | uint16(speech[2*i+1])<<8)
	}
	for _, p := range dataset.Probes(pcm) {
		t.Run(p.Name, func(t *testing.T) {
			a, err := audio.DecodeWAV(p.WAV)
			if err == nil {
				_, err = tr.Transcribe(context.Background(), a, task.TranscribeConfig{})
			}
			if got := audio.CodeOf(err); got != p.WantCode {
				t.Fatalf("code %q (err %v), want %q", got, err, p.WantCode)
			}
		})
	}
	a, _ := audio.DecodeWAV(audio.EncodePCM16(pcm, 1, 16000))
	if _, err := tr.Transcribe(context.Background(), a, task.TranscribeConfig{Language: "de"}); audio.CodeOf(err) != "unsupported_language" {
		t.Errorf("language de: err %v, want unsupported_language", err)
	}
}

func TestGatePassesOnEveryProfileAndFailsOnAWrongUpstreamTranscript(t *testing.T) {
	for _, profile := range []string{"sphinx-en-us", "sphinx-en-us-fast", "sphinx-tidigits", "sphinx-an4-l0"} {
		t.Run(profile, func(t *testing.T) {
			b, m := buildProfile(t, profile)
			res, err := Family{}.Gate(context.Background(), b, m, m.Testcases[0], family.GateEnv{Root: repoRoot(t), WorkDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Passed || res.Figures["ned_max"] != 0 || res.BundleSHA != b.SHA256 {
				t.Fatalf("gate: passed=%v figures=%v failures=%v", res.Passed, res.Figures, res.Failures)
			}
			t.Logf("%s: %v", profile, res.Figures)
		})
	}
	// The same gate with one upstream word changed must fail on that clip.
	b, m := buildProfile(t, "sphinx-an4-l0")
	upstream, err := asrgate.ReadUpstream(filepath.Join(repoRoot(t), m.Testcases[0].Expected))
	if err != nil {
		t.Fatal(err)
	}
	upstream.Transcripts[1].Text += " clubs"
	res := familytest.GateWithUpstream(t, Family{}, b, m, upstream)
	if res.Passed || len(res.Failures) != 1 || res.Items[1].Passed {
		t.Fatalf("gate with a wrong upstream transcript: passed=%v failures=%v", res.Passed, res.Failures)
	}
}

// TestUpstreamTranscriptsReproduceWithTheTool regenerates every committed upstream transcripts with
// pocketsphinx_batch on the bundle's own model files: the pins are what the upstream tool says.
func TestUpstreamTranscriptsReproduceWithTheTool(t *testing.T) {
	for _, profile := range []string{"sphinx-en-us", "sphinx-en-us-fast", "sphinx-tidigits", "sphinx-an4-l0"} {
		t.Run(profile, func(t *testing.T) {
			b, m := buildProfile(t, profile)
			set, err := dataset.ReadASR(filepath.Join(repoRoot(t), m.Testcases[0].Dataset))
			if err != nil {
				t.Fatal(err)
			}
			clips, err := set.Materialize(repoRoot(t), t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			got, err := TranscribeUpstream(b, clips, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			want, err := asrgate.ReadUpstream(filepath.Join(repoRoot(t), m.Testcases[0].Expected))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Transcripts, want.Transcripts) || got.Command != want.Command {
				t.Fatalf("regenerated upstream transcripts differ:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestBuildRefusesAnotherSourceVersion(t *testing.T) {
	m, err := manifest.Read(filepath.Join(repoRoot(t), "native", "families", "sphinx", "manifests", "sphinx-an4-l0.json"))
	if err != nil {
		t.Fatal(err)
	}
	m.SourceVersion = "0.0-not-installed"
	if _, _, err := (Family{}).Build(m); err == nil || !strings.Contains(err.Error(), "0.0-not-installed") {
		t.Fatalf("build with a foreign source version: err = %v", err)
	}
}

func TestFeatParamsOverride(t *testing.T) {
	in := []byte("-dither yes\n-lowerf 1\n")
	got := string(overrideFeatParams(in, map[string]any{"dither": "no", "seed": "7"}))
	if got != "-dither no\n-lowerf 1\n-seed 7\n" {
		t.Fatalf("override = %q", got)
	}
}
