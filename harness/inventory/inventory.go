// Package inventory discovers a stage's checkpoints from a target's family manifests. Capability
// decides membership — the Task a profile's family implements — never a model name or a
// declared bundle mode. Each profile becomes a row: full-model profiles count as the checkpoint's
// model; reduced (L0, random-weight) profiles and precision/parallel variants are listed as
// their own rows and never counted.
package inventory

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/native/manifest"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// Stages and the capability each needs.
const (
	StageASR     = "asr"
	StageT2I     = "t2i"
	StageAudioQA = "audioqa"
)

// StageNumber is the stage's number in the qualification plan.
func StageNumber(stage string) int {
	return map[string]int{StageASR: 3, StageT2I: 6, StageAudioQA: 9}[stage]
}

// StageCapability is the native Task a stage qualifies.
func StageCapability(stage string) task.Name {
	switch stage {
	case StageASR:
		return task.SpeechTranscription
	case StageT2I:
		return task.TextToImage
	case StageAudioQA:
		return task.AudioTextToText
	}
	return ""
}

// Kinds of rows.
const (
	KindFull     = "full"
	KindReduced  = "reduced"
	KindVariant  = "variant"
	KindExcluded = "excluded"
)

// Ladder statuses.
const (
	StatusPlanned         = "planned"
	StatusImplemented     = "implemented"
	StatusFamilyValidated = "family-validated"
	StatusQualified       = "aiperf-qualified"
	StatusUnsupported     = "unsupported"
	StatusBlocked         = "blocked"
	StatusFailed          = "failed"
)

// Row is one profile's line in the inventory.
type Row struct {
	Stage         string   `json:"stage"`
	Checkpoint    string   `json:"checkpoint"`
	Revision      string   `json:"revision"`
	Profile       string   `json:"profile"`
	Family        string   `json:"family"`
	TaskString    string   `json:"task_string"`
	NativeTask    string   `json:"native_task"`
	Controls      []string `json:"controls,omitempty"`
	CapabilityGap string   `json:"capability_gap,omitempty"`
	Kind          string   `json:"kind"`
	Markings      []string `json:"markings,omitempty"` // why a row is reduced, a variant or excluded
	Notes         []string `json:"notes,omitempty"`
	Counted       bool     `json:"counted"`
	Status        string   `json:"status"`
	Reason        string   `json:"reason,omitempty"`
	Precision     string   `json:"precision"`
	Manifest      string   `json:"manifest"`
	Testcases     []string `json:"testcases"`
	Statement     string   `json:"statement,omitempty"` // e.g. "NOT a trained model"
}

// Capabilities says which Tasks a family implements (from the family registry for the reference
// target; from the task string for a TRTMC checkout, whose families are C++).
type Capabilities func(family, taskString string) ([]task.Name, []task.Control, error)

// Options tune discovery.
type Options struct {
	Capabilities Capabilities
	// PlannedReason, when set, keeps every row at "planned" with this reason (a TRTMC checkout
	// inventoried on a machine without the GPU stack).
	PlannedReason string
}

// Discover reads every manifest and returns the stage's rows, sorted by checkpoint and profile.
func Discover(paths []string, stage string, opts Options) ([]Row, error) {
	var rows []Row
	for _, p := range paths {
		m, err := manifest.Read(p)
		if err != nil {
			return nil, err
		}
		row, ok, err := classify(m, stage, opts)
		if err != nil {
			return nil, err
		}
		if ok {
			rows = append(rows, row)
		}
	}
	markCounted(rows)
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].Checkpoint != rows[j].Checkpoint {
			return rows[i].Checkpoint < rows[j].Checkpoint
		}
		return rows[i].Profile < rows[j].Profile
	})
	return rows, nil
}

// expectedTask maps a manifest's task string to the capability it asks for.
func expectedTask(taskString string) task.Name {
	switch strings.ToLower(taskString) {
	case "transcription", "speech_to_text", "speech_transcription", "asr":
		return task.SpeechTranscription
	case "image_generation", "diffusion_media_generation", "text_to_image":
		return task.TextToImage
	case "audio_text_to_text", "audio_question_answering":
		return task.AudioTextToText
	}
	return ""
}

// classify decides whether a manifest belongs to the stage, and how.
func classify(m manifest.Manifest, stage string, opts Options) (Row, bool, error) {
	want := StageCapability(stage)
	caps, controls, err := opts.Capabilities(m.Family, m.TaskString())
	if err != nil {
		return Row{}, false, fmt.Errorf("manifest %s: %w", m.Path, err)
	}
	has := false
	for _, c := range caps {
		has = has || c == want
	}
	declared := expectedTask(m.TaskString())
	if !has && declared != want {
		return Row{}, false, nil // neither declares nor implements this stage's Task
	}
	ckpt, rev := m.Checkpoint()
	row := Row{Stage: stage, Checkpoint: ckpt, Revision: rev, Profile: m.Name, Family: m.Family, TaskString: m.TaskString(),
		NativeTask: string(want), Precision: m.Precision, Manifest: m.Path, Status: StatusPlanned}
	for _, c := range controls {
		row.Controls = append(row.Controls, c.Name)
	}
	for _, tc := range m.Testcases {
		row.Testcases = append(row.Testcases, tc.Name)
	}
	if s, ok := m.Build["statement"].(string); ok {
		row.Statement = s
	}
	if !has {
		row.NativeTask, row.CapabilityGap = "", fmt.Sprintf("declares %q but the %s family implements %v, not %s", m.TaskString(), m.Family, caps, want)
		row.Kind, row.Status, row.Reason = KindExcluded, StatusUnsupported, row.CapabilityGap
		return row, true, nil
	}
	if excl := exclusion(m, stage); excl != "" {
		row.Kind, row.Status, row.Reason, row.Markings = KindExcluded, StatusUnsupported, excl, []string{excl}
		return row, true, nil
	}
	row.Kind, row.Markings = kindOf(m)
	if m.BundleMode != "" {
		row.Notes = append(row.Notes, fmt.Sprintf("declares bundle mode %q; included because its family implements %s", m.BundleMode, want))
	}
	if opts.PlannedReason != "" {
		row.Reason = opts.PlannedReason
	}
	return row, true, nil
}

// exclusion names why a profile that shares the stage's task string is not in the group.
func exclusion(m manifest.Manifest, stage string) string {
	if stage != StageT2I {
		return ""
	}
	if frames := topInt(m, "video_num_frames"); frames > 1 {
		return fmt.Sprintf("video generator (video_num_frames=%d), not text-to-image", frames)
	}
	for _, tc := range m.Testcases {
		if tc.VideoNumFrames > 1 {
			return fmt.Sprintf("video generator (testcase %s: video_num_frames=%d), not text-to-image", tc.Name, tc.VideoNumFrames)
		}
		if tc.InputImage != "" {
			return fmt.Sprintf("image editing (testcase %s takes an input image), not text-to-image", tc.Name)
		}
	}
	if strings.Contains(strings.ToLower(m.TaskString()), "edit") {
		return "image editing, not text-to-image"
	}
	return ""
}

// kindOf reads TRTMC's profile markings. premerge alone never makes a profile reduced.
func kindOf(m manifest.Manifest) (string, []string) {
	var reduced, variant []string
	name := strings.ToLower(m.Name)
	if strings.Contains(name, "-l0") {
		reduced = append(reduced, "name marks an L0 profile")
	}
	if m.CITier == "l0_only" {
		reduced = append(reduced, "ci_tier: l0_only")
	}
	if m.L0Replacement || topBool(m, "l0_replacement") {
		reduced = append(reduced, "l0_replacement")
	}
	if m.AccuracySource == "none" {
		reduced = append(reduced, "accuracy_source: none (random weights)")
	}
	if m.VariantOf != "" {
		variant = append(variant, "variant_of: "+m.VariantOf)
	}
	if tp := max(m.TensorParallel, topInt(m, "tensor_parallel_size")); tp > 1 {
		variant = append(variant, fmt.Sprintf("tensor_parallel_size=%d (distributed)", tp))
	}
	if cp := max(m.ContextParallel, topInt(m, "context_parallel_size")); cp > 1 {
		variant = append(variant, fmt.Sprintf("context_parallel_size=%d (distributed)", cp))
	}
	if q := m.Quantization; q != "" && q != "none" {
		variant = append(variant, "quantization: "+q)
	}
	switch {
	case len(reduced) > 0:
		return KindReduced, append(reduced, variant...)
	case len(variant) > 0:
		return KindVariant, variant
	}
	return KindFull, nil
}

// markCounted counts exactly one full profile per checkpoint; a second full profile of the same
// checkpoint is listed but not counted, with the reason.
func markCounted(rows []Row) {
	first := map[string]string{}
	for i := range rows {
		r := &rows[i]
		if r.Kind != KindFull {
			continue
		}
		key := r.Checkpoint + "@" + r.Revision
		if prev, dup := first[key]; dup {
			r.Kind = KindVariant
			r.Markings = append(r.Markings, "second full profile of "+key+" (counted: "+prev+")")
			continue
		}
		first[key] = r.Profile
		r.Counted = true
	}
}

func topInt(m manifest.Manifest, key string) int {
	if v, ok := m.Top[key].(float64); ok {
		return int(v)
	}
	if v, ok := m.Build[key].(float64); ok {
		return int(v)
	}
	return 0
}

func topBool(m manifest.Manifest, key string) bool {
	switch v := m.Top[key].(type) {
	case bool:
		return v
	case string:
		return v != "" && v != "false"
	}
	return false
}

// ByTaskString is the capability source for targets whose families cannot be loaded here
// (TRTMC's C++ families): a family implements what its manifest's task string names.
func ByTaskString(_ string, taskString string) ([]task.Name, []task.Control, error) {
	if t := expectedTask(taskString); t != "" {
		return []task.Name{t}, nil, nil
	}
	return nil, nil, nil
}

// Counted returns the rows that count as models.
func Counted(rows []Row) []Row {
	var out []Row
	for _, r := range rows {
		if r.Counted {
			out = append(out, r)
		}
	}
	return out
}

// Relative shortens manifest paths for display.
func Relative(rows []Row, root string) {
	for i := range rows {
		if rel, err := filepath.Rel(root, rows[i].Manifest); err == nil {
			rows[i].Manifest = rel
		}
	}
}
