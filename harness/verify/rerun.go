package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
	"github.com/trtmc-qual/trtmc-qual/native/family"
)

// Rerun is the outcome of re-executing a run's reference rows.
type Rerun struct {
	Rows     []string // "<stage>/<profile>: N items identical (T s)"
	Problems []Problem
	scope    map[string]bool // the rows named; nil: every row
}

// Covers says whether the rerun re-executed the row "<stage>/<profile>" (its gate, when it has one).
func (r Rerun) Covers(row string) bool { return r.scope == nil || r.scope[row] }

// ErrUnknownRow is a scoped --rerun naming a row the run does not have.
var ErrUnknownRow = errors.New("not a row of the run")

// RerunGates re-executes the gate of every reference row that stored its bundle — the family's
// native Task on the pinned gate inputs, run by the target file's own gate command with the
// reference binary nativeBin (trtmc-native; Whisper's worker in its venv) — and requires every
// output to be exactly the one the evidence records. This is the check no forger can satisfy
// without the model: a row that serves nothing has no other copy of its outputs.
//
// rows, when not empty, re-executes only the rows it names ("<stage>/<profile>" or a profile
// alone, as RowSelection reads them): a name matching no row of the run is an error, and a named
// row without a gate is a problem, so a selection never passes over what it asked for.
func RerunGates(ctx context.Context, runDir, nativeBin string, rows []string, opts Options) (Rerun, error) {
	runDir = resolvedDir(runDir)
	var out Rerun
	e, err := evidence.Read(runDir)
	if err != nil {
		return out, err
	}
	p, _, err := findPins(runDir, opts)
	if err != nil {
		return out, err
	}
	tpath, err := workload.InsideDir(p.Root, "target", e.Target)
	if err != nil {
		return out, fmt.Errorf("--rerun: %w", err)
	}
	t, err := target.Read(tpath, p.Root)
	if err != nil {
		return out, fmt.Errorf("--rerun: %w", err)
	}
	if !t.Traits().Embedded() || len(t.Gate) == 0 {
		return out, fmt.Errorf("--rerun re-executes reference rows; target %s is %s", e.Target, t.Kind)
	}
	chosen, err := RowSelection(e, rows)
	if err != nil {
		return out, fmt.Errorf("--rerun: %w", err)
	}
	out.scope = chosen
	for _, s := range e.Stages {
		for _, r := range s.Results {
			where := s.Stage + "/" + r.Profile
			if chosen != nil && !chosen[where] {
				continue
			}
			if r.Gate == nil {
				if chosen != nil {
					out.Problems = append(out.Problems, Problem{where, "--rerun: the row records no gate to re-execute"})
				}
				continue
			}
			if missing := unstoredBundle(runDir, r); missing != "" {
				out.Problems = append(out.Problems, Problem{where, "--rerun cannot re-execute the gate: " + missing})
				continue
			}
			start := time.Now()
			n, problems := rerunGate(ctx, runDir, p, t, nativeBin, family.Host{Cache: opts.Cache, Python: opts.Python}, where, r)
			out.Problems = append(out.Problems, problems...)
			if len(problems) == 0 {
				out.Rows = append(out.Rows, fmt.Sprintf("%s: %d gate outputs re-executed, identical (%.1f s)", where, n, time.Since(start).Seconds()))
			}
		}
	}
	return out, nil
}

// RowSelection reads the rows a scoped --rerun names against the run's evidence: each name is
// "<stage>/<profile>" or a profile alone (every stage's row of that profile). It returns the
// chosen rows as "<stage>/<profile>", nil for no names (every row); a name that matches no row
// is an error naming the run's rows.
func RowSelection(e evidence.Evidence, names []string) (map[string]bool, error) {
	if len(names) == 0 {
		return nil, nil
	}
	chosen := map[string]bool{}
	var all []string
	for _, s := range e.Stages {
		for _, r := range s.Results {
			all = append(all, s.Stage+"/"+r.Profile)
		}
	}
	for _, name := range names {
		found := false
		for _, row := range all {
			if name == row || (!strings.Contains(name, "/") && strings.HasSuffix(row, "/"+name)) {
				chosen[row], found = true, true
			}
		}
		if !found {
			return nil, fmt.Errorf("%q: %w (its rows: %s)", name, ErrUnknownRow, strings.Join(all, ", "))
		}
	}
	return chosen, nil
}

// unstoredBundle says why a gated row's bundle cannot be run ("" when it is stored): a gate
// that cannot be re-executed is a failure of --rerun, never a row passed over.
func unstoredBundle(runDir string, r evidence.Result) string {
	if r.Bundle.Path == "" {
		return "the row names no stored bundle (bundle.path is empty)"
	}
	if bundleAbsent(runDir, r) {
		return "its bundle " + r.Bundle.Path + " is not in the run (published without it?)"
	}
	return ""
}

func rerunGate(ctx context.Context, runDir string, p pins, t *target.Target, nativeBin string, host family.Host, where string, r evidence.Result) (int, []Problem) {
	fail := func(format string, args ...any) (int, []Problem) {
		return 0, []Problem{{where, "--rerun: " + fmt.Sprintf(format, args...)}}
	}
	manifestRel, ok, err := p.Manifest(r.Profile)
	if err != nil || !ok {
		return fail("no pinned manifest for %s (%v)", r.Profile, err)
	}
	bundlePath, err := workload.InsideDir(runDir, "bundle.path", r.Bundle.Path)
	if err != nil {
		return fail("%v", err)
	}
	args, err := target.Expand(t.Gate, map[string]string{"native": nativeBin, "manifest": filepath.Join(p.Root, filepath.FromSlash(manifestRel)),
		"bundle": bundlePath, "testcase": r.Gate.Testcase, "root": p.Root, "profile": r.Profile})
	if err != nil {
		return fail("%v", err)
	}
	args = append(args, host.Args()...) // as the checkpoint ran it (nativeHostArgs)
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir = p.Root
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run() // a failing gate exits non-zero and still prints its result
	var got evidence.GateResult
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		return fail("%s printed no gate result (%v; %v): %s", strings.Join(args, " "), err, runErr, lastLines(stderr.String(), 5))
	}
	var problems []Problem
	if got.BundleSHA != r.Gate.BundleSHA {
		problems = append(problems, Problem{r.Bundle.Path, fmt.Sprintf("--rerun: the gate ran on bundle %s, the evidence's gate on %s", got.BundleSHA, r.Gate.BundleSHA)})
	}
	recorded := map[string]evidence.GateItem{}
	for _, it := range r.Gate.Items {
		recorded[it.ID] = it
	}
	if len(got.Items) != len(r.Gate.Items) {
		problems = append(problems, Problem{where, fmt.Sprintf("--rerun: the gate re-executed %d items, the evidence records %d", len(got.Items), len(r.Gate.Items))})
	}
	for _, it := range got.Items {
		want, ok := recorded[it.ID]
		switch {
		case !ok:
			problems = append(problems, Problem{where, fmt.Sprintf("--rerun: gate item %s is not in the evidence", it.ID)})
		case it.Output != want.Output:
			problems = append(problems, Problem{where, fmt.Sprintf("--rerun: gate item %s: the native Task gives %q, the evidence records %q", it.ID, it.Output, want.Output)})
		}
	}
	for _, name := range sortedNames(mergeKeys(got.Figures, r.Gate.Figures)) {
		g, okG := got.Figures[name]
		w, okW := r.Gate.Figures[name]
		if !okG || !okW || math.Abs(g-w) > 1e-12*math.Max(1, math.Abs(w)) {
			problems = append(problems, Problem{where, fmt.Sprintf("--rerun: gate figure %s re-executed %v, the evidence records %v", name, orMissing(g, okG), orMissing(w, okW))})
		}
	}
	if got.Passed != r.Gate.Passed {
		problems = append(problems, Problem{where, fmt.Sprintf("--rerun: the gate re-executed passed=%v, the evidence records passed=%v (%v)", got.Passed, r.Gate.Passed, got.Failures)})
	}
	return len(got.Items), problems
}

func mergeKeys(a, b map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k := range a {
		out[k] = 0
	}
	for k := range b {
		out[k] = 0
	}
	return out
}

func orMissing(v float64, ok bool) any {
	if !ok {
		return "nothing"
	}
	return v
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], " | ")
}

func sortedNames(m map[string]float64) []string { return slices.Sorted(maps.Keys(m)) }
