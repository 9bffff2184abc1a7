package inventory

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Layouts a manifest can sit in.
const (
	LayoutFamilies = "families"  // families/<f>/tests/manifests/<p>.json (newer TRTMC)
	LayoutE2E      = "tests/e2e" // tests/e2e/models/<f>/manifests/<p>.json (older TRTMC)
	LayoutOther    = "other"     // anything else (the reference target's native/families/<f>/manifests/)
)

// Profile is one manifest read tolerantly: every field TRTMC spells two ways is normalised
// here, and nothing is required at read time. What a stage needs of its members is checked
// only once a profile is known to belong to that stage (see required), so an unrelated or
// half-written manifest in a real checkout can never abort the inventory.
type Profile struct {
	Path      string
	Layout    string
	Root      string // the checkout the manifest belongs to ("" for LayoutOther)
	FamilyDir string // the directory the manifest sits under (may differ from Family)

	Name, Family, Bundle, Precision string
	TaskString                      string // task, else task_strategy
	TaskField                       string // "task" or "task_strategy"
	RuntimeStrategy                 string
	HFID, HFRevision                string
	SourcePackage, SourceModel      string // the reference target's checkpoint identity
	SourceVersion                   string

	TensorParallel, ContextParallel int
	WorldSize                       int    // distributed_runtime.world_size (older layout): the ranks mpirun starts
	Quantization                    string // a string, or the "format" of a quantization object
	FP8Scales                       bool
	CITier                          string // top level, else the profile's own testcase
	L0ReplacedBy                    string // l0_replacement naming another profile that stands in on CI
	L0Replacement                   bool   // l0_replacement: true (this profile is the stand-in)
	AccuracySource                  string
	VariantOf                       string
	BundleMode                      string
	Statement                       string
	MaxBatchSize                    int

	VideoFrames   int    // the largest video_num_frames, top level or any testcase
	VideoFramesAt string // where it was found
	UserContracts []string
	RefFamilies   []string
	TaskModes     []string
	TestImage     string // a testcase input image (editing), with its testcase

	Testcases []Case
	Top       map[string]any
}

// Case is one testcase's fields the inventory reads.
type Case struct {
	Name   string
	Audio  string
	Fields map[string]any
}

// readProfile parses one manifest. Only unreadable or non-object JSON is an error.
func readProfile(path string) (Profile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Profile{}, fmt.Errorf("read: %w", err)
	}
	var top map[string]any
	if err := json.Unmarshal(data, &top); err != nil {
		return Profile{}, fmt.Errorf("not a JSON object: %w", err)
	}
	p := Profile{Path: path, Top: top}
	p.Layout, p.Root, p.FamilyDir = layoutOf(path)
	p.Name, p.Family, p.Bundle, p.Precision = str(top, "name"), str(top, "family"), str(top, "bundle"), str(top, "precision")
	p.TaskString, p.TaskField = str(top, "task"), "task"
	if p.TaskString == "" && str(top, "task_strategy") != "" {
		p.TaskString, p.TaskField = str(top, "task_strategy"), "task_strategy"
	}
	p.RuntimeStrategy, p.HFID, p.HFRevision = str(top, "runtime_strategy"), str(top, "hf_id"), str(top, "hf_revision")
	p.SourcePackage, p.SourceModel, p.SourceVersion = str(top, "source_package"), str(top, "source_model"), str(top, "source_version")
	p.AccuracySource, p.VariantOf, p.BundleMode = str(top, "accuracy_source"), str(top, "variant_of"), str(top, "bundle_mode")
	p.MaxBatchSize = num(top, "max_batch_size")
	if b, ok := top["build"].(map[string]any); ok {
		p.Statement = str(b, "statement")
	}
	p.readParallel(top)
	p.readQuantization(top)
	p.readCases(top)
	p.readMarkings(top)
	return p, nil
}

// layoutOf recognises the two TRTMC layouts from the path alone.
func layoutOf(path string) (layout, root, familyDir string) {
	dir := filepath.Dir(path) // .../manifests
	if filepath.Base(dir) != "manifests" {
		return LayoutOther, "", ""
	}
	up := filepath.Dir(dir) // families/<f>/tests or tests/e2e/models/<f>
	if filepath.Base(up) == "tests" && filepath.Base(filepath.Dir(filepath.Dir(up))) == "families" {
		return LayoutFamilies, filepath.Dir(filepath.Dir(filepath.Dir(up))), filepath.Base(filepath.Dir(up))
	}
	if models := filepath.Dir(up); filepath.Base(models) == "models" && filepath.Base(filepath.Dir(models)) == "e2e" {
		return LayoutE2E, filepath.Dir(filepath.Dir(filepath.Dir(models))), filepath.Base(up)
	}
	return LayoutOther, "", filepath.Base(up)
}

// readParallel takes TP/CP from top-level sizes (newer) or build_args.parallel (older).
func (p *Profile) readParallel(top map[string]any) {
	p.TensorParallel, p.ContextParallel = num(top, "tensor_parallel_size"), num(top, "context_parallel_size")
	ba, _ := top["build_args"].(map[string]any)
	par, _ := ba["parallel"].(map[string]any)
	p.TensorParallel = max(p.TensorParallel, num(par, "tp_size"), num(ba, "tensor_parallel_size"))
	p.ContextParallel = max(p.ContextParallel, num(par, "cp_size"), num(ba, "context_parallel_size"))
	dr, _ := top["distributed_runtime"].(map[string]any)
	p.WorldSize = num(dr, "world_size")
}

// readQuantization accepts "fp8" or {"format": "fp8", ...}.
func (p *Profile) readQuantization(top map[string]any) {
	switch q := top["quantization"].(type) {
	case string:
		p.Quantization = q
	case map[string]any:
		p.Quantization = str(q, "format")
		if p.Quantization == "" {
			p.Quantization = "object without format"
		}
	}
	_, p.FP8Scales = top["fp8_scales"]
}

func (p *Profile) readCases(top map[string]any) {
	list, _ := top["testcases"].([]any)
	for _, item := range list {
		tc, ok := item.(map[string]any)
		if !ok {
			continue
		}
		c := Case{Name: str(tc, "name"), Audio: str(tc, "test_input_audio"), Fields: tc}
		if c.Audio == "" {
			if in, ok := tc["inputs"].(map[string]any); ok {
				c.Audio = str(in, "audio")
			}
		}
		p.Testcases = append(p.Testcases, c)
	}
}

// own is the testcase that carries the profile's own settings: the one named like the
// profile, else the first.
func (p *Profile) own() map[string]any {
	for _, c := range p.Testcases {
		if c.Name == p.Name {
			return c.Fields
		}
	}
	if len(p.Testcases) > 0 {
		return p.Testcases[0].Fields
	}
	return nil
}

// readMarkings gathers the CI tier, L0 replacement and the video/editing signals, at the top
// level and in testcases (older manifests keep them per testcase).
func (p *Profile) readMarkings(top map[string]any) {
	own := p.own()
	p.CITier = str(top, "ci_tier")
	if p.CITier == "" {
		p.CITier = str(own, "ci_tier")
	}
	switch v := top["l0_replacement"].(type) {
	case bool:
		p.L0Replacement = v
	case string:
		p.L0ReplacedBy = v
	}
	if s := str(own, "l0_replacement"); s != "" && p.L0ReplacedBy == "" {
		p.L0ReplacedBy = s
	}
	if f := num(top, "video_num_frames"); f > p.VideoFrames {
		p.VideoFrames, p.VideoFramesAt = f, "top level"
	}
	addUniq(&p.UserContracts, str(top, "user_contract"))
	addUniq(&p.RefFamilies, str(top, "reference_family"))
	addUniq(&p.TaskModes, str(top, "task_mode"))
	for _, c := range p.Testcases {
		if f := num(c.Fields, "video_num_frames"); f > p.VideoFrames {
			p.VideoFrames, p.VideoFramesAt = f, "testcase "+c.Name
		}
		addUniq(&p.UserContracts, str(c.Fields, "user_contract"))
		addUniq(&p.RefFamilies, str(c.Fields, "reference_family"))
		addUniq(&p.TaskModes, str(c.Fields, "task_mode"))
		for _, k := range []string{"test_image", "test_input_image"} {
			if img := str(c.Fields, k); img != "" && p.TestImage == "" {
				p.TestImage = fmt.Sprintf("%s %s=%s", c.Name, k, img)
			}
		}
	}
}

// Checkpoint is hf_id at hf_revision, or the reference target's source package at its version.
func (p Profile) Checkpoint() (id, revision string) {
	if p.HFID != "" {
		return p.HFID, p.HFRevision
	}
	if p.SourceModel != "" {
		return p.SourcePackage + "/" + p.SourceModel, p.SourceVersion
	}
	return p.SourcePackage, p.SourceVersion
}

// required lists what a stage member lacks: a name, a family, a task, a checkpoint, a bundle
// file name and at least one testcase (the gate runs on it). Precision is not required: TRTMC's
// parallel variants inherit it.
func (p Profile) required() []string {
	var missing []string
	id, _ := p.Checkpoint()
	for field, v := range map[string]string{"name": p.Name, "family": p.Family, "bundle": p.Bundle, "hf_id (or source_package)": id} {
		if v == "" {
			missing = append(missing, field)
		}
	}
	if len(p.Testcases) == 0 {
		missing = append(missing, "testcases")
	}
	return missing
}

func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

func num(m map[string]any, key string) int {
	switch v := m[key].(type) {
	case float64:
		return int(v)
	case string:
		var n int
		if _, err := fmt.Sscan(v, &n); err == nil {
			return n
		}
	}
	return 0
}

func addUniq(list *[]string, s string) {
	if s == "" {
		return
	}
	for _, x := range *list {
		if x == s {
			return
		}
	}
	*list = append(*list, s)
}

func has(list []string, want ...string) string {
	for _, x := range list {
		for _, w := range want {
			if strings.EqualFold(x, w) {
				return x
			}
		}
	}
	return ""
}
