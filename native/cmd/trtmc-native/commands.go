package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/trtmc-qual/trtmc-qual/native/audio"
	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/family"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
	"github.com/trtmc-qual/trtmc-qual/native/registry"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

func runBuild(_ context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	mpath := fs.String("manifest", "", "family manifest (JSON)")
	out := fs.String("o", "", "output bundle path")
	host := family.HostFlags(fs)
	if _, err := parse(fs, args, 0); err != nil {
		return err
	}
	if *mpath == "" || *out == "" {
		return usageError{"--manifest and -o are required"}
	}
	m, err := manifest.Read(*mpath)
	if err != nil {
		return err
	}
	start := time.Now()
	b, err := registry.BuildOn(m, *out, *host)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "built %s (%s, %d bytes, sha256 %s) in %.1fs\n", *out, m.Name, b.Size, b.SHA256, time.Since(start).Seconds())
	return nil
}

// Inspection is what `inspect` prints.
type Inspection struct {
	Path   string        `json:"path"`
	SHA256 string        `json:"sha256"`
	Size   int64         `json:"size"`
	Header bundle.Header `json:"header"`
	Tasks  []task.Info   `json:"tasks"`
}

func runInspect(_ context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	host := family.HostFlags(fs)
	pos, err := parse(fs, args, 1)
	if err != nil {
		return err
	}
	l, err := registry.Load(pos[0], family.LoadOptions{Lanes: 1, Host: *host})
	if err != nil {
		return err
	}
	defer l.Model.Close()
	return printJSON(stdout, Inspection{Path: pos[0], SHA256: l.Bundle.SHA256, Size: l.Bundle.Size, Header: l.Bundle.Header, Tasks: l.Model.Tasks()})
}

// TranscribeOutput is what `transcribe --json` prints.
type TranscribeOutput struct {
	Text         string  `json:"text"`
	PublicTaskMS float64 `json:"public_task_call_wall_ms"`
	AudioSeconds float64 `json:"audio_seconds"`
	BundleSHA256 string  `json:"bundle_sha256"`
	Profile      string  `json:"profile"`
	InputSHA256  string  `json:"input_sha256"`
}

func runTranscribe(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("transcribe", flag.ContinueOnError)
	host := family.HostFlags(fs)
	input := fs.String("input", "", "WAV clip (PCM16 or float32)")
	language := fs.String("language", "", "source language (default: the model's)")
	asJSON := fs.Bool("json", false, "print JSON with public_task_call_wall_ms")
	pos, err := parse(fs, args, 1)
	if err != nil {
		return err
	}
	clip, err := readClip(*input)
	if err != nil {
		return err
	}
	l, tr, err := loadTask[task.Transcriber](pos[0], *host, task.SpeechTranscription)
	if err != nil {
		return err
	}
	defer l.Model.Close()
	// The timed region is exactly one call through the public Task, as in TRTMC's
	// public_task_call_wall; decoding the file happened before it.
	start := time.Now()
	out, err := tr.Transcribe(ctx, clip, task.TranscribeConfig{Language: *language})
	wall := time.Since(start)
	if err != nil {
		return err
	}
	if !*asJSON {
		_, err := fmt.Fprintln(stdout, out.Text)
		return err
	}
	return printJSON(stdout, TranscribeOutput{Text: out.Text, PublicTaskMS: float64(wall.Microseconds()) / 1000,
		AudioSeconds: clip.Seconds(), BundleSHA256: l.Bundle.SHA256, Profile: l.Bundle.Header.Profile,
		InputSHA256: clip.SHA256()})
}

// ImageOutput is what `generate-image --json` prints.
type ImageOutput struct {
	Output       string  `json:"output"`
	ImageSHA256  string  `json:"image_sha256"`
	Width        int     `json:"width"`
	Height       int     `json:"height"`
	Steps        int     `json:"num_inference_steps"`
	Guidance     float64 `json:"guidance_scale"`
	Seed         int64   `json:"seed"`
	PublicTaskMS float64 `json:"public_task_call_wall_ms"`
	BundleSHA256 string  `json:"bundle_sha256"`
	Profile      string  `json:"profile"`
}

func runGenerateImage(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("generate-image", flag.ContinueOnError)
	host := family.HostFlags(fs)
	prompt := fs.String("prompt", "", "text prompt")
	negative := fs.String("negative-prompt", "", "negative prompt")
	output := fs.String("output", "", "PNG file to write")
	width := fs.Int("width", 0, "image width (default: the bundle's size)")
	height := fs.Int("height", 0, "image height (default: the bundle's size)")
	steps := fs.Int("steps", 0, "denoising steps (default: the bundle's)")
	guidance := fs.Float64("guidance", -1, "classifier-free guidance scale (default: the bundle's)")
	seed := fs.Int64("seed", 0, "noise seed")
	asJSON := fs.Bool("json", false, "print JSON with public_task_call_wall_ms")
	pos, err := parse(fs, args, 1)
	if err != nil {
		return err
	}
	if *prompt == "" || *output == "" {
		return usageError{"--prompt and --output are required"}
	}
	l, gen, err := loadTask[task.ImageGenerator](pos[0], *host, task.TextToImage)
	if err != nil {
		return err
	}
	defer l.Model.Close()
	req := task.FillImageDefaults(gen.ImageSpec(), task.ImageRequest{Prompt: *prompt, NegativePrompt: *negative,
		Width: *width, Height: *height, Steps: *steps, Guidance: *guidance, Seed: *seed, Count: 1})
	start := time.Now()
	imgs, err := gen.GenerateImage(ctx, req)
	wall := time.Since(start)
	if err != nil {
		return err
	}
	f, err := os.Create(*output)
	if err != nil {
		return err
	}
	if err := png.Encode(f, imgs[0]); err != nil {
		f.Close()
		return fmt.Errorf("encode png: %w", err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	if !*asJSON {
		_, err := fmt.Fprintln(stdout, *output)
		return err
	}
	return printJSON(stdout, ImageOutput{Output: *output, ImageSHA256: task.ImageSHA256(imgs[0]), Width: req.Width, Height: req.Height,
		Steps: req.Steps, Guidance: req.Guidance, Seed: req.Seed, PublicTaskMS: float64(wall.Microseconds()) / 1000,
		BundleSHA256: l.Bundle.SHA256, Profile: l.Bundle.Header.Profile})
}

// readClip reads and decodes the --input WAV of an audio command (before any timed region).
func readClip(path string) (task.Audio, error) {
	if path == "" {
		return task.Audio{}, usageError{"--input is required"}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return task.Audio{}, err
	}
	clip, err := audio.DecodeWAV(data)
	if err != nil {
		return task.Audio{}, fmt.Errorf("%s: %w", path, err)
	}
	return clip, nil
}

// loadTask loads a bundle and asks it for one Task by capability; on error nothing stays loaded.
func loadTask[T any](path string, host family.Host, name task.Name) (*registry.Loaded, T, error) {
	var zero T
	l, err := registry.Load(path, family.LoadOptions{Lanes: 1, Host: host})
	if err != nil {
		return nil, zero, err
	}
	t, err := task.Lookup[T](l.Model, l.Bundle.Header.Profile, name)
	if err != nil {
		l.Model.Close()
		return nil, zero, err
	}
	return l, t, nil
}

// findManifest locates the manifest of a bundle's profile in its family's manifest directory.
func findManifest(root string, h bundle.Header) (manifest.Manifest, error) {
	dir := filepath.Join(root, "native", "families", h.Family, "manifests")
	ms, err := manifest.ReadDir(dir)
	if err != nil {
		return manifest.Manifest{}, err
	}
	for _, m := range ms {
		if m.Name == h.Profile {
			return m, nil
		}
	}
	return manifest.Manifest{}, fmt.Errorf("no manifest for profile %q in %s (pass --manifest)", h.Profile, dir)
}

func gateInputs(args []string, name string, extra func(fs *flag.FlagSet)) (*bundle.Bundle, manifest.Manifest, manifest.Testcase, string, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	tcName := fs.String("testcase", "", "testcase name from the manifest")
	mpath := fs.String("manifest", "", "manifest (default: found by the bundle's profile)")
	rootFlag := fs.String("root", "", "repository root (default: the enclosing checkout)")
	extra(fs)
	pos, err := parse(fs, args, 1)
	if err != nil {
		return nil, manifest.Manifest{}, manifest.Testcase{}, "", err
	}
	root, err := repoRoot(*rootFlag)
	if err != nil {
		return nil, manifest.Manifest{}, manifest.Testcase{}, "", err
	}
	b, err := bundle.Open(pos[0])
	if err != nil {
		return nil, manifest.Manifest{}, manifest.Testcase{}, "", err
	}
	var m manifest.Manifest
	if *mpath != "" {
		m, err = manifest.Read(*mpath)
	} else {
		m, err = findManifest(root, b.Header)
	}
	if err != nil {
		return nil, manifest.Manifest{}, manifest.Testcase{}, "", err
	}
	for _, tc := range m.Testcases {
		if tc.Name == *tcName || (*tcName == "" && len(m.Testcases) == 1) {
			return b, m, tc, root, nil
		}
	}
	return nil, manifest.Manifest{}, manifest.Testcase{}, "", usageError{fmt.Sprintf("manifest %s has no testcase %q", m.Name, *tcName)}
}

func runGate(ctx context.Context, args []string, stdout io.Writer) error {
	var asJSON *bool
	var host *family.Host
	b, m, tc, root, err := gateInputs(args, "gate", func(fs *flag.FlagSet) {
		asJSON = fs.Bool("json", false, "print the result as JSON")
		host = family.HostFlags(fs)
	})
	if err != nil {
		return err
	}
	f, err := registry.Lookup(b.Header.Family)
	if err != nil {
		return err
	}
	f = family.OnHost(f, *host)
	work, err := os.MkdirTemp("", "gate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	res, err := f.Gate(ctx, b, m, tc, family.GateEnv{Root: root, WorkDir: work, Cache: host.Cache})
	if err != nil {
		return err
	}
	if *asJSON {
		if err := printJSON(stdout, res); err != nil {
			return err
		}
	} else {
		printGate(stdout, res)
	}
	if !res.Passed {
		return fmt.Errorf("gate %s failed on bundle %s: %d failure(s)", tc.Name, b.SHA256, len(res.Failures))
	}
	return nil
}

func printGate(w io.Writer, res family.GateResult) {
	verdict := "PASS"
	if !res.Passed {
		verdict = "FAIL"
	}
	fmt.Fprintf(w, "%s gate %s/%s on bundle %s\n", verdict, res.Profile, res.Testcase, res.BundleSHA)
	figs, _ := json.Marshal(res.Figures)
	bounds, _ := json.Marshal(res.Thresholds)
	fmt.Fprintf(w, "  figures:    %s\n  thresholds: %s\n", figs, bounds)
	for _, f := range res.Failures {
		fmt.Fprintf(w, "  failure: %s\n", f)
	}
}

func runUpstream(_ context.Context, args []string, stdout io.Writer) error {
	var out *string
	var host *family.Host
	b, _, tc, root, err := gateInputs(args, "upstream", func(fs *flag.FlagSet) {
		out = fs.String("out", "", "upstream transcripts file to write")
		host = family.HostFlags(fs)
	})
	if err != nil {
		return err
	}
	if *out == "" {
		return usageError{"--out is required"}
	}
	f, err := registry.Lookup(b.Header.Family)
	upstream, ok := family.OnHost(f, *host).(family.UpstreamTranscriber)
	if err != nil || !ok {
		return fmt.Errorf("family %q makes its expected outputs in its test code, not with an upstream tool", b.Header.Family)
	}
	work, err := os.MkdirTemp("", "upstream-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	set, err := dataset.ReadASR(filepath.Join(root, tc.Dataset))
	if err != nil {
		return err
	}
	set.Cache = host.Cache
	clips, err := set.Materialize(root, filepath.Join(work, "clips"))
	if err != nil {
		return err
	}
	n := len(clips)
	refs, err := upstream.UpstreamTranscripts(b, clips, work)
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(refs, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(*out, append(data, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d upstream transcripts to %s\n", n, *out)
	return nil
}

func runExtract(_ context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("extract", flag.ContinueOnError)
	pos, err := parse(fs, args, 2)
	if err != nil {
		return err
	}
	b, err := bundle.Open(pos[0])
	if err != nil {
		return err
	}
	f, err := registry.Lookup(b.Header.Family)
	extractor, ok := f.(family.ModelExtractor)
	if err != nil || !ok {
		return fmt.Errorf("family %q has no extractable model files", b.Header.Family)
	}
	out, err := extractor.ExtractModel(b, pos[1])
	if err != nil {
		return err
	}
	out["dir"] = pos[1]
	return printJSON(stdout, out)
}
