// Package procdiff is the reference target's text-to-image family: a deterministic,
// prompt-conditioned procedural diffusion pipeline. It is NOT a trained model — every row,
// report and README line that mentions it says so. It exists to exercise the image serving
// path exactly: text conditioning, seeded latents, N denoising steps, classifier-free guidance,
// a decoder to RGB, and a cost that grows with size × steps.
package procdiff

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image"
	"math"

	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/family"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// Name is the family's registry name.
const Name = "procdiff"

// Statement is what every report says about this family.
const Statement = "procedural diffusion stand-in: deterministic and prompt-conditioned, NOT a trained model"

// Family builds, loads and gates procdiff bundles.
type Family struct{}

// Name implements family.Family.
func (Family) Name() string { return Name }

// Capabilities implements family.Family.
func (Family) Capabilities() []task.Name { return []task.Name{task.TextToImage} }

// config is the bundle's "config" section.
type config struct {
	Hidden          int      `json:"hidden"`
	WeightSeed      uint64   `json:"weight_seed"`
	Sizes           [][2]int `json:"sizes"`
	DefaultSteps    int      `json:"default_steps"`
	MinSteps        int      `json:"min_steps"`
	MaxSteps        int      `json:"max_steps"`
	DefaultGuidance float64  `json:"default_guidance"`
	MaxGuidance     float64  `json:"max_guidance"`
	MaxCount        int      `json:"max_count"`
	Precision       string   `json:"precision"`
}

func configOf(m manifest.Manifest) (config, error) {
	var c config
	raw, err := json.Marshal(m.Build)
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return c, fmt.Errorf("manifest %s build settings: %w", m.Name, err)
	}
	c.Precision = m.Precision
	switch {
	case c.Hidden <= 0 || c.WeightSeed == 0 || len(c.Sizes) == 0:
		return c, fmt.Errorf("manifest %s: hidden, weight_seed and sizes are required", m.Name)
	case c.MinSteps < 1 || c.MaxSteps < c.MinSteps || c.DefaultSteps < c.MinSteps || c.DefaultSteps > c.MaxSteps:
		return c, fmt.Errorf("manifest %s: steps range %d..%d with default %d is inconsistent", m.Name, c.MinSteps, c.MaxSteps, c.DefaultSteps)
	case c.Precision != "fp32" && c.Precision != "fp16":
		return c, fmt.Errorf("manifest %s: precision %q is not fp32 or fp16", m.Name, c.Precision)
	case c.MaxCount < 1 || c.MaxGuidance <= 0:
		return c, fmt.Errorf("manifest %s: max_count and max_guidance must be positive", m.Name)
	}
	for _, s := range c.Sizes {
		if s[0] <= 0 || s[1] <= 0 || s[0]%latentScale != 0 || s[1]%latentScale != 0 {
			return c, fmt.Errorf("manifest %s: size %dx%d is not a positive multiple of %d", m.Name, s[0], s[1], latentScale)
		}
	}
	return c, nil
}

// Build draws the network weights from the manifest's seed and packs them with the config.
func (Family) Build(m manifest.Manifest) (bundle.Header, map[string][]byte, error) {
	c, err := configOf(m)
	if err != nil {
		return bundle.Header{}, nil, err
	}
	cfgJSON, err := json.Marshal(c)
	if err != nil {
		return bundle.Header{}, nil, err
	}
	checkpoint, revision := m.Checkpoint()
	h := bundle.Header{Family: Name, Task: m.Task, Backend: "go-procedural", Precision: m.Precision,
		Profile: m.Name, Checkpoint: checkpoint, Revision: revision,
		Settings: map[string]any{"trained_model": false, "statement": Statement}}
	return h, map[string][]byte{"config": cfgJSON, "weights": encodeWeights(generateWeights(c.WeightSeed, c.Hidden))}, nil
}

func encodeWeights(w weights) []byte {
	var buf bytes.Buffer
	for _, part := range [][]float32{w.w1, w.b1, w.proj, w.w2, w.dec, w.decB} {
		binary.Write(&buf, binary.LittleEndian, part)
	}
	return buf.Bytes()
}

func decodeWeights(data []byte, hidden int) (weights, error) {
	w := weights{hidden: hidden}
	parts := []*[]float32{&w.w1, &w.b1, &w.proj, &w.w2, &w.dec, &w.decB}
	sizes := []int{hidden * latentChannels * 9, hidden, hidden * embedDim, latentChannels * hidden * 9, 3 * latentChannels, 3}
	want := 0
	for _, n := range sizes {
		want += 4 * n
	}
	if len(data) != want {
		return w, fmt.Errorf("weights section is %d bytes, want %d for %d hidden channels", len(data), want, hidden)
	}
	r := bytes.NewReader(data)
	for i, p := range parts {
		*p = make([]float32, sizes[i])
		if err := binary.Read(r, binary.LittleEndian, *p); err != nil {
			return w, fmt.Errorf("read weights: %w", err)
		}
	}
	return w, nil
}

// Load reads the config and weights.
func (Family) Load(b *bundle.Bundle, _ family.LoadOptions) (task.Model, error) {
	raw, err := b.Section("config")
	if err != nil {
		return nil, err
	}
	var c config
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("bundle config: %w", err)
	}
	data, err := b.Section("weights")
	if err != nil {
		return nil, err
	}
	w, err := decodeWeights(data, c.Hidden)
	if err != nil {
		return nil, err
	}
	return &model{name: b.Header.Profile, cfg: c, gen: &generator{w: w, half: c.Precision == "fp16"}}, nil
}

// ImageDefaults are the request defaults a stored bundle's server completes an image request
// with (the loaded model's ImageSpec): the offline verifier re-derives input identities with
// them (descriptor).
func ImageDefaults(b *bundle.Bundle) (task.ImageSpec, error) {
	m, err := Family{}.Load(b, family.LoadOptions{Lanes: 1})
	if err != nil {
		return task.ImageSpec{}, err
	}
	defer m.Close()
	return m.(*model).ImageSpec(), nil
}

// model is a loaded procdiff bundle. It holds no mutable state: any number of calls may run
// at once and each is deterministic.
type model struct {
	name string
	cfg  config
	gen  *generator
}

func (m *model) Tasks() []task.Info {
	size := fmt.Sprintf("%dx%d", m.cfg.Sizes[0][0], m.cfg.Sizes[0][1])
	return []task.Info{{Name: task.TextToImage, Controls: []task.Control{
		{Name: "prompt", Kind: "string", Description: "text prompt (required)"},
		{Name: "negative_prompt", Kind: "string", Default: "", Description: "what guidance steers away from"},
		{Name: "size", Kind: "enum", Default: size, Description: fmt.Sprintf("WxH, one of %v", m.cfg.Sizes)},
		{Name: "num_inference_steps", Kind: "int", Default: fmt.Sprint(m.cfg.DefaultSteps), Description: fmt.Sprintf("denoising steps, %d..%d", m.cfg.MinSteps, m.cfg.MaxSteps)},
		{Name: "guidance_scale", Kind: "float", Default: fmt.Sprint(m.cfg.DefaultGuidance), Description: fmt.Sprintf("classifier-free guidance, 0..%g", m.cfg.MaxGuidance)},
		{Name: "seed", Kind: "int", Default: "0", Description: "latent noise seed; image i of a request uses seed+i"},
		{Name: "n", Kind: "int", Default: "1", Description: fmt.Sprintf("images per request, 1..%d", m.cfg.MaxCount)},
	}}}
}

func (m *model) Task(name task.Name) (any, error) {
	if name == task.TextToImage {
		return m, nil
	}
	return nil, &task.UnsupportedCapabilityError{Model: m.name, Task: name, Has: task.Names(m.Tasks())}
}

func (m *model) Close() error { return nil }

// ImageSpec implements task.ImageGenerator.
func (m *model) ImageSpec() task.ImageSpec {
	return task.ImageSpec{Sizes: m.cfg.Sizes, MinSteps: m.cfg.MinSteps, MaxSteps: m.cfg.MaxSteps, MinGuidance: 0,
		MaxGuidance: m.cfg.MaxGuidance, MaxCount: m.cfg.MaxCount, DefaultSteps: m.cfg.DefaultSteps,
		DefaultGuide: m.cfg.DefaultGuidance, Precision: m.cfg.Precision, TrainedModel: false, ModelStatement: Statement}
}

// validate refuses what the bundle cannot honor; nothing is clamped.
func (m *model) validate(req task.ImageRequest) error {
	spec := m.ImageSpec()
	sizeOK := false
	for _, s := range spec.Sizes {
		sizeOK = sizeOK || (s[0] == req.Width && s[1] == req.Height)
	}
	switch {
	case req.Prompt == "":
		return task.Invalid("missing_prompt", "prompt is required")
	case !sizeOK:
		return task.Invalid("unsupported_size", "size %dx%d is not supported by %s (supported: %v)", req.Width, req.Height, m.name, spec.Sizes)
	case req.Steps < spec.MinSteps || req.Steps > spec.MaxSteps:
		return task.Invalid("unsupported_steps", "num_inference_steps %d is outside %d..%d for %s", req.Steps, spec.MinSteps, spec.MaxSteps, m.name)
	case math.IsNaN(req.Guidance) || req.Guidance < spec.MinGuidance || req.Guidance > spec.MaxGuidance:
		return task.Invalid("unsupported_guidance", "guidance_scale %v is outside %g..%g for %s", req.Guidance, spec.MinGuidance, spec.MaxGuidance, m.name)
	case req.Count < 1 || req.Count > spec.MaxCount:
		return task.Invalid("unsupported_n", "n %d is outside 1..%d for %s", req.Count, spec.MaxCount, m.name)
	}
	return nil
}

// GenerateImage implements task.ImageGenerator: image i uses seed+i.
func (m *model) GenerateImage(ctx context.Context, req task.ImageRequest) ([]*image.NRGBA, error) {
	if err := m.validate(req); err != nil {
		return nil, err
	}
	out := make([]*image.NRGBA, 0, req.Count)
	for i := range req.Count {
		img, err := m.gen.generateUntil(ctx, req, i)
		if err != nil {
			return nil, err
		}
		out = append(out, img)
	}
	return out, nil
}
