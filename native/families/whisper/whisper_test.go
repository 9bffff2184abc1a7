package whisper

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/trtmc-qual/trtmc-qual/native/audio"
	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/family"
	"github.com/trtmc-qual/trtmc-qual/native/family/asrgate"
	"github.com/trtmc-qual/trtmc-qual/native/family/familytest"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

var profiles = []string{"whisper-tiny-en", "whisper-tiny-en-int8"}

func load(t testing.TB, b *bundle.Bundle, lanes int) (*model, task.Transcriber) {
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
	return m.(*model), tr
}

func clipsOf(t testing.TB, m manifest.Manifest) ([]dataset.Materialized, []task.Audio) {
	t.Helper()
	return familytest.Clips(t, m)
}

func upstreamTexts(t testing.TB, m manifest.Manifest) []string {
	t.Helper()
	upstream, err := asrgate.ReadUpstream(filepath.Join(familytest.RepoRoot(), m.Testcases[0].Expected))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(upstream.Transcripts))
	for i, r := range upstream.Transcripts {
		out[i] = r.Text
	}
	return out
}

func TestFramesRoundTripAndRefuseOversizedOrTruncated(t *testing.T) {
	var buf bytes.Buffer
	in := transcribeRequest{Op: "transcribe", ID: 7, SampleRate: 16000, PCM: pcmBase64([]float32{0, 0.5, -1})}
	if err := writeFrame(&buf, in); err != nil {
		t.Fatal(err)
	}
	var out transcribeRequest
	if err := readFrame(bytes.NewReader(buf.Bytes()), &out); err != nil || out != in {
		t.Fatalf("round trip: %+v, %v", out, err)
	}
	if err := readFrame(bytes.NewReader(buf.Bytes()[:buf.Len()-1]), &out); err == nil {
		t.Fatal("a truncated frame was accepted")
	}
	if err := readFrame(bytes.NewReader([]byte{0x7f, 0, 0, 0}), &out); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("an oversized frame: err = %v", err)
	}
}

// TestWorkerRefusesABadRequestAndStaysUp speaks the protocol to a real worker: a request it
// cannot serve gets an error frame, and the same worker then transcribes normally.
func TestWorkerRefusesABadRequestAndStaysUp(t *testing.T) {
	b, m := familytest.Build(t, Family{}, "whisper-tiny-en")
	mdl, _ := load(t, b, 1)
	_, clips := clipsOf(t, m)
	w := mdl.slots[0].w
	w.nextID++
	if err := writeFrame(w.in, map[string]any{"op": "transcribe", "id": w.nextID, "sample_rate": 8000, "pcm_f32le": ""}); err != nil {
		t.Fatal(err)
	}
	var rep reply
	if err := readFrame(w.out, &rep); err != nil || rep.OK || rep.ID != w.nextID || !strings.Contains(rep.Error, "sample_rate") {
		t.Fatalf("bad request: reply %+v, err %v", rep, err)
	}
	text, inWorker, err := w.transcribe("whisper-tiny-en", clips[4].Samples)
	if err != nil || text != upstreamTexts(t, m)[4] || inWorker <= 0 {
		t.Fatalf("after the refusal: %q, %v", text, err)
	}
}

// TestGatePassesOnEveryProfileAndFailsOnAWrongUpstreamTranscript: native == faster-whisper's own
// transcribe() on every clip, and one changed upstream word fails exactly that clip.
func TestGatePassesOnEveryProfileAndFailsOnAWrongUpstreamTranscript(t *testing.T) {
	results := map[string]family.GateResult{}
	for _, profile := range profiles {
		t.Run(profile, func(t *testing.T) {
			forced := profile == "whisper-tiny-en-int8"
			if forced {
				forceOtherKernels(t)
			}
			b, m := familytest.Build(t, Family{}, profile)
			res, err := Family{}.Gate(context.Background(), b, m, m.Testcases[0], family.GateEnv{Root: familytest.RepoRoot(), WorkDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Passed || res.Figures["ned_max"] != 0 || res.Figures["clips"] != 9 || res.BundleSHA != b.SHA256 || res.Settings["ctranslate2.isa"] != "GENERIC" {
				t.Fatalf("gate: passed=%v figures=%v failures=%v settings=%v", res.Passed, res.Figures, res.Failures, res.Settings)
			}
			if forced {
				checkPinnedKernelsHeld(t, res)
			}
			for _, it := range res.Items {
				t.Logf("%s %s: %s", profile, it.ID, it.Detail)
			}
			t.Logf("%s: %v", profile, res.Figures)
			results[profile] = res
		})
	}
	// The wrong upstream text is judged against the whisper-tiny-en run's own native transcripts
	// (each item's output): the gate's decision is judge's, and running the Task a second time on
	// the same bundle and clips would only give the same transcripts again.
	passed, ok := results["whisper-tiny-en"]
	if !ok {
		t.Fatal("no passing whisper-tiny-en gate to judge a wrong upstream transcript against")
	}
	m, err := manifest.Read(filepath.Join(familytest.RepoRoot(), "native", "families", Name, "manifests", "whisper-tiny-en.json"))
	if err != nil {
		t.Fatal(err)
	}
	in, err := asrgate.Read(m, m.Testcases[0], family.GateEnv{Root: familytest.RepoRoot(), WorkDir: t.TempDir()}, "ned", "gold_wer", "gold_wer_normalized")
	if err != nil {
		t.Fatal(err)
	}
	var native []string
	for _, it := range passed.Items {
		native = append(native, it.Output)
	}
	in.Upstream[1] = strings.Replace(in.Upstream[1], "young", "old", 1)
	base := family.GateResult{Family: Name, Profile: m.Name, Testcase: m.Testcases[0].Name, BundleSHA: passed.BundleSHA, Figures: map[string]float64{}}
	res, err := Family{}.judge(base, in, native, passed.Figures["audio_seconds"], passed.Settings, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if res.Passed || len(res.Failures) != 1 || res.Items[1].Passed {
		t.Fatalf("gate with a wrong upstream transcript: passed=%v failures=%v", res.Passed, res.Failures)
	}
}

// forceOtherKernels makes this test process ask CTranslate2 for other kernels than the pinned
// ones (oneDNN instead of MKL, the AVX instruction set, numpy's best loops: on an AVX-512 Intel
// CPU the first two gave "…old-sposed." where today's pinned upstream transcript says
// "…ill-disposed.", and numpy's AVX2 loops "go forward" for "Go forward" on an AMD EPYC). The int8 gate
// runs under it, once: a whisper process's environment is the caller's with the bundle's pins
// appended last (processEnv), and os/exec keeps the last value of a key, so the worker runs
// with the same environment whether the caller forces kernels or not; the one run is the
// int8 gate in an ordinary environment and the gate under forced kernels alike.
func forceOtherKernels(t *testing.T) {
	t.Setenv("CT2_USE_MKL", "0")
	t.Setenv("CT2_FORCE_CPU_ISA", "AVX")
	t.Setenv("ONEDNN_MAX_CPU_ISA", "ALL")
	t.Setenv("NPY_DISABLE_CPU_FEATURES", "")
}

// checkPinnedKernelsHeld: under forced kernels the worker still ran the bundle's pinned
// kernels, reports them in the gate's settings, and matched the upstream transcripts made with
// the same pins (the gate passed).
func checkPinnedKernelsHeld(t *testing.T, res family.GateResult) {
	t.Helper()
	want := map[string]string{"env.CT2_FORCE_CPU_ISA": "GENERIC", "env.CT2_USE_MKL": "0", "env.ONEDNN_MAX_CPU_ISA": "SSE41",
		"env.NPY_DISABLE_CPU_FEATURES": "X86_V3,X86_V4,AVX512_ICL,AVX512_SPR", "numpy.dispatch": "none",
		"ctranslate2.isa": "GENERIC", "ctranslate2.mkl": "false", "ctranslate2.gemm_s8_backend": "DNNL"}
	for k, v := range want {
		if res.Settings[k] != v {
			t.Errorf("gate settings %s = %q, want %q (all: %v)", k, res.Settings[k], v, res.Settings)
		}
	}
	if res.Settings["ctranslate2.cpu"] == "" {
		t.Errorf("gate settings carry no CPU line: %v", res.Settings)
	}
}

func TestCheckKernelsRefusesOtherKernelsThanPinned(t *testing.T) {
	s := Settings{KernelEnv: pinnedKernelEnv()}
	if err := checkKernels(map[string]string{"isa": "GENERIC", "mkl": "false", "numpy_dispatch": "none"}, s); err != nil {
		t.Fatalf("the pinned selection was refused: %v", err)
	}
	for _, got := range []map[string]string{{"isa": "AVX2", "mkl": "false", "numpy_dispatch": "none"}, {"isa": "GENERIC", "mkl": "true", "numpy_dispatch": "none"},
		{"isa": "GENERIC", "mkl": "false", "numpy_dispatch": "X86_V3"}, {"isa": "GENERIC", "mkl": "false"}, {}} {
		if err := checkKernels(got, s); err == nil {
			t.Errorf("CTranslate2 reporting %v was accepted under pins %v", got, s.KernelEnv)
		}
	}
}

// TestUpstreamTranscriptsReproduce reruns faster-whisper's transcribe() standalone on the
// bundle's own model files: the committed upstream transcripts are what upstream says.
func TestUpstreamTranscriptsReproduce(t *testing.T) {
	for _, profile := range profiles {
		t.Run(profile, func(t *testing.T) {
			b, m := familytest.Build(t, Family{}, profile)
			clips, _ := clipsOf(t, m)
			got, err := TranscribeUpstream(family.Host{}, b, clips, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			want, err := asrgate.ReadUpstream(filepath.Join(familytest.RepoRoot(), m.Testcases[0].Expected))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Transcripts, want.Transcripts) || got.Command != want.Command || !bytes.Equal(got.Settings, compact(t, want.Settings)) {
				t.Fatalf("regenerated upstream transcripts differ:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

func compact(t testing.TB, raw json.RawMessage) []byte {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestWorkerKilledMidRequestIsRestarted kills the worker while it transcribes a long clip: that
// call fails with a WorkerCrashError, the crash is counted, a new worker (new pid) serves the
// next call with the same transcript as before.
func TestWorkerKilledMidRequestIsRestarted(t *testing.T) {
	b, m := familytest.Build(t, Family{}, "whisper-tiny-en")
	mdl, tr := load(t, b, 1)
	_, clips := clipsOf(t, m)
	long := task.Audio{SampleRate: 16000, Channels: 1}
	for len(long.Samples) < 28*16000 {
		for _, c := range clips[:5] {
			long.Samples = append(long.Samples, c.Samples...)
		}
	}
	long.Samples = long.Samples[:28*16000]
	pid := mdl.WorkerPIDs()[0]
	done := make(chan error, 1)
	go func() {
		_, err := tr.Transcribe(context.Background(), long, task.TranscribeConfig{})
		done <- err
	}()
	time.Sleep(300 * time.Millisecond) // the request is in the worker: a 28 s clip takes seconds
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := <-done
	var crash *WorkerCrashError
	if !errors.As(err, &crash) || crash.PID != pid || !strings.Contains(err.Error(), "restarted") {
		t.Fatalf("killed mid-request: err = %v, want a WorkerCrashError naming pid %d", err, pid)
	}
	out, err := tr.Transcribe(context.Background(), clips[4], task.TranscribeConfig{})
	if err != nil || out.Text != upstreamTexts(t, m)[4] {
		t.Fatalf("next request after the crash: %q, %v", out.Text, err)
	}
	if mdl.Crashes() != 1 || mdl.WorkerPIDs()[0] == pid {
		t.Fatalf("crashes %d, pids %v (killed %d)", mdl.Crashes(), mdl.WorkerPIDs(), pid)
	}
}

func TestConcurrentLanesMatchUpstream(t *testing.T) {
	b, m := familytest.Build(t, Family{}, "whisper-tiny-en")
	_, tr := load(t, b, 2)
	_, clips := clipsOf(t, m)
	want := upstreamTexts(t, m)
	var wg sync.WaitGroup
	errs := make(chan string, 4*len(clips))
	for g := range 3 {
		wg.Go(func() {
			for k := range clips {
				i := (k + g) % len(clips)
				out, err := tr.Transcribe(context.Background(), clips[i], task.TranscribeConfig{})
				if err != nil || out.Text != want[i] {
					errs <- out.Text + " != " + want[i]
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

func TestBadInputIsRefusedWithItsCode(t *testing.T) {
	b, _ := familytest.Build(t, Family{}, "whisper-tiny-en")
	_, tr := load(t, b, 1)
	cases := map[string]struct {
		a    task.Audio
		lang string
	}{
		"audio_too_long":          {task.Audio{Samples: make([]float32, 30*16000+1), Channels: 1, SampleRate: 16000}, ""},
		"unsupported_sample_rate": {task.Audio{Samples: make([]float32, 8000), Channels: 1, SampleRate: 8000}, ""},
		"unsupported_channels":    {task.Audio{Samples: make([]float32, 32000), Channels: 2, SampleRate: 16000}, ""},
		"empty_audio":             {task.Audio{Channels: 1, SampleRate: 16000}, ""},
		"unsupported_language":    {task.Audio{Samples: make([]float32, 16000), Channels: 1, SampleRate: 16000}, "de"},
	}
	for code, c := range cases {
		_, err := tr.Transcribe(context.Background(), c.a, task.TranscribeConfig{Language: c.lang})
		if got := audio.CodeOf(err); got != code {
			t.Errorf("%s: code %q (err %v)", code, got, err)
		}
	}
	if spec := tr.AudioSpec(); spec.MaxSeconds != 30 {
		t.Errorf("max seconds %v, want Whisper's 30 s window", spec.MaxSeconds)
	}
}

// TestLoadFailsClearly: an interpreter without faster-whisper, and a bundle whose pinned
// model hash does not match its model file, both fail at load with the reason.
func TestLoadFailsClearly(t *testing.T) {
	b, _ := familytest.Build(t, Family{}, "whisper-tiny-en")
	t.Run("missing package", func(t *testing.T) {
		_, err := Family{}.Load(b, family.LoadOptions{Lanes: 1, Host: family.Host{Python: "/usr/bin/python3"}})
		var start *WorkerStartError
		if !errors.As(err, &start) || !strings.Contains(err.Error(), "ModuleNotFoundError") {
			t.Fatalf("load without faster-whisper: err = %v", err)
		}
	})
	t.Run("wrong hash", func(t *testing.T) {
		h := b.Header
		h.Settings = map[string]any{}
		for k, v := range b.Header.Settings {
			h.Settings[k] = v
		}
		pins := map[string]any{}
		for k, v := range b.Header.Settings["model_sha256"].(map[string]any) {
			pins[k] = v
		}
		pins["model.bin"] = strings.Repeat("0", 64)
		h.Settings["model_sha256"] = pins
		sections := map[string][]byte{}
		for name := range b.Header.Sections {
			data, err := b.Section(name)
			if err != nil {
				t.Fatal(err)
			}
			sections[name] = data
		}
		path := filepath.Join(t.TempDir(), "bad.bundle")
		if err := bundle.WriteFile(path, h, sections); err != nil {
			t.Fatal(err)
		}
		bad, err := bundle.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := (Family{}).Load(bad, family.LoadOptions{Lanes: 1}); err == nil || !strings.Contains(err.Error(), "pinned "+strings.Repeat("0", 64)) {
			t.Fatalf("load with a wrong pin: err = %v", err)
		}
	})
}

// TestBuildRefusesAWrongPin: a pins file that disagrees with the installed model file, or a
// weights version other than the installed one, refuses the build.
func TestBuildRefusesAWrongPin(t *testing.T) {
	m, err := manifest.Read(filepath.Join(familytest.RepoRoot(), "native", "families", Name, "manifests", "whisper-tiny-en.json"))
	if err != nil {
		t.Fatal(err)
	}
	famDir := t.TempDir()
	os.MkdirAll(filepath.Join(famDir, "manifests"), 0o755)
	os.MkdirAll(filepath.Join(famDir, "pins"), 0o755)
	pins, err := os.ReadFile(filepath.Join(familytest.RepoRoot(), "native", "families", Name, m.String("model_pins")))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(famDir, m.String("model_pins")), []byte("0"+string(pins[1:])), 0o644)
	m.Path = filepath.Join(famDir, "manifests", "whisper-tiny-en.json")
	if _, _, err := (Family{}).Build(m); err == nil || !strings.Contains(err.Error(), "refusing to build") {
		t.Fatalf("build with a wrong pin: err = %v", err)
	}
	m, _ = manifest.Read(filepath.Join(familytest.RepoRoot(), "native", "families", Name, "manifests", "whisper-tiny-en.json"))
	m.SourceVersion = "0.0.9"
	if _, _, err := (Family{}).Build(m); err == nil || !strings.Contains(err.Error(), "0.0.9") {
		t.Fatalf("build with another weights version: err = %v", err)
	}
}

// TestEnglishNormalizerOnTheGoldSet: the normalized figure folds exactly what Whisper's
// EnglishTextNormalizer folds: on the gold set, "Mr."/"mister", "10"/"ten" and hyphenation.
func TestEnglishNormalizerOnTheGoldSet(t *testing.T) {
	got, version, err := NormalizeEnglish(family.Host{}, []string{"And Mr. John Dashwood", "and mister john dashwood", "Go forward 10 meters.", "go forward ten meters", "cold-hearted", "cold hearted"}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if version != "0.1.15" || got[0] != got[1] || got[2] != got[3] || got[4] != got[5] {
		t.Fatalf("whisper-normalizer %s: %q", version, got)
	}
}
