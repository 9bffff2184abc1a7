// Package inventory discovers a stage's checkpoints from a target's family manifests. Capability
// decides membership — the Task a profile's family implements — never a model name or a
// declared bundle mode. Each profile becomes a row: full-model profiles count as the checkpoint's
// model; reduced (L0, random-weight) profiles and precision/parallel variants are listed as
// their own rows and never counted; a checkpoint with no full-model profile gets a gap row.
//
// Reading is tolerant: a real TRTMC checkout holds hundreds of manifests of unrelated families,
// half of them without fields a stage needs. A manifest that is malformed or belongs to no stage
// goes into the "other manifests" audit with its reason; only a stage's members must carry what
// that stage needs.
package inventory

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// Stages come from harness/stage (name, number, capability); what the inventory does differently
// for a capability (the image task's video/edit exclusions, the transcription task's clip limits)
// is keyed by that capability below, never by a stage name.

// stageWith is the name of the stage that qualifies capability c ("" when none does).
func stageWith(c task.Name) stage.Name {
	for _, s := range stage.All() {
		if s.Capability == c {
			return s.Name
		}
	}
	return ""
}

// capabilities lists every stage's capability, for the audit of a profile in no stage.
func capabilities() string {
	var out []string
	for _, s := range stage.All() {
		out = append(out, string(s.Capability))
	}
	return strings.Join(out, ", ")
}

// OtherRow is a manifest in no stage's table, with the reason.
type OtherRow struct {
	Manifest   string `json:"manifest"`
	Profile    string `json:"profile,omitempty"`
	Family     string `json:"family,omitempty"`
	TaskString string `json:"task_string,omitempty"`
	Reason     string `json:"reason"`
}

// Report is the whole inventory of a target: each stage's rows, the other manifests and the
// stage-3 family limits.
type Report struct {
	Stages map[stage.Name][]evidence.InventoryRow `json:"stages"`
	Other  []OtherRow                             `json:"other_manifests"`
	Limits []FamilyLimits                         `json:"asr_family_limits"`
}

// Capabilities says which Tasks a family implements when its checkout declares nothing
// readable (from the family registry for the reference target; from the task string otherwise).
type Capabilities func(family, taskString string) ([]task.Name, []task.Control, error)

// Options tune discovery.
type Options struct {
	Capabilities Capabilities
	// PlannedReason, when set, keeps every row at "planned" with this reason (a TRTMC checkout
	// inventoried on a machine without the GPU stack).
	PlannedReason string
}

// capInfo is what a profile's family implements, and where that was read.
type capInfo struct {
	native   []task.Name
	controls []string
	source   string
}

func (c capInfo) has(t task.Name) bool {
	for _, n := range c.native {
		if n == t {
			return true
		}
	}
	return false
}

// Scan reads every manifest once and sorts each into the stages it belongs to, or into the
// other-manifests audit. It never fails on manifest content.
func Scan(paths []string, opts Options) *Report {
	rep := &Report{Stages: map[stage.Name][]evidence.InventoryRow{}}
	decl := newDeclarations()
	var profiles []Profile
	var caps []capInfo
	for _, path := range paths {
		p, err := readProfile(path)
		if err != nil {
			rep.Other = append(rep.Other, OtherRow{Manifest: path, Reason: "malformed: " + err.Error()})
			continue
		}
		c, err := capabilityOf(p, decl, opts)
		if err != nil {
			rep.Other = append(rep.Other, OtherRow{Manifest: path, Profile: p.Name, Family: p.Family, TaskString: p.TaskString, Reason: err.Error()})
			continue
		}
		profiles, caps = append(profiles, p), append(caps, c)
	}
	replaced := replacedBy(profiles)
	for i, p := range profiles {
		placed := false
		for _, st := range stage.All() {
			member, excl := membership(p, caps[i], st.Capability)
			if !member {
				continue
			}
			name := st.Name
			if missing := p.required(); len(missing) > 0 {
				rep.Other = append(rep.Other, OtherRow{Manifest: p.Path, Profile: p.Name, Family: p.Family, TaskString: p.TaskString,
					Reason: fmt.Sprintf("belongs to stage %d (%s) but lacks %s", st.Number, name, strings.Join(sorted(missing), ", "))})
				placed = true
				continue
			}
			rep.Stages[name] = append(rep.Stages[name], classify(p, caps[i], name, excl, replaced[p.Name], opts))
			placed = true
		}
		if !placed {
			rep.Other = append(rep.Other, OtherRow{Manifest: p.Path, Profile: p.Name, Family: p.Family, TaskString: p.TaskString,
				Reason: fmt.Sprintf("%s %q (%s: %v) is in no stage: none of %s",
					orField(p.TaskField), p.TaskString, caps[i].source, caps[i].native, capabilities())})
		}
	}
	for _, name := range stage.Names() {
		rows := rep.Stages[name]
		markCounted(rows)
		rows = append(rows, gaps(rows, name, opts)...)
		sortRows(rows)
		rep.Stages[name] = rows
	}
	// Clip limits are the transcription task's: the family's maximum clip and the profile's rate.
	rep.Limits = Limits(rep.Stages[stageWith(task.SpeechTranscription)], profilesByPath(profiles))
	sort.Slice(rep.Other, func(i, j int) bool { return rep.Other[i].Manifest < rep.Other[j].Manifest })
	return rep
}

// Discover returns one stage's rows, sorted by checkpoint and profile.
func Discover(paths []string, s stage.Name, opts Options) ([]evidence.InventoryRow, error) {
	return Scan(paths, opts).Stages[s], nil
}

// capabilityOf reads the family's own declaration (support.py, MODEL.toml) when the checkout
// has one, else asks the Capabilities callback.
func capabilityOf(p Profile, decl *declarations, opts Options) (capInfo, error) {
	if d := decl.of(p); d != nil {
		return capInfo{native: d.Native, controls: d.Controls, source: d.Source}, nil
	}
	if opts.Capabilities == nil {
		opts.Capabilities = ByTaskString
	}
	names, controls, err := opts.Capabilities(p.Family, p.TaskString)
	if err != nil {
		return capInfo{}, fmt.Errorf("capability of family %q: %w", p.Family, err)
	}
	c := capInfo{native: names, source: "task string"}
	if opts.Capabilities != nil && p.Layout == LayoutOther {
		c.source = "family registry"
	}
	for _, ctl := range controls {
		c.controls = append(c.controls, ctl.Name)
	}
	return c, nil
}

// membership decides whether a profile is in a stage's table (possibly as an excluded row).
// The profile's own task string says what it asks for; its family's declaration must
// implement it. A profile with no task string is placed by its family's declaration alone.
func membership(p Profile, c capInfo, want task.Name) (bool, string) {
	if want == task.TextToImage {
		if r := imageRelated(p.TaskString); r != "" {
			return true, r
		}
	}
	asked := nativeOf(p.TaskString)
	if asked == "" && p.TaskString == "" && c.has(want) {
		asked = want
	}
	if asked != want {
		return false, ""
	}
	return true, ""
}

// classify builds a stage member's row.
func classify(p Profile, c capInfo, name stage.Name, excl string, replaces []string, opts Options) evidence.InventoryRow {
	want := name.Capability()
	ckpt, rev := p.Checkpoint()
	row := evidence.InventoryRow{Stage: string(name), Checkpoint: ckpt, Revision: rev, Profile: p.Name, Family: p.Family, TaskString: p.TaskString,
		NativeTask: string(want), CapabilitySource: c.source, Layout: p.Layout, Controls: c.controls, Precision: p.Precision,
		Manifest: p.Path, Status: evidence.StatusPlanned, Statement: p.Statement}
	for _, tc := range p.Testcases {
		row.Testcases = append(row.Testcases, tc.Name)
	}
	if !c.has(want) && excl == "" {
		row.NativeTask = ""
		row.CapabilityGap = fmt.Sprintf("declares %q but the %s family implements %v (%s), not %s", p.TaskString, p.Family, c.native, c.source, want)
		row.Kind, row.Status, row.Reason = evidence.KindExcluded, evidence.StatusUnsupported, row.CapabilityGap
		return row
	}
	if excl == "" {
		excl = exclusion(p, want)
	}
	if excl != "" {
		row.Kind, row.Status, row.Reason = evidence.KindExcluded, evidence.StatusUnsupported, excl // the reason is the marking
		return row
	}
	row.Kind, row.Markings = kindOf(p, replaces)
	row.Notes = notesOf(p, want)
	if opts.PlannedReason != "" {
		row.Reason = opts.PlannedReason
	}
	if n, how := devices(p); n > 1 {
		row.GPUs = n
		row.Reason = fmt.Sprintf("planned: needs %d GPUs (%s); distributed profiles are not attempted: TRTMC's own build-by-profile refuses them as \"distributed\" (%s) and TRTMC runs them under mpirun on multi-GPU runners; no result is claimed", n, how, catalogOf(p))
	}
	return row
}

// catalogOf is the file, in the profile's own layout, where TRTMC's build-by-profile refuses a
// distributed profile: there is no apps/benchmark in the older layout.
func catalogOf(p Profile) string {
	if p.Layout == LayoutE2E {
		return "python/tensorrt_model_connect/benchmark/catalog.py @e9132e79"
	}
	return "apps/benchmark/trtmc_benchmark/catalog.py @0dd9052f"
}

// devices is how many GPUs a profile needs and where the manifest says so: the older layout's
// distributed_runtime.world_size (the ranks TRTMC's e2e harness starts with mpirun) when
// declared, else tensor_parallel_size × context_parallel_size (families/whisper/tests/test_e2e.py
// runs tp > 1 under mpirun -np tp); ci_tier multi_device alone means at least 2.
func devices(p Profile) (int, string) {
	tp, cp := max(1, p.TensorParallel), max(1, p.ContextParallel)
	switch {
	case p.WorldSize > 1:
		return p.WorldSize, fmt.Sprintf("distributed_runtime.world_size=%d", p.WorldSize)
	case tp*cp > 1:
		return tp * cp, fmt.Sprintf("tensor_parallel_size=%d × context_parallel_size=%d", tp, cp)
	case p.CITier == "multi_device":
		return 2, "ci_tier: multi_device, no size declared: at least 2"
	}
	return 1, ""
}

// exclusion names why a profile that shares the image task string is not text-to-image: a
// video generator or an image editor, by any of the spellings TRTMC uses.
func exclusion(p Profile, want task.Name) string {
	if want != task.TextToImage {
		return ""
	}
	switch {
	case p.VideoFrames > 1:
		return fmt.Sprintf("video generator (video_num_frames=%d at %s), not text-to-image", p.VideoFrames, p.VideoFramesAt)
	case has(p.UserContracts, "diffusion_video") != "":
		return "video generator (user_contract: diffusion_video), not text-to-image"
	case has(p.RefFamilies, "diffusers_video_gen") != "":
		return "video generator (reference_family: diffusers_video_gen), not text-to-image"
	case has(p.TaskModes, "edit") != "":
		return "image editing (task_mode: edit), not text-to-image"
	case has(p.UserContracts, "image-to-image") != "":
		return "image editing (user_contract: image-to-image), not text-to-image"
	case p.TestImage != "":
		return fmt.Sprintf("image editing (testcase %s takes an input image), not text-to-image", p.TestImage)
	}
	return ""
}

var (
	reL0    = regexp.MustCompile(`(^|-)l0($|-)`)
	reQuant = regexp.MustCompile(`(^|-)(fp8|int8|int4|nvfp4|fp4|w4a16|w8a8)($|-)`)
	reBatch = regexp.MustCompile(`(^|-)batch\d+($|-)`)
)

// kindOf reads TRTMC's profile markings in both layouts. premerge alone never makes a profile
// reduced, and ci_tier nightly_only is a normal profile on the nightly tier.
func kindOf(p Profile, replaces []string) (evidence.Kind, []string) {
	var reduced, variant []string
	name := strings.ToLower(p.Name)
	if reL0.MatchString(name) {
		reduced = append(reduced, "name marks an L0 profile")
	}
	if p.CITier == "l0_only" {
		reduced = append(reduced, "ci_tier: l0_only")
	}
	if p.L0Replacement {
		reduced = append(reduced, "l0_replacement: true")
	}
	if len(replaces) > 0 {
		reduced = append(reduced, "stands in on CI for "+strings.Join(replaces, ", ")+" (their l0_replacement)")
	}
	if p.AccuracySource == "none" {
		reduced = append(reduced, "accuracy_source: none (random weights)")
	}
	if p.VariantOf != "" {
		variant = append(variant, "variant_of: "+p.VariantOf)
	}
	if p.TensorParallel > 1 {
		variant = append(variant, fmt.Sprintf("tensor_parallel_size=%d (distributed)", p.TensorParallel))
	}
	if p.ContextParallel > 1 {
		variant = append(variant, fmt.Sprintf("context_parallel_size=%d (distributed)", p.ContextParallel))
	}
	if p.CITier == "multi_device" {
		variant = append(variant, "ci_tier: multi_device (distributed)")
	}
	if p.WorldSize > 1 && p.TensorParallel <= 1 && p.ContextParallel <= 1 {
		variant = append(variant, fmt.Sprintf("distributed_runtime.world_size=%d (distributed)", p.WorldSize))
	}
	switch q := strings.ToLower(p.Quantization); {
	case q != "" && q != "none":
		variant = append(variant, "quantization: "+p.Quantization)
	case p.FP8Scales:
		variant = append(variant, "fp8_scales (fp8 precision variant)")
	case reQuant.MatchString(name):
		variant = append(variant, "name marks a quantized variant ("+reQuant.FindStringSubmatch(name)[2]+")")
	}
	batchTask := strings.Contains(strings.ToLower(p.TaskString), "batch")
	if batchTask {
		variant = append(variant, "batch task "+p.TaskString)
	}
	if p.MaxBatchSize > 1 { // the manifest says so (flux-schnell-l0-batch2 @e9132e79: "max_batch_size": 2)
		variant = append(variant, fmt.Sprintf("max_batch_size: %d (a batch profile)", p.MaxBatchSize))
	} else if !batchTask && reBatch.MatchString(name) {
		variant = append(variant, "name marks a batch profile")
	}
	switch {
	case len(reduced) > 0:
		return evidence.KindReduced, append(reduced, variant...)
	case len(variant) > 0:
		return evidence.KindVariant, variant
	}
	return evidence.KindFull, nil
}

// notesOf explains inclusions a reader might question.
func notesOf(p Profile, want task.Name) []string {
	var notes []string
	if p.BundleMode != "" {
		notes = append(notes, fmt.Sprintf("declares bundle mode %q; included because its family implements %s", p.BundleMode, want))
	}
	if l := strings.ToLower(p.TaskString + " " + p.RuntimeStrategy + " " + p.Family); strings.Contains(l, "streaming") && want == task.SpeechTranscription {
		notes = append(notes, "declares a streaming task/runtime; included because its family implements whole-clip transcription")
	}
	if p.CITier == "nightly_only" {
		notes = append(notes, "ci_tier: nightly_only (a normal profile on the nightly tier)")
	}
	if p.L0ReplacedBy != "" && p.L0ReplacedBy != p.Name {
		notes = append(notes, "CI runs "+p.L0ReplacedBy+" in its place (l0_replacement)")
	}
	return notes
}

// replacedBy maps a profile name to the other profiles whose l0_replacement names it.
func replacedBy(profiles []Profile) map[string][]string {
	out := map[string][]string{}
	for _, p := range profiles {
		if p.L0ReplacedBy != "" && p.L0ReplacedBy != p.Name {
			out[p.L0ReplacedBy] = append(out[p.L0ReplacedBy], p.Name)
		}
	}
	return out
}

// groupKey is a row's checkpoint: hf_id@hf_revision. A manifest that pins no revision joins
// the one pinned revision its siblings agree on (it names the same model, just unpinned).
func groupKeys(rows []evidence.InventoryRow) []string {
	pinned := map[string]map[string]bool{}
	for _, r := range rows {
		if r.Revision != "" {
			if pinned[r.Checkpoint] == nil {
				pinned[r.Checkpoint] = map[string]bool{}
			}
			pinned[r.Checkpoint][r.Revision] = true
		}
	}
	keys := make([]string, len(rows))
	for i, r := range rows {
		rev := r.Revision
		if revs := pinned[r.Checkpoint]; rev == "" && len(revs) == 1 {
			for only := range revs {
				rev = only
			}
		}
		keys[i] = r.Checkpoint + "@" + rev
	}
	return keys
}

// markCounted counts exactly one full profile per checkpoint; a second full profile of the same
// checkpoint is listed but not counted, with the reason.
func markCounted(rows []evidence.InventoryRow) {
	keys := groupKeys(rows)
	first := map[string]string{}
	for _, i := range order(rows) {
		r := &rows[i]
		if r.Kind != evidence.KindFull {
			continue
		}
		if prev, dup := first[keys[i]]; dup {
			r.Kind = evidence.KindVariant
			r.Markings = append(r.Markings, "second full profile of "+keys[i]+" (counted: "+prev+")")
			continue
		}
		first[keys[i]] = r.Profile
		r.Counted = true
	}
}

// order visits rows by profile name so that which duplicate counts is deterministic.
func order(rows []evidence.InventoryRow) []int {
	idx := make([]int, len(rows))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return rows[idx[a]].Profile < rows[idx[b]].Profile })
	return idx
}

// gaps adds a row for every checkpoint of the group that has reduced or variant profiles but
// no full-model profile: it cannot be qualified, and that must be visible, not an omission.
func gaps(rows []evidence.InventoryRow, s stage.Name, opts Options) []evidence.InventoryRow {
	keys := groupKeys(rows)
	type group struct {
		full     bool
		profiles []string
		first    evidence.InventoryRow
	}
	groups := map[string]*group{}
	var order []string
	for i, r := range rows {
		if r.Kind == evidence.KindExcluded {
			continue
		}
		g, ok := groups[keys[i]]
		if !ok {
			g = &group{first: r}
			groups[keys[i]] = g
			order = append(order, keys[i])
		}
		g.full = g.full || r.Kind == evidence.KindFull
		g.profiles = append(g.profiles, r.Profile)
	}
	var out []evidence.InventoryRow
	for _, k := range order {
		g := groups[k]
		if g.full {
			continue
		}
		sort.Strings(g.profiles)
		out = append(out, evidence.InventoryRow{Stage: string(s), Checkpoint: g.first.Checkpoint, Revision: g.first.Revision, Profile: "gap:" + g.first.Checkpoint,
			Family: g.first.Family, TaskString: g.first.TaskString, NativeTask: g.first.NativeTask, Layout: g.first.Layout, Kind: evidence.KindGap,
			Status: evidence.StatusUnsupported, Reason: fmt.Sprintf("gap: checkpoint %s has only reduced/variant profiles (%s); no full-model profile to qualify",
				k, strings.Join(g.profiles, ", "))})
	}
	return out
}

func sortRows(rows []evidence.InventoryRow) {
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].Checkpoint != rows[j].Checkpoint {
			return rows[i].Checkpoint < rows[j].Checkpoint
		}
		return rows[i].Profile < rows[j].Profile
	})
}

// ByTaskString is the capability source for targets whose families declare nothing readable:
// a family implements what its manifest's task string names.
func ByTaskString(_ string, taskString string) ([]task.Name, []task.Control, error) {
	if t := nativeOf(taskString); t != "" {
		return []task.Name{t}, nil, nil
	}
	return nil, nil, nil
}

// Counted returns the rows that count as models.
func Counted(rows []evidence.InventoryRow) []evidence.InventoryRow {
	var out []evidence.InventoryRow
	for _, r := range rows {
		if r.Counted {
			out = append(out, r)
		}
	}
	return out
}

// Relative shortens manifest paths for display.
func Relative(rows []evidence.InventoryRow, root string) {
	for i := range rows {
		if rows[i].Manifest == "" {
			continue
		}
		if rel, err := filepath.Rel(root, rows[i].Manifest); err == nil {
			rows[i].Manifest = rel
		}
	}
}

func orField(f string) string {
	if f == "" {
		return "task"
	}
	return f
}

func sorted(s []string) []string {
	sort.Strings(s)
	return s
}

func profilesByPath(ps []Profile) map[string]Profile {
	out := make(map[string]Profile, len(ps))
	for _, p := range ps {
		out[p.Path] = p
	}
	return out
}

// StatusRunnable is the inventory's word, before any run, for a row this machine can run. A run's
// evidence starts such a row at planned on the ladder until it records the row's result; the
// inventory keeps "planned" for its one meaning: the row cannot run here (no target stack, a
// distributed profile), with the reason.
const StatusRunnable evidence.Status = "runnable"

// MarkRunnable gives StatusRunnable to the rows a run here would give a result: planned, with no
// reason they cannot run.
func MarkRunnable(rows []evidence.InventoryRow) {
	for i, r := range rows {
		if r.Status == evidence.StatusPlanned && r.Reason == "" && r.GPUs <= 1 {
			rows[i].Status = StatusRunnable
		}
	}
}
