// Package evidence is what a qualification publishes: one stage.json per stage written by its
// suite, merged into a schema-versioned evidence.json and a qualification.md a reviewer reads,
// beside the AIPerf artifact directories, server records and latency plots. Verify re-checks a
// published directory offline, like MLPerf's submission checker.
package evidence

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
)

// SchemaVersion of evidence.json and stage.json. It changes when a recorded field's meaning
// does, so that older runs are refused by name ("schema 1, this qual reads 2") rather than
// failing later as a confusing mismatch. 2: task.Audio.SHA256 (records' input_sha256, the
// workload's AudioSHA) hashes a clip whose samples are all 16-bit values as its PCM16 bytes
// ("pcm-s16le:..."); schema 1 hashed every clip's float32 samples ("pcm-f32le:..."). 3: a gate
// item's comparison output is "expected" and the upstream figures are "wer_vs_upstream" and
// "upstream_mismatches"; schema 2 called all three "reference", which also names the target.
// 4: records' input_sha256 of images and audio questions is over length-framed fields
// (task.FieldsSHA256); schema 3 joined them with NUL bytes, which a prompt holding a NUL could
// shift from one field to the next.
// Also 4: no_caching's shift_fraction and its interval are the paired ratio repeat/fresh − 1 (Wilcoxon
// signed-rank, 98%) with its pair count; schema 3 kept an unpaired shift over the fresh median
// (Mann–Whitney, 95%) and that shift in ms (shift_ms, shift_ci_ms).
// 5: a row records no plot or timelines (its pictures are drawn from its exports and records by
// harness/report/chart, and verify draws them again); schema 4 stored picture files.
// 6: the reports and pictures are drawn as this qual draws them (latency pictures 560 wide, notes
// under the tables that mark a figure inconclusive or show accuracy). A run's renderings are part
// of its schema because verify draws them again and compares bytes: harness/report's
// TestRenderingsChangeOnlyWithTheSchema fails when they change while this number does not.
// 7: a stage records when it started and finished (a paired comparison checks its runs took
// turns) and the AIPerf counts the run lowered below the target's (selection.reduced_load: the
// verdict then says REDUCED LOAD — not a qualification); a tail's order-statistic interval is
// widened to hold its estimate; the reports mark a one-run row's figures "1 run: no interval"
// and a tail no sample bounds "n too small"; JUnit carries the scope and each tail's n and bounds.
// 8: the reports of a run that is no qualification (smoke, focus, shard, reduced load) give each
// stage and row that word beside its status ("SMOKE — not a qualification (selected rows:
// QUALIFIED)"), never a bare QUALIFIED; nothing new is stored, but verify draws them again.
// 9: a row's repeated statistics keep no tails (repeated.tails held a second, one-sided rule for
// p95/p99 that called the p95 the reports show "not reportable"; timing.figures' order interval
// is the one tail); a figure over runs that cannot be negative has its interval cut at 0.
// 10: the reports' note on an inconclusive mean says compare's speedup is of each run's Task p50.
// 11: singulars: "the 1 counted checkpoint aiperf-qualified", "its one AIPerf run".
// 12: words for identifiers a reader read: accuracy figures by their names ("gold WER"), the
// figures table's pooled p50s and per-request p50 of (client − Task) said as such, the latency
// pictures' legends without the exports' field names.
// 13: summary.json words each stage's and row's status in the run's scope ("words"), as the
// reports do; summary.json's bytes are pinned with the renderings from now on.
// 14: a mean over runs whose interval was cut at 0 reads "mean (95%: [0, u])" in the reports,
// not "mean ± h" reaching below 0.
// 15: no_caching records first_sight_task_ms (the server's first request of the input) and its
// native floor fails a row only under half of both that and the native run.
// 16: summary.json (its schema 2) carries each row's p99s and accuracy figures with their
// intervals; a selected row that left no result records failed "not run: …", never "not selected".
const SchemaVersion = 16

// Evidence is one run.
type Evidence struct {
	SchemaVersion int               `json:"schema_version"`
	RunID         string            `json:"run_id"`
	Target        string            `json:"target"`
	TargetKind    string            `json:"target_kind"`
	Versions      map[string]string `json:"versions"`
	Hardware      Hardware          `json:"hardware"`
	Stages        []Stage           `json:"stages"`
}

// Hardware is where the run happened.
type Hardware struct {
	CPU      string  `json:"cpu"`
	CPUFlags string  `json:"cpu_flags,omitempty"` // /proc/cpuinfo's flags: which kernels (AVX2, AVX-512...) the CPU can run
	Cores    int     `json:"cores"`
	MemoryGB float64 `json:"memory_gb"`
	GPU      string  `json:"gpu"`
	Host     string  `json:"host"`
}

// Stage is one stage's outcome.
type Stage struct {
	SchemaVersion int               `json:"schema_version"`
	Stage         string            `json:"stage"`
	Number        int               `json:"number"`
	Status        Status            `json:"status"` // qualified | failed | blocked | planned
	Reason        string            `json:"reason,omitempty"`
	Inventory     []InventoryRow    `json:"inventory"`
	Audit         []AuditRow        `json:"audit,omitempty"`
	Probe         *Probe            `json:"probe,omitempty"`
	Results       []Result          `json:"results"`
	Versions      map[string]string `json:"versions"`
	Hardware      Hardware          `json:"hardware"`
	Target        string            `json:"target"`
	TargetKind    string            `json:"target_kind"`
	Settings      map[string]any    `json:"settings"`
	// Selection is the target's rows of this stage and how this run narrowed them (nil in
	// evidence written before it was recorded: the inventory stands for the target's rows).
	Selection *Selection `json:"selection,omitempty"`
	// Started and Finished are when the suite began the stage and when it wrote its evidence
	// (UTC): the run's place in time, by which a paired comparison checks that its runs took
	// turns (RunWindow).
	Started  time.Time `json:"started,omitzero"`
	Finished time.Time `json:"finished,omitzero"`
}

// Probe is a request that proves a refusal (stage 9: audio to a model without the capability).
type Probe struct {
	Model     string `json:"model"`
	Route     string `json:"route"`
	Status    int    `json:"status"`
	ErrorCode string `json:"error_code"`
	Message   string `json:"message"`
	RequestID string `json:"request_id"`
	Recorded  bool   `json:"recorded"` // the server's records hold the refusal
	Passed    bool   `json:"passed"`
	// The refusal the target's server documents (target.Traits.Refusal) and the id the probe sent:
	// qual verify re-judges the answer against it.
	Expected string `json:"expected,omitempty"`
	SentID   string `json:"sent_request_id,omitempty"`
	Planned  string `json:"planned,omitempty"` // why the probe could not run on this machine
}

// Bundle is the served artifact's identity at each point it was checked.
type Bundle struct {
	Path         string         `json:"path"`
	Bytes        int64          `json:"bytes"`
	SHA256Built  string         `json:"sha256_built"`
	SHA256Gated  string         `json:"sha256_gated"`
	SHA256Served string         `json:"sha256_served"`
	SHA256After  string         `json:"sha256_after"`
	Header       map[string]any `json:"header"`
	// BuiltBy says which build produced the bundle of record (the served file): the build
	// command's, or the family gate's own (a TRTMC target whose gate builds what it validates).
	BuiltBy string `json:"built_by,omitempty"`
}

// Dataset identifies the pinned inputs.
type Dataset struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Items  int    `json:"items"`
	Note   string `json:"note,omitempty"` // e.g. a TRTMC testcase's own clip has no gold transcript
}

// AIPerfRun is the client side.
type AIPerfRun struct {
	Version     string   `json:"version"`
	Command     []string `json:"command"`
	ExitCode    int      `json:"exit_code"`
	Dir         string   `json:"dir"` // relative to the run directory
	Warmup      int      `json:"warmup"`
	Requests    int      `json:"requests"`
	Concurrency int      `json:"concurrency"`
	Endpoint    string   `json:"endpoint_type"`
	Runs        int      `json:"runs,omitempty"` // AIPerf multi-run: artifacts/profile_runs/run_NNNN (statistics over runs)
}

// Identity is the native/HTTP comparison.
type Identity struct {
	Requests   int      `json:"requests"`
	NativeRuns int      `json:"native_runs"`
	Equal      int      `json:"equal"`
	Mismatches []string `json:"mismatches,omitempty"`
	Rule       string   `json:"rule"`
}

// Meaning is the check that outputs are meaningful, not only identical.
type Meaning struct {
	Checks   map[string]float64 `json:"checks"`
	Failures []string           `json:"failures,omitempty"`
	Rule     string             `json:"rule"`
	// NoBound names each bound the rule would apply but the target declares none of (no
	// thresholds file, or no such key in it): recorded, not failed, and not checked.
	NoBound []string `json:"no_bound_declared,omitempty"`
}

// Served is what a TRTMC-kind server reported at /v1/serving/info, beside what the harness
// checked it against, and the one configuration both sides of the identity check ran with.
type Served struct {
	Bundle      string         `json:"bundle"`       // info.bundle: the path the harness mounted
	Task        string         `json:"task"`         // info.task
	Family      string         `json:"family"`       // info.family
	Profile     string         `json:"profile"`      // info.profile
	Testcase    string         `json:"testcase"`     // info.testcase
	TimingScope string         `json:"timing_scope"` // info.timing_scope: what model_call_ms measures
	LoadMS      float64        `json:"load_ms"`      // info.load_ms: the worker's bundle load, outside steady state
	BaseRequest map[string]any `json:"base_request"` // info.base_request: what every HTTP request starts from
	// HTTP and Native are the settings each side of the identity check ran with, side by side:
	// what the HTTP requests added to the base request, and the native run's flag values, both
	// derived from BaseRequest.
	HTTP   map[string]string `json:"http"`
	Native map[string]string `json:"native"`
}

// Output is one request's stored output, for offline re-checks.
type Output struct {
	RequestID  string `json:"request_id"`
	Phase      string `json:"phase"`
	InputID    string `json:"input_id"`
	HTTPOutput string `json:"http_output"` // transcript, or image pixel sha256
	Native     string `json:"native_output"`
	Gold       string `json:"gold,omitempty"`
}

// Scratch is the server's scratch directory: its path in the container, which file:// answers
// name, and where the run keeps its contents (relative to the run directory).
type Scratch struct {
	Container string `json:"container"`
	Dir       string `json:"dir"`
}

// Result is one checkpoint's row.
type Result struct {
	Profile       string         `json:"profile"`
	Checkpoint    string         `json:"checkpoint"`
	Revision      string         `json:"revision"`
	Kind          Kind           `json:"kind"`
	Counted       bool           `json:"counted"`
	Status        Status         `json:"status"`
	Failures      []string       `json:"failures,omitempty"`
	Statement     string         `json:"statement,omitempty"`
	Controls      []string       `json:"controls,omitempty"` // the Task's declared controls
	Bundle        Bundle         `json:"bundle"`
	Gate          *GateResult    `json:"gate,omitempty"`
	ThresholdPin  string         `json:"threshold_pin,omitempty"`
	Dataset       Dataset        `json:"dataset"`
	Endpoint      string         `json:"endpoint,omitempty"`
	Precision     string         `json:"effective_precision"`
	GPU           string         `json:"gpu"`
	Settings      map[string]any `json:"settings,omitempty"`
	AIPerf        *AIPerfRun     `json:"aiperf,omitempty"`
	Join          *Join          `json:"join,omitempty"`
	Identity      *Identity      `json:"identity,omitempty"`
	Meaning       *Meaning       `json:"meaning,omitempty"`
	Timing        *Timing        `json:"timing,omitempty"`
	Outputs       []Output       `json:"outputs,omitempty"`
	Records       string         `json:"records,omitempty"` // server records file, relative
	Served        *Served        `json:"served,omitempty"`  // what a TRTMC-kind server said it serves
	Scratch       *Scratch       `json:"scratch,omitempty"` // the server's kept artifacts (TRTMC answers images as file:// URLs into it)
	NoCache       *NoCache       `json:"no_caching,omitempty"`
	Cost          *Cost          `json:"cost,omitempty"`           // the harness's own cost of the row (harness/cost)
	ServerMetrics []string       `json:"server_metrics,omitempty"` // AIPerf\'s server-metrics exports (a scrape of the server\'s /metrics), one per run, relative
	Commands      [][]string     `json:"commands"`
	Reproduce     string         `json:"reproduce"`
	// Statistics (harness/stats): per-run figures with their intervals over runs (the tails are
	// Timing's, with their order-statistic intervals); the gate's corpus figures with bootstrap
	// intervals.
	Repeated *Repeated  `json:"repeated,omitempty"`
	Accuracy []Accuracy `json:"accuracy,omitempty"`
	// Clip limits (skipped.go): the limits the inputs were admitted under and every
	// pinned input not sent because it breaks them.
	Limits  *InputLimits   `json:"input_limits,omitempty"`
	Skipped []SkippedInput `json:"skipped_inputs,omitempty"`
}

// WriteJSON writes v as indented JSON, creating directories.
func WriteJSON(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	data, err := EncodeJSON(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return os.WriteFile(path, data, 0o644)
}

// EncodeJSON is the evidence's one encoding (WriteJSON's bytes); qual verify requires every
// evidence file to equal its own re-encoding.
func EncodeJSON(v any) ([]byte, error) {
	data, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// ReadStage reads a stage.json.
func ReadStage(path string) (Stage, error) {
	var s Stage
	data, err := runfile.Read(path, runfile.Evidence)
	if err != nil {
		return s, fmt.Errorf("read stage evidence: %w", err)
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return s, fmt.Errorf("stage evidence %s: %w", path, err)
	}
	if s.SchemaVersion != SchemaVersion {
		return s, &SchemaError{File: path, Got: s.SchemaVersion, MadeBy: s.Versions["trtmc-qual"]}
	}
	return s, nil
}

// Read reads evidence.json.
func Read(runDir string) (Evidence, error) {
	var e Evidence
	data, err := runfile.Read(filepath.Join(runDir, "evidence.json"), runfile.Evidence)
	if err != nil {
		return e, fmt.Errorf("read evidence: %w", err)
	}
	if err := json.Unmarshal(data, &e); err != nil {
		return e, fmt.Errorf("evidence.json: %w", err)
	}
	if e.SchemaVersion != SchemaVersion {
		return e, &SchemaError{File: "evidence.json", Got: e.SchemaVersion, MadeBy: e.Versions["trtmc-qual"]}
	}
	return e, nil
}

// SchemaError is a run written in another evidence schema than this qual reads: not a defect of
// the run, which the qual of the commit that made it reads.
type SchemaError struct {
	File   string
	Got    int
	MadeBy string // the run's recorded trtmc-qual commit, "" when it records none
}

func (e *SchemaError) Error() string {
	how := "with the qual of the commit that made it"
	if e.MadeBy != "" {
		how = fmt.Sprintf("with the qual of trtmc-qual %s, the commit that made it (git checkout %s && make bin)", e.MadeBy, strings.TrimSuffix(e.MadeBy, "-dirty"))
	}
	return fmt.Sprintf("%s has evidence schema %d, this qual reads %d: read it %s", e.File, e.Got, SchemaVersion, how)
}

// Assemble merges every <stage>/stage.json under runDir into evidence.json (harness/report
// renders it).
func Assemble(runDir string) (Evidence, error) {
	e, err := Collect(runDir)
	if err != nil {
		return e, err
	}
	return e, WriteJSON(filepath.Join(runDir, "evidence.json"), e)
}

// Collect merges the stages' evidence without writing anything. The run id is the one an
// earlier evidence.json recorded (a copied or renamed run keeps its id, so its signature and
// its reports still agree), else the directory's name.
func Collect(runDir string) (Evidence, error) {
	paths, err := filepath.Glob(filepath.Join(runDir, "*", "stage.json"))
	if err != nil {
		return Evidence{}, err
	}
	if len(paths) == 0 {
		return Evidence{}, fmt.Errorf("no stage evidence under %s (did the suites run?)", runDir)
	}
	e := Evidence{SchemaVersion: SchemaVersion, RunID: recordedRunID(runDir)}
	for _, p := range paths {
		s, err := ReadStage(p)
		if err != nil {
			return e, err
		}
		e.Stages = append(e.Stages, s)
		// A stage the run did not select ran on no machine: the run's target, versions and
		// hardware are those of a stage that ran.
		if ran(s) || e.Target == "" {
			e.Target, e.TargetKind, e.Versions, e.Hardware = s.Target, s.TargetKind, s.Versions, s.Hardware
		}
	}
	sort.Slice(e.Stages, func(i, j int) bool { return e.Stages[i].Number < e.Stages[j].Number })
	if _, recorded := e.Versions[BuildTagsKey]; recorded {
		e.Versions = maps.Clone(e.Versions)
		e.Versions[BuildTagsKey] = mergeBuildTags(e.Stages)
	}
	return e, nil
}

// recordedRunID is the run id of runDir's evidence.json, or the directory's name when there is
// none yet.
func recordedRunID(runDir string) string {
	if prev, err := Read(runDir); err == nil && prev.RunID != "" {
		return prev.RunID
	}
	return filepath.Base(runDir)
}

// RelPath is path as the evidence records it: relative to root (the run directory, the
// repository) when it can be, else as given.
func RelPath(root, path string) string {
	if rel, err := filepath.Rel(root, path); err == nil {
		return rel
	}
	return path
}
