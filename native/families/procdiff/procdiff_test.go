package procdiff

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/metrics"
	"github.com/trtmc-qual/trtmc-qual/native/audio"
	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/family"
	"github.com/trtmc-qual/trtmc-qual/native/family/familytest"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// -update rewrites golden/t2i/<profile>/*.png from the float64 implementation.
var update = flag.Bool("update", false, "rewrite the golden PNGs from the float64 implementation")

var profiles = []string{"procdiff-small", "procdiff-base", "procdiff-base-fp16", "procdiff-small-l0"}

func repoRoot() string { return familytest.RepoRoot() }

func loadProfile(t testing.TB, name string) (*bundle.Bundle, manifest.Manifest, *model) {
	t.Helper()
	b, m := familytest.Build(t, Family{}, name)
	mdl, err := Family{}.Load(b, family.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return b, m, mdl.(*model)
}

func pinnedRequests(t testing.TB, m manifest.Manifest, mdl *model) ([]dataset.Prompt, []task.ImageRequest) {
	t.Helper()
	prompts, err := dataset.ReadPrompts(filepath.Join(repoRoot(), "golden", "t2i", "prompts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	tc := m.Testcases[0]
	reqs := make([]task.ImageRequest, len(prompts))
	for i, p := range prompts {
		reqs[i] = task.FillImageDefaults(mdl.ImageSpec(), task.ImageRequest{Prompt: p.Prompt, NegativePrompt: p.NegativePrompt,
			Seed: p.Seed, Steps: settingInt(tc.Settings, "num_inference_steps"), Guidance: settingFloat(tc.Settings, "guidance_scale")})
	}
	return prompts, reqs
}

// TestGoldenImagesAreTheExpectedOutput regenerates every golden PNG with the float64 implementation
// and requires identical pixels (or rewrites them with -update).
func TestGoldenImagesAreTheExpectedOutput(t *testing.T) {
	for _, name := range profiles {
		t.Run(name, func(t *testing.T) {
			_, m, mdl := loadProfile(t, name)
			prompts, reqs := pinnedRequests(t, m, mdl)
			dir := filepath.Join(repoRoot(), m.Testcases[0].Expected)
			for i, p := range prompts {
				ref := float64Generate(mdl.gen.w, reqs[i], 0)
				path := filepath.Join(dir, p.ID+".png")
				checkGolden(t, path, ref, "Golden")
			}
		})
	}
}

func TestGatePassesForEveryProfile(t *testing.T) {
	for _, name := range profiles {
		t.Run(name, func(t *testing.T) {
			b, m, _ := loadProfile(t, name)
			res, err := Family{}.Gate(context.Background(), b, m, m.Testcases[0], family.GateEnv{Root: repoRoot(), WorkDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Passed || len(res.Items) < 8 {
				t.Fatalf("gate failed: %v", res.Failures)
			}
			t.Logf("%s: %v", name, res.Figures)
		})
	}
}

// TestGateCatchesASkippedStepOrIgnoredGuidance perturbs the native path and requires the
// expected-output comparison to fail: a check that could not catch these would prove nothing.
func TestGateCatchesASkippedStepOrIgnoredGuidance(t *testing.T) {
	_, m, mdl := loadProfile(t, "procdiff-small")
	prompts, reqs := pinnedRequests(t, m, mdl)
	th, err := manifest.ReadThresholds(manifest.ThresholdsPath(m, m.Testcases[0].Name))
	if err != nil {
		t.Fatal(err)
	}
	limits := th.Overrides
	refPath := filepath.Join(repoRoot(), m.Testcases[0].Expected, prompts[0].ID+".png")
	skipped := reqs[0]
	skipped.Steps-- // one denoising step fewer
	noGuidance := reqs[0]
	noGuidance.Guidance = 1 // conditional prediction only: guidance ignored
	for name, req := range map[string]task.ImageRequest{"skipped step": skipped, "ignored guidance": noGuidance} {
		item, psnr, ssim := checkImage(metrics.FromImage(mdl.gen.generate(req, 0)), refPath, limits)
		if item.Passed {
			t.Errorf("%s passed the gate (PSNR %v, SSIM %v)", name, psnr, ssim)
		}
	}
	item, _, _ := checkImage(metrics.FromImage(mdl.gen.generate(reqs[0], 0)), refPath, limits)
	if !item.Passed {
		t.Fatalf("the unperturbed image fails: %s", item.Detail)
	}
}

func TestDeterministicAcrossCallOrderAndConcurrency(t *testing.T) {
	_, m, mdl := loadProfile(t, "procdiff-small-l0")
	_, reqs := pinnedRequests(t, m, mdl)
	want := make([]string, len(reqs))
	for i, r := range reqs {
		imgs, err := mdl.GenerateImage(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = task.ImageSHA256(imgs[0])
	}
	var wg sync.WaitGroup
	errs := make(chan string, 16*len(reqs))
	for g := range 8 {
		wg.Go(func() {
			for k := range reqs {
				i := len(reqs) - 1 - (k+g)%len(reqs)
				imgs, err := mdl.GenerateImage(context.Background(), reqs[i])
				if err != nil || task.ImageSHA256(imgs[0]) != want[i] {
					errs <- fmt.Sprintf("goroutine %d request %d differs (err %v)", g, i, err)
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

func TestSeedsPromptsStepsAndGuidanceChangeTheImage(t *testing.T) {
	_, m, mdl := loadProfile(t, "procdiff-small")
	_, reqs := pinnedRequests(t, m, mdl)
	base := reqs[0]
	variants := map[string]func(r *task.ImageRequest){
		"seed":     func(r *task.ImageRequest) { r.Seed++ },
		"prompt":   func(r *task.ImageRequest) { r.Prompt = "a completely different prompt" },
		"steps":    func(r *task.ImageRequest) { r.Steps = 5 },
		"guidance": func(r *task.ImageRequest) { r.Guidance = 8 },
		"negative": func(r *task.ImageRequest) { r.NegativePrompt = "grey fog" },
	}
	img0 := metrics.FromImage(mdl.gen.generate(base, 0))
	for name, edit := range variants {
		r := base
		edit(&r)
		psnr, _ := metrics.PSNR(img0, metrics.FromImage(mdl.gen.generate(r, 0)))
		// "Visibly different": PSNR below 35 dB between the two images.
		if psnr >= 35 {
			t.Errorf("changing %s left the image nearly the same (PSNR %v dB)", name, psnr)
		}
	}
	// Documented step effect: fewer steps leave noisier detail (more high-frequency energy).
	few := base
	few.Steps = 5
	if hfFew, hfMany := highFrequency(metrics.FromImage(mdl.gen.generate(few, 0))), highFrequency(img0); hfFew <= hfMany {
		t.Errorf("5 steps high-frequency energy %v <= %d steps %v", hfFew, base.Steps, hfMany)
	}
	// Documented guidance effect: a higher scale pushes pixels from the mean (more contrast).
	lo, hi := base, base
	lo.Guidance, hi.Guidance = 1, 8
	if sLo, sHi := metrics.PixelStats(metrics.FromImage(mdl.gen.generate(lo, 0))).Std, metrics.PixelStats(metrics.FromImage(mdl.gen.generate(hi, 0))).Std; sHi <= sLo {
		t.Errorf("guidance 8 std %v <= guidance 1 std %v", sHi, sLo)
	}
}

func TestUnsupportedValuesAreRejectedNotClamped(t *testing.T) {
	_, _, mdl := loadProfile(t, "procdiff-base")
	ok := task.ImageRequest{Prompt: "x", Width: 512, Height: 512, Steps: 30, Guidance: 3.5, Count: 1}
	cases := map[string]struct {
		edit func(r *task.ImageRequest)
		code string
	}{
		"size":         {func(r *task.ImageRequest) { r.Width, r.Height = 256, 256 }, "unsupported_size"},
		"steps 0":      {func(r *task.ImageRequest) { r.Steps = 0 }, "unsupported_steps"},
		"steps 51":     {func(r *task.ImageRequest) { r.Steps = 51 }, "unsupported_steps"},
		"guidance -1":  {func(r *task.ImageRequest) { r.Guidance = -1 }, "unsupported_guidance"},
		"guidance 21":  {func(r *task.ImageRequest) { r.Guidance = 21 }, "unsupported_guidance"},
		"guidance NaN": {func(r *task.ImageRequest) { r.Guidance = math.NaN() }, "unsupported_guidance"},
		"n 0":          {func(r *task.ImageRequest) { r.Count = 0 }, "unsupported_n"},
		"n 5":          {func(r *task.ImageRequest) { r.Count = 5 }, "unsupported_n"},
		"empty prompt": {func(r *task.ImageRequest) { r.Prompt = "" }, "missing_prompt"},
	}
	for name, c := range cases {
		r := ok
		c.edit(&r)
		_, err := mdl.GenerateImage(context.Background(), r)
		if got := audio.CodeOf(err); got != c.code {
			t.Errorf("%s: code %q (err %v), want %q", name, got, err, c.code)
		}
	}
	var unsup *task.UnsupportedCapabilityError
	if _, err := mdl.Task(task.SpeechTranscription); !errors.As(err, &unsup) {
		t.Errorf("image model asked for transcription: %v", err)
	}
}

func TestRoundHalf(t *testing.T) {
	cases := map[float32]float32{1: 1, 0.1: 0.0999755859375, 65504: 65504, 70000: float32(math.Inf(1)), 1e-8: 0, -2.5: -2.5, 1.0009765625: 1.0009765625, 1.00048828125: 1}
	for in, want := range cases {
		if got := roundHalf(in); got != want {
			t.Errorf("roundHalf(%v) = %v, want %v", in, got, want)
		}
	}
}

// highFrequency is the mean absolute difference between horizontally adjacent pixels.
func highFrequency(p metrics.Planes) float64 {
	sum, n := 0.0, 0
	for _, ch := range p.Channels {
		for y := range p.Height {
			for x := 1; x < p.Width; x++ {
				sum += math.Abs(ch[y*p.Width+x] - ch[y*p.Width+x-1])
				n++
			}
		}
	}
	return sum / float64(n)
}

// doubleManifest is the TRTMC contract double's procdiff-small manifest: the same build as the
// reference profile, but a TRTMC-style testcase carrying its one prompt (test_prompt, seed,
// num_inference_steps, guidance_scale) instead of a dataset, and its own golden PNG.
func doubleManifest(t *testing.T) manifest.Manifest {
	t.Helper()
	m, err := manifest.Read(filepath.Join(repoRoot(), "suites", "targets", "testdata", "trtmc-double", "families", "procdiff", "tests", "manifests", "procdiff-small.json"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestInlinePromptGoldenAndGate: the double's test_prompt testcase is gated on exactly one
// prompt, its golden PNG is the float64 implementation's output (rewritten with -update), and its
// gate passes on the reference profile's bundle (the same build).
func TestInlinePromptGoldenAndGate(t *testing.T) {
	b, _, mdl := loadProfile(t, "procdiff-small")
	m := doubleManifest(t)
	tc := m.Testcases[0]
	prompts, err := m.Prompts(repoRoot(), tc)
	if err != nil || len(prompts) != 1 || prompts[0].ID != tc.Name || prompts[0].Seed != 42 || prompts[0].Prompt != tc.TestPrompt {
		t.Fatalf("inline prompts %+v, %v", prompts, err)
	}
	settings, err := tc.ImageSettings()
	if err != nil {
		t.Fatal(err)
	}
	req := task.FillImageDefaults(mdl.ImageSpec(), task.ImageRequest{Prompt: prompts[0].Prompt, Seed: prompts[0].Seed,
		Steps: settingInt(settings, "num_inference_steps"), Guidance: settingFloat(settings, "guidance_scale")})
	ref := float64Generate(mdl.gen.w, req, 0)
	path := filepath.Join(repoRoot(), tc.Expected, tc.Name+".png")
	checkGolden(t, path, ref, "InlinePrompt")
	res, err := Family{}.Gate(context.Background(), b, m, tc, family.GateEnv{Root: repoRoot(), WorkDir: t.TempDir()})
	if err != nil || !res.Passed || len(res.Items) != 1 || res.Items[0].ID != tc.Name || res.Figures["steps"] != 20 {
		t.Fatalf("gate on the inline prompt: %+v, %v", res, err)
	}
	// Without a prompt the gate has no input: an error naming the manifest and testcase, never a pass.
	empty := manifest.Testcase{Name: tc.Name} // its thresholds exist: only the input is missing
	_, err = Family{}.Gate(context.Background(), b, m, empty, family.GateEnv{Root: repoRoot(), WorkDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), m.Path) || !strings.Contains(err.Error(), `testcase "procdiff-small-prompts": no dataset and no prompt or test_prompt`) {
		t.Errorf("a testcase with neither dataset nor prompt: %v", err)
	}
}

// checkGolden requires the golden PNG at path to hold exactly the reference image ref, or
// rewrites it with -update; run names the test that rewrites it.
func checkGolden(t *testing.T, path string, ref image.Image, run string) {
	t.Helper()
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		png.Encode(f, ref)
		f.Close()
		return
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden image missing (run go test -run %s -update): %v", run, err)
	}
	golden, err := metrics.DecodePNG(data)
	if err != nil {
		t.Fatal(err)
	}
	if mse, _ := metrics.MSE(golden, metrics.FromImage(ref)); mse != 0 {
		t.Errorf("%s: golden PNG differs from the float64 implementation's output (MSE %v)", filepath.Base(path), mse)
	}
}
