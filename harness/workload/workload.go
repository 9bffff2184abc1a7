// Package workload is the harness twin of native/family: one Workload per stage, holding
// everything that differs between stages — the pinned inputs and their dataset, the route and
// AIPerf endpoint type, how the HTTP output is read and compared, the native run's arguments,
// the meaning check and the stage's timing figures. The checkpoint flow, the suites and the
// offline verifier ask the registry instead of switching on a stage name.
//
// Adding a stage is its line in harness/stage (name, number, title, capability), one new file
// here (its Workload) and one line in All. What every stage must say is in the Workload (the
// compiler checks it); what only some stages do, with a defined fallback where one does not, is
// an optional interface (optional.go), found by type assertion as database/sql finds a driver's
// extras.
//
// It links no container code and no cgo, so the offline verifier can use it.
package workload

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
)

// Workload is what one stage does differently from the others.
type Workload interface {
	// Stage is the workload's stage; its number, title and capability are in harness/stage.
	Stage() stage.Name
	// Route is the serving route the workload's requests go to.
	Route() string
	// EndpointType is AIPerf 0.13.0's --endpoint-type for the route.
	EndpointType() string
	// IdentityRule says what "native output equals HTTP output" means for this stage.
	IdentityRule() string
	// Inputs reads the testcase's inputs — its pinned dataset (repo-relative path under root), or
	// what the testcase carries itself where the stage allows it (TRTMC's test_prompt) — and
	// writes the files the server container needs under dir.
	Inputs(root string, m manifest.Manifest, tc manifest.Testcase, dir string) ([]Input, error)
	// AIPerf turns the inputs into AIPerf's single_turn rows, the files those rows name, and
	// the fixed --extra-inputs (from the manifest's build and the testcase's settings).
	AIPerf(inputs []Input, m manifest.Manifest, tc manifest.Testcase) (Load, error)
	// Request reads one joined request: which pinned input it sent, its HTTP output (checked
	// against the server record) and the values of the target's native_run placeholders.
	Request(p join.Pair, inputs []Input) (Request, error)
	// HTTPOutput re-derives the comparable HTTP output of a request from the stored AIPerf
	// response and server record alone (qual verify calls it offline).
	HTTPOutput(p join.Pair) (string, error)
	// NativeOutput reads the comparable output from a native run's printed JSON.
	NativeOutput(stdout string) (string, error)
	// Meaning checks that the outputs are meaningful within the family's thresholds, not only
	// identical; failures are listed in the returned Meaning.
	Meaning(th manifest.Thresholds, outputs []evidence.Output, pairs []join.Pair) (evidence.Meaning, error)
	// PlannedNative is what the native run would be given for one input under load l, before
	// any request is sent (qual plan): the values Request reads back from the sent request.
	PlannedNative(in Input, l Load) (map[string]string, error)
	// Figures names the stage's throughput figures in the timing summary, for the report.
	Figures() []string

	// FreshVariant is the i-th fresh input of equal cost (i from 0) of a payload as AIPerf sent
	// it (fresh.go); variants with different i differ from each other and from the payload.
	FreshVariant(payload map[string]any, i int) (map[string]any, error)
	// VariantRule says how a fresh variant differs from its input, for the evidence.
	VariantRule() string

	// GateFigures derives the family gate's figures from its stored outputs, the row's served
	// outputs and the pins (harness/claim's gate claim; a stored figure the derivation agrees with
	// within rounding kept as stored), the failures of those figures against the pinned
	// thresholds, and every stored expected or served output that is not the pins' or the gate's.
	GateFigures(in GateInputs) (figures map[string]float64, fails []string, found []Finding)
	// CheckStoredInputs ties the row's stored inputs (beside its server records) and AIPerf's
	// inputs.json to the pinned inputs, for a row that ran AIPerf (qual verify).
	CheckStoredInputs(in StoredInputs) []Finding
	// InputSHA prepares the derivation of a request's input identity (a server record's
	// input_sha256) from the payload AIPerf sent; it calls defaults only when its payloads need
	// the family's defaults, and returns its error as is.
	InputSHA(defaults ImageDefaults) (func(payload map[string]any) (string, error), error)
}

// All is the registry: every stage, in plan order. A new stage adds one line here.
func All() []Workload {
	return []Workload{asr{}, t2i{}, audioQA{}}
}

// ArtifactReader reads a file a server answered as a file:// URL (TRTMC's image responses).
type ArtifactReader func(url string) ([]byte, error)

// WithArtifacts returns w reading file:// answers through read; a workload whose answers are
// always inline is returned as is.
func WithArtifacts(w Workload, read ArtifactReader) Workload {
	if t, ok := w.(t2i); ok {
		t.artifacts = read
		return t
	}
	return w
}

// ScratchReader reads file:// URLs under the server's scratch directory (container path) from
// hostDir (or a worker's artifact named relative to it: contract.WorkerArtifactPrefix), where that directory is mounted or stored; any other path, or one that leaves it,
// is an error naming the URL.
func ScratchReader(container, hostDir string) ArtifactReader {
	return func(url string) ([]byte, error) {
		if rel, worker := strings.CutPrefix(url, contract.WorkerArtifactPrefix); worker { // <request id>/<file>
			url = "file://" + strings.TrimSuffix(container, "/") + "/" + rel
		}
		p, ok := strings.CutPrefix(url, "file://")
		rel, under := strings.CutPrefix(path.Clean(p), strings.TrimSuffix(container, "/")+"/")
		if !ok || !under || container == "" || rel == "" || strings.HasPrefix(rel, "../") || path.IsAbs(rel) {
			return nil, fmt.Errorf("artifact url %q is not under the server's scratch directory %s", url, container)
		}
		data, err := runfile.ReadIn(hostDir, rel)
		if err != nil {
			return nil, fmt.Errorf("artifact %s: %w", url, err)
		}
		return data, nil
	}
}

// Get returns the workload of a stage named by a string (a recorded or typed name): the name is
// parsed here, once; an unknown name is an error listing the known ones.
func Get(name string) (Workload, error) {
	s, err := stage.Get(name)
	if err != nil {
		return nil, err
	}
	return Of(s.Name)
}

// Of returns a stage's workload.
func Of(s stage.Name) (Workload, error) {
	for _, w := range All() {
		if w.Stage() == s {
			return w, nil
		}
	}
	return nil, fmt.Errorf("stage %q has no workload registered in workload.All", s)
}

// Input is one pinned input, on the host and, when the server container needs the file, in it.
type Input struct {
	ID            string
	HostPath      string // a file copied into the server container ("" when none)
	ContainerPath string
	Gold          string // the human transcript (ASR) or answer (audio QA): the gold text
	Seconds       float64
	SampleRate    int    // an audio input's decoded rate (0: not checked against the family's limits)
	AudioSHA      string // task.Audio.SHA256 of the decoded clip
	Prompt        dataset.Prompt
	Question      string
}

// Load is what AIPerf is given.
type Load struct {
	Rows        []map[string]any  // single_turn JSONL rows
	Media       map[string]string // container path -> host path, for files the rows name
	ExtraInputs map[string]any
}

// Request is one joined request as the workload reads it.
type Request struct {
	Key    string            // requests with the same key have the same native output
	Input  string            // the pinned input's id ("" when the request matches none)
	Gold   string            // the input's gold text, for the meaning check
	Output string            // the HTTP output in comparable form
	Native map[string]string // native_run placeholder values, bundle excepted
}

// nativeJSON is the JSON object a native run prints last; anything before its first "{" (a
// banner, a warning) is skipped, and output without one is an error, never a panic.
func nativeJSON(stdout string, v any) error {
	i := strings.Index(stdout, "{")
	if i < 0 {
		return fmt.Errorf("native run printed no JSON object: %q", Tail(stdout))
	}
	if err := json.Unmarshal([]byte(stdout[i:]), v); err != nil {
		return fmt.Errorf("native run output %q: %w", Tail(stdout), err)
	}
	return nil
}

// nativeText is the "text" a native run prints (a transcript, an answer).
func nativeText(stdout string) (string, error) {
	var res struct {
		Text *string `json:"text"`
	}
	if err := nativeJSON(stdout, &res); err != nil {
		return "", err
	}
	if res.Text == nil {
		return "", fmt.Errorf("native run printed no text: %s", Tail(stdout))
	}
	return *res.Text, nil
}

// Tail is the end of a program's output for an error message: its last 3000 characters.
func Tail(s string) string {
	if len(s) > 3000 {
		return "…" + s[len(s)-3000:]
	}
	return s
}

// checkRecord is the common check of a response against the server record.
func checkRecord(p join.Pair) error {
	if p.Server.Output == nil {
		return fmt.Errorf("server record %s holds no output (status %d)", p.ID, p.Server.Status)
	}
	return nil
}
