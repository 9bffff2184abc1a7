package claim

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
)

// publishedRun is a real published run (QUAL_TEST_RUN, the run `make test` makes first, as harness/verify
// reads it); it is only read.
func publishedRun(t *testing.T) (string, evidence.Evidence) {
	dir := os.Getenv("QUAL_TEST_RUN")
	if dir == "" {
		t.Skip("QUAL_TEST_RUN names no published run (make test sets it; make test-run makes one)")
	}
	e, err := evidence.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, e
}

// servedRows are the run's rows that served AIPerf's requests, each with its artifacts loaded as
// the suite and verify load them.
func servedRows(t *testing.T) map[string]*Artifacts {
	dir, e := publishedRun(t)
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	rows := map[string]*Artifacts{}
	for _, s := range e.Stages {
		for _, r := range s.Results {
			if !served(r) {
				continue
			}
			rows[s.Stage+"/"+r.Profile] = Load(dir, r, stageGiven(t, root, dir, s.Stage, r))
		}
	}
	if len(rows) == 0 {
		t.Fatal("the published run has no served row")
	}
	return rows
}

// stageGiven is what the reference target's stage and pins give a row's claims, as the suite
// gives it: its workload (reading kept artifacts where the row has them), the thresholds its
// pinned manifest's first testcase declares, its dataset's groups, its pinned inputs and limits.
func stageGiven(t *testing.T, root, runDir, stage string, r evidence.Result) Given {
	w, err := workload.Get(stage)
	if err != nil {
		t.Fatal(err)
	}
	if r.Scratch != nil {
		w = workload.WithArtifacts(w, workload.ScratchReader(r.Scratch.Container, filepath.Join(runDir, r.Scratch.Dir)))
	}
	manifests, _ := filepath.Glob(filepath.Join(root, "native", "families", "*", "manifests", r.Profile+".json"))
	if len(manifests) != 1 {
		t.Fatalf("%s/%s: pinned manifests %v", stage, r.Profile, manifests)
	}
	m, err := manifest.Read(manifests[0])
	if err != nil {
		t.Fatal(err)
	}
	g := StageGiven(w, workload.DeclaredThresholds(manifests[0], m.Testcases[0].Name), DatasetGroups(filepath.Join(root, r.Dataset.Path)))
	g.GatePins = func() (workload.GateInputs, error) {
		i := slices.IndexFunc(m.Testcases, func(tc manifest.Testcase) bool { return tc.Name == r.Gate.Testcase })
		if i < 0 {
			return workload.GateInputs{}, fmt.Errorf("no testcase %s", r.Gate.Testcase)
		}
		th, err := manifest.ReadThresholds(manifest.ThresholdsPath(m, r.Gate.Testcase))
		return workload.GateInputs{Root: root, Testcase: m.Testcases[i], Thresholds: th}, err
	}
	g.InputPins = func() (workload.Admission, bool, error) {
		ad, err := inventory.AdmissionOf(manifests[0])
		src := workload.PinnedSource(root, m, m.Testcases[0], r.Dataset.SHA256)
		stored := workload.StoredInputs{RunDir: runDir, Root: root, Where: stage + "/" + r.Profile, Source: src, Result: r}
		return workload.Admission{StoredInputs: stored, Dir: workload.StoredInputsDir(runDir, stage, r), Family: ad.Family, Limits: ad.Limits()}, err == nil, err
	}
	return g
}

// Every claim derived again from a real run's files is the record the suite stored.
func TestEveryClaimOfARealRunDerivesItsStoredRecord(t *testing.T) {
	for where, a := range servedRows(t) {
		for _, c := range All() {
			if !c.Claimed(a.Row) {
				continue
			}
			if got := c.Check(a); len(got) != 0 {
				t.Errorf("%s: %v", where, got)
			}
		}
	}
}

// inputs are the fields of a no-caching record its derivation reads (a change to one makes it
// underivable: the records or the join disagree); given are what it takes as recorded (the
// repeated input's id and output, read from responses that are not kept, and the native time).
var (
	noCacheInputs = []string{".first_request_id", ".request_id", ".status", ".model_call_ms", ".input_sha256"}
	noCacheGiven  = []string{".input", ".output", ".variant", ".native_task_ms"}
	// An output's native run is its stored result (a change to it breaks the identity: not
	// derivable); its input's id and gold text are taken as recorded (verify ties them to the
	// upload and the pins).
	outputInputs = []string{".native_output", ".request_id"}
	outputGiven  = []string{".input_id", ".gold"}
	// A gate item's outputs and what they are compared with are what its figures are derived
	// from (a change to one is named by a figure, or by the pins it no longer matches); the gate's
	// identity, settings, failure messages, item details and a recorded verdict are given (a pass
	// is derived only where the figures allow it: a recorded failure stays one).
	gateInputs = []string{".output", ".expected", ".gold", ".id"}
	gateGiven  = []string{".family", ".profile", ".testcase", ".bundle_sha256", ".distance", ".detail", ".passed"}
)

// Every field of every stored record of a real run, perturbed alone, is named by the claim's
// check: its differing field, or for a field the derivation reads, why it cannot derive.
func TestEveryPerturbedRecordFieldIsNamed(t *testing.T) {
	for where, a := range servedRows(t) {
		perturbEach(t, where, a)
	}
}

func perturbEach(t *testing.T, where string, a *Artifacts) {
	for _, c := range All() {
		if !c.Claimed(a.Row) {
			continue
		}
		for _, leaf := range leaves(t, c.Stored(a.Row)) {
			if c.Name == "no-caching check" && hasSuffix(leaf.path, noCacheGiven) || c.Name == "identity" && hasSuffix(leaf.path, outputGiven) ||
				c.Name == "gate" && gateLeafGiven(where, a.Row, leaf) {
				continue
			}
			forged := *a
			forged.Row = perturbed(t, a.Row, c, leaf)
			got := strings.Join(c.Check(&forged), "\n")
			want := leaf.path
			switch {
			case c.Name == "no-caching check" && hasSuffix(leaf.path, noCacheInputs) || c.Name == "identity" && hasSuffix(leaf.path, outputInputs):
				want = "not recomputable"
			case c.Name == "gate" && strings.HasPrefix(leaf.path, ".items") && hasSuffix(leaf.path, gateInputs):
				want = "gate" // named by a figure it changes or the pin it no longer matches
			case c.Name == "gate" && strings.HasPrefix(leaf.path, ".figures."):
				want = strings.TrimPrefix(leaf.path, ".figures.") // a figure not derived is named by the bound it breaks
			}
			if !strings.Contains(got, c.Name) || !strings.Contains(got, want) {
				t.Errorf("%s %s%s perturbed: want a problem naming %q, got %q", where, c.Name, leaf.path, want, got)
			}
		}
	}
}

// gateLeafGiven says whether a field of a row's gate is taken as recorded offline (see gateGiven):
// of an image gate, also what its family reports of the settings it ran (steps, guidance,
// prompts), each item's golden path (the pinned testcase names the golden images), and the items
// of prompts the row did not serve (their images are the family's native run: `qual verify
// --rerun` re-executes it).
func gateLeafGiven(where string, r evidence.Result, l leaf) bool {
	if hasSuffix(l.path, gateGiven) || strings.HasPrefix(l.path, ".settings") || strings.HasPrefix(l.path, ".failures") {
		return true
	}
	if !strings.HasPrefix(where, "t2i/") {
		return false
	}
	if hasSuffix(l.path, []string{".figures.steps", ".figures.guidance", ".figures.prompts", ".expected"}) {
		return true
	}
	if psnr := r.Gate.Figures["psnr_min_db"]; l.path == ".figures.psnr_min_db" && psnr+1 == psnr {
		return true // identical (the +Inf stand-in) can only be lowered, which served images bounding it from above cannot name
	}
	if l.path == ".figures.psnr_min_db" && slices.ContainsFunc(r.Gate.Items, func(it evidence.GateItem) bool { return !servesItem(r, it.ID) }) {
		// The worst PSNR over every prompt is bounded by the served images' PSNR from above only:
		// the prompts the row did not serve are the family's native run (`qual verify --rerun`).
		return true
	}
	if len(l.keys) < 2 || l.keys[0] != "items" {
		return false
	}
	return !servesItem(r, r.Gate.Items[l.keys[1].(int)].ID)
}

// servesItem says whether the row served the gate item's prompt (an output of that input).
func servesItem(r evidence.Result, id string) bool {
	return slices.ContainsFunc(r.Outputs, func(o evidence.Output) bool { return o.InputID == id })
}

func hasSuffix(path string, fields []string) bool {
	for _, f := range fields {
		if strings.HasSuffix(path, f) {
			return true
		}
	}
	return false
}

// leaf is one scalar of a record's JSON: its path as Differences names it, and how to reach it.
type leaf struct {
	path string
	keys []any // string keys and int indexes
}

func leaves(t *testing.T, record any) []leaf {
	var v any
	data, err := json.Marshal(record)
	if err != nil || json.Unmarshal(data, &v) != nil {
		t.Fatalf("record %T not JSON: %v", record, err)
	}
	var out []leaf
	var walk func(path string, keys []any, v any)
	walk = func(path string, keys []any, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				walk(path+"."+k, append(append([]any(nil), keys...), k), e)
			}
		case []any:
			for i, e := range x {
				walk(path+"["+elementName(e, i)+"]", append(append([]any(nil), keys...), i), e)
			}
		case nil:
		default:
			out = append(out, leaf{path, keys})
		}
	}
	walk("", nil, v)
	return out
}

// perturbed is row with one leaf of the claim's stored record changed (a number by one, a string
// appended to, a flag flipped), through the record's JSON.
func perturbed(t *testing.T, row evidence.Result, c Claim, l leaf) evidence.Result {
	var v any
	data, _ := json.Marshal(c.Stored(row))
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	parent := v
	for _, k := range l.keys[:len(l.keys)-1] {
		parent = step(parent, k)
	}
	last := l.keys[len(l.keys)-1]
	set(parent, last, change(step(parent, last)))
	data, _ = json.Marshal(v)
	ptr := reflect.New(reflect.TypeOf(c.Stored(row))) // the record's type, its forged value decoded into it
	if err := json.Unmarshal(data, ptr.Interface()); err != nil {
		t.Fatalf("%s: %v", l.path, err)
	}
	out := row
	c.store(&out, ptr.Elem().Interface())
	return out
}

func step(v any, k any) any {
	if i, ok := k.(int); ok {
		return v.([]any)[i]
	}
	return v.(map[string]any)[k.(string)]
}

func set(v any, k any, x any) {
	if i, ok := k.(int); ok {
		v.([]any)[i] = x
		return
	}
	v.(map[string]any)[k.(string)] = x
}

func change(v any) any {
	switch x := v.(type) {
	case float64:
		if x+1 == x { // a stand-in for +Inf (an identical image's PSNR): halved, it changes
			return x / 2
		}
		return x + 1
	case string:
		return x + "x"
	case bool:
		return !x
	}
	panic(fmt.Sprintf("leaf %T", v))
}
