// Package manifest reads family-owned manifests and threshold files in TRTMC's schema: one JSON
// file per profile under <family>/manifests/, and per-testcase gates under <family>/thresholds/.
// The reference target names a Debian source package and version where TRTMC names hf_id and
// hf_revision; both identify the checkpoint.
package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/native/dataset"
)

// Manifest is one profile of one checkpoint.
type Manifest struct {
	Name      string `json:"name"`
	Bundle    string `json:"bundle"`
	Family    string `json:"family"`
	Task      string `json:"task"`
	Precision string `json:"precision"`

	HFID          string `json:"hf_id,omitempty"`
	HFRevision    string `json:"hf_revision,omitempty"`
	SourcePackage string `json:"source_package,omitempty"`
	SourceModel   string `json:"source_model,omitempty"` // the model within the package
	SourceVersion string `json:"source_version,omitempty"`

	// Older TRTMC manifests name the workload with task_strategy instead of task.
	TaskStrategy    string `json:"task_strategy,omitempty"`
	RuntimeStrategy string `json:"runtime_strategy,omitempty"`

	// Profile markings, as TRTMC spells them.
	CITier          string `json:"ci_tier,omitempty"`         // "l0_only" marks a reduced profile
	L0Replacement   bool   `json:"l0_replacement,omitempty"`  // reduced stand-in for a full profile
	AccuracySource  string `json:"accuracy_source,omitempty"` // "none": random weights
	VariantOf       string `json:"variant_of,omitempty"`      // a settings/precision variant of another profile
	Quantization    string `json:"quantization,omitempty"`
	TensorParallel  int    `json:"tensor_parallel_size,omitempty"`
	ContextParallel int    `json:"context_parallel_size,omitempty"`
	BundleMode      string `json:"bundle_mode,omitempty"` // declared mode; never decides the workload

	Build     map[string]any `json:"build"`
	Testcases []Testcase     `json:"testcases"`

	// Top is every top-level field as read: TRTMC keeps build settings (image_height,
	// video_num_frames, ...) at the top level.
	Top map[string]any `json:"-"`

	Path string `json:"-"` // where it was read from
}

// Testcase names a gate's inputs and settings.
type Testcase struct {
	Name    string `json:"name"`
	Dataset string `json:"dataset,omitempty"` // path relative to the repository root
	// Expected is what the gate compares the native output with (upstream transcripts, or a
	// directory of the float64 implementation's images), relative to the repository root.
	Expected string `json:"expected,omitempty"`
	// ReferencePrecision is TRTMC's key for the precision of its comparison model; kept verbatim.
	ReferencePrecision string         `json:"reference_precision,omitempty"`
	Premerge           bool           `json:"premerge,omitempty"`
	Settings           map[string]any `json:"settings,omitempty"`
	VideoNumFrames     int            `json:"video_num_frames,omitempty"`
	InputImage         string         `json:"test_input_image,omitempty"` // image editing takes an input image
	// A TRTMC ASR testcase carries its one clip itself, relative to the family's test directory
	// (families/whisper/tests/manifests/whisper-tiny-fp16.json: "data/librispeech-...wav"), and
	// no transcript: TRTMC judges it against a reference backend, not a gold text.
	InputAudio string `json:"test_input_audio,omitempty"`
	// MaxNewTokens bounds a transcript (families/whisper/tests/test_e2e.py @9777fef7 passes it as
	// --max-output-tokens).
	MaxNewTokens *int `json:"max_new_tokens,omitempty"`
	// ChunkMS is a streaming testcase's chunk (families/nemotron_speech_streaming: 1120); TRTMC's
	// serving base request defaults it to 160 (apps/benchmark/trtmc_benchmark/task_adapters.py @0dd9052f).
	ChunkMS *int `json:"chunk_ms,omitempty"`

	// A TRTMC text-to-image testcase carries its one input and its request settings itself, in
	// TRTMC's spelling (tests/e2e/models/flux/manifests/flux-schnell.json, qwen_image/manifests/
	// qwen-image.json, z_image/manifests/z-image-turbo.json @e9132e79), instead of a dataset.
	Prompt            string   `json:"prompt,omitempty"`
	TestPrompt        string   `json:"test_prompt,omitempty"`
	NegativePrompt    string   `json:"negative_prompt,omitempty"`
	Seed              *int64   `json:"seed,omitempty"`
	NumInferenceSteps *int     `json:"num_inference_steps,omitempty"`
	GuidanceScale     *float64 `json:"guidance_scale,omitempty"`
	// CfgScale is true classifier-free guidance (qwen_image: families/qwen_image/tests/manifests/
	// qwen-image-2512.json "cfg_scale": 4.0), a setting of its own beside guidance_scale (the
	// distilled guidance of flux): TRTMC's request and native CLI take both (task_adapters.py
	// _generate_image_request, src/cli/args.cpp --cfg-scale @e9132e79). Its images route takes it
	// from the serving profile's testcase and refuses it in a body (apps/perf_serving/
	// trtmc_perf_serving/openai.py image_generation @db5a3def), so only the native run is told.
	CfgScale *float64 `json:"cfg_scale,omitempty"`
}

// CfgScaleArg is the testcase's cfg_scale as the native CLI takes it: -1 when it declares none,
// which TRTMC's CLI reads as the family's default (args.h cfg_scale{-1.0F}), as its benchmark
// does (task_adapters.py: ("cfg_scale", -1.0, float)).
func (tc Testcase) CfgScaleArg() string {
	if tc.CfgScale == nil {
		return "-1"
	}
	return strconv.FormatFloat(*tc.CfgScale, 'g', -1, 64)
}

// trtmcDefaultSeed is the seed TRTMC's benchmark sends when a testcase declares none
// (python/tensorrt_model_connect/benchmark/task_adapters.py _generate_image_request @e9132e79).
const trtmcDefaultSeed = 42

// InlinePromptField names the testcase field holding its own prompt, read as TRTMC's benchmark
// reads it (task_adapters.py _prompt_from_file: "prompt", else "test_prompt"); "" when it has
// none, or when it names a dataset (then the dataset is its input).
func (tc Testcase) InlinePromptField() string {
	switch {
	case tc.Dataset != "":
		return ""
	case tc.Prompt != "":
		return "prompt"
	case tc.TestPrompt != "":
		return "test_prompt"
	}
	return ""
}

// InlinePrompt is the one text-to-image input the testcase carries itself, with the testcase's
// name as its id; ok is false when it carries none.
func (tc Testcase) InlinePrompt() (p dataset.Prompt, ok bool) {
	field := tc.InlinePromptField()
	if field == "" {
		return dataset.Prompt{}, false
	}
	p = dataset.Prompt{ID: tc.Name, Prompt: tc.Prompt, NegativePrompt: tc.NegativePrompt, Seed: trtmcDefaultSeed}
	if field == "test_prompt" {
		p.Prompt = tc.TestPrompt
	}
	if tc.Seed != nil {
		p.Seed = *tc.Seed
	}
	return p, true
}

// Prompts are the testcase's text-to-image inputs: its pinned prompts JSONL (relative to root),
// or the one prompt it carries itself. A testcase with neither is an error naming the manifest
// and the testcase: a gate or a run with no input must never pass as empty.
func (m Manifest) Prompts(root string, tc Testcase) ([]dataset.Prompt, error) {
	if tc.Dataset != "" {
		return dataset.ReadPrompts(filepath.Join(root, tc.Dataset))
	}
	if p, ok := tc.InlinePrompt(); ok {
		return []dataset.Prompt{p}, nil
	}
	return nil, fmt.Errorf("manifest %s testcase %q: no dataset and no prompt or test_prompt: no input to send", m.Path, tc.Name)
}

// InputAudioPath is the WAV file a testcase without a dataset carries in test_input_audio,
// resolved as TRTMC's benchmark resolves it: relative to the manifest directory's parent
// (python/tensorrt_model_connect/benchmark/task_adapters.py _model_asset, model_root =
// manifest_path.parent.parent in types.py @e9132e79: tests/e2e/models/whisper/data/... in the
// older layout, families/whisper/tests/data/... in the newer). ok is false when the testcase
// names a dataset or no clip. An absolute path or one leaving that directory is an error: the
// clip must be the checkout's own file.
func (m Manifest) InputAudioPath(tc Testcase) (path string, ok bool, err error) {
	if tc.Dataset != "" || tc.InputAudio == "" {
		return "", false, nil
	}
	if filepath.IsAbs(tc.InputAudio) || !filepath.IsLocal(filepath.FromSlash(tc.InputAudio)) {
		return "", true, fmt.Errorf("manifest %s testcase %q: test_input_audio %q is not a path inside %s", m.Path, tc.Name, tc.InputAudio, filepath.Dir(filepath.Dir(m.Path)))
	}
	return filepath.Join(filepath.Dir(filepath.Dir(m.Path)), filepath.FromSlash(tc.InputAudio)), true, nil
}

// ImageSettings are the fixed request settings of a text-to-image testcase: its settings
// object, plus num_inference_steps and guidance_scale where TRTMC spells them, on the testcase
// itself. The same setting given both ways with different values is an error.
func (tc Testcase) ImageSettings() (map[string]any, error) {
	out := map[string]any{}
	for k, v := range tc.Settings {
		out[k] = v
	}
	set := func(key string, v float64) error {
		if old, ok := out[key]; ok && old != v {
			return fmt.Errorf("testcase %q: %s %v in settings and %v on the testcase", tc.Name, key, old, v)
		}
		out[key] = v // JSON numbers, as settings hold them
		return nil
	}
	if tc.NumInferenceSteps != nil {
		if err := set("num_inference_steps", float64(*tc.NumInferenceSteps)); err != nil {
			return nil, err
		}
	}
	if tc.GuidanceScale != nil {
		if err := set("guidance_scale", *tc.GuidanceScale); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Checkpoint identifies the model a profile belongs to: hf_id at hf_revision, or the source
// package (and the model within it) at the package version.
func (m Manifest) Checkpoint() (id, revision string) {
	if m.HFID != "" {
		return m.HFID, m.HFRevision
	}
	if m.SourceModel != "" {
		return m.SourcePackage + "/" + m.SourceModel, m.SourceVersion
	}
	return m.SourcePackage, m.SourceVersion
}

// TaskString is the workload the manifest declares (task, or the older task_strategy).
func (m Manifest) TaskString() string {
	if m.Task != "" {
		return m.Task
	}
	return m.TaskStrategy
}

// Read parses one manifest and checks its required fields.
func Read(path string) (Manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Manifest{}, fmt.Errorf("read manifest: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return Manifest{}, fmt.Errorf("manifest %s: %w", path, err)
	}
	m.Path = path
	if err := json.Unmarshal(data, &m.Top); err != nil {
		return Manifest{}, fmt.Errorf("manifest %s: %w", path, err)
	}
	var missing []string
	for field, v := range map[string]string{"name": m.Name, "bundle": m.Bundle, "family": m.Family, "task (or task_strategy)": m.TaskString(), "precision": m.Precision} {
		if v == "" {
			missing = append(missing, field)
		}
	}
	if len(m.Testcases) == 0 {
		missing = append(missing, "testcases")
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return Manifest{}, fmt.Errorf("manifest %s: missing required fields %s", path, strings.Join(missing, ", "))
	}
	return m, nil
}

// ReadDir reads every *.json manifest in dir, sorted by name.
func ReadDir(dir string) ([]Manifest, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("list manifests in %s: %w", dir, err)
	}
	sort.Strings(paths)
	var out []Manifest
	for _, p := range paths {
		m, err := Read(p)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// Thresholds is a testcase's gate: TRTMC's threshold_overrides object.
type Thresholds struct {
	Overrides map[string]float64 `json:"threshold_overrides"`
	Path      string             `json:"-"`
}

// ThresholdsPath is where a testcase's thresholds live beside the manifests.
func ThresholdsPath(m Manifest, testcase string) string {
	return filepath.Join(filepath.Dir(filepath.Dir(m.Path)), "thresholds", testcase+".json")
}

// ReadThresholds reads a testcase's thresholds.
func ReadThresholds(path string) (Thresholds, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Thresholds{}, fmt.Errorf("read thresholds: %w", err)
	}
	var t Thresholds
	if err := json.Unmarshal(data, &t); err != nil {
		return Thresholds{}, fmt.Errorf("thresholds %s: %w", path, err)
	}
	if len(t.Overrides) == 0 {
		return Thresholds{}, fmt.Errorf("thresholds %s: no threshold_overrides", path)
	}
	t.Path = path
	return t, nil
}

// ReadDeclaredThresholds reads a testcase's thresholds where the target declares any: a missing
// file is no error but thresholds that declare nothing (many of TRTMC's testcases have none), so
// that a rule asks for a bound only when it needs one. A file that is there must parse.
func ReadDeclaredThresholds(path string) (Thresholds, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return Thresholds{Path: path}, nil
	}
	return ReadThresholds(path)
}

// Declared says whether a thresholds file was found.
func (t Thresholds) Declared() bool { return t.Overrides != nil }

// Limit returns a named threshold, or an error naming the file when it is absent (a gate must
// never run with a missing bound).
func (t Thresholds) Limit(name string) (float64, error) {
	v, ok := t.Overrides[name]
	switch {
	case !t.Declared():
		return 0, fmt.Errorf("thresholds %s: no such file, so no %q bound", t.Path, name)
	case !ok:
		return 0, fmt.Errorf("thresholds %s: no %q bound", t.Path, name)
	}
	return v, nil
}

// Bound is the first of names the thresholds declare, and the name found; ok false when none is
// (a bound a target may spell several ways: TRTMC's own names first).
func (t Thresholds) Bound(names ...string) (v float64, name string, ok bool) {
	for _, n := range names {
		if v, ok := t.Overrides[n]; ok {
			return v, n, true
		}
	}
	return 0, "", false
}

// String reads a string build setting.
func (m Manifest) String(key string) string {
	s, _ := m.Build[key].(string)
	return s
}

// Number reads a numeric build setting (JSON numbers decode as float64).
func (m Manifest) Number(key string) (float64, bool) {
	v, ok := m.Build[key].(float64)
	return v, ok
}
