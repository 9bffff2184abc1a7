package metrics

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/trtmc-qual/trtmc-qual/harness/config/machine"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// These tests run the reference tools themselves; `make deps` installs them. A missing tool is
// a failure, not a skip: a parity claim that did not run proves nothing.

func requireTool(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s is not installed (run `make deps`): %v", name, err)
	}
	return path
}

func parityPython(t *testing.T) string {
	t.Helper()
	py, err := machine.ParityFromEnv(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	return py
}

// randomPairs makes n seeded pairs: edits of a reference over a shared vocabulary, hypotheses
// from a disjoint vocabulary, empty sides, and lengths from 0 to 40 words.
func randomPairs(n int, seed uint64, allowEmptyRef bool) []Pair {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	shared := strings.Fields("the a of and to in is was he it that for on with as his at by had " +
		"from be this not but are or which one all were we when there can an your so")
	disjoint := strings.Fields("zeta kappa omega sigma delta lambda theta gamma rho tau")
	words := func(vocab []string, k int) []string {
		out := make([]string, k)
		for i := range out {
			out[i] = vocab[rng.IntN(len(vocab))]
		}
		return out
	}
	pairs := make([]Pair, n)
	for i := range pairs {
		minRef := 1
		if allowEmptyRef {
			minRef = 0
		}
		ref := words(shared[:5+rng.IntN(len(shared)-5)], minRef+rng.IntN(41-minRef))
		var hyp []string
		switch rng.IntN(10) {
		case 0:
			hyp = words(disjoint, rng.IntN(30))
		case 1:
			hyp = nil
		default:
			hyp = perturb(rng, ref, shared, disjoint)
		}
		pairs[i] = Pair{ID: fmt.Sprintf("spk%03d_u%05d", i%50, i), Expected: strings.Join(ref, " "), Hyp: strings.Join(hyp, " ")}
	}
	return pairs
}

func perturb(rng *rand.Rand, ref, shared, disjoint []string) []string {
	errRate := rng.Float64() * 0.6
	var out []string
	for _, w := range ref {
		switch r := rng.Float64(); {
		case r < errRate/3:
			continue // deletion
		case r < 2*errRate/3:
			out = append(out, shared[rng.IntN(len(shared))]) // substitution (or accidental hit)
		case r < errRate:
			out = append(out, w, disjoint[rng.IntN(len(disjoint))]) // insertion
		default:
			out = append(out, w)
		}
	}
	return out
}

var scoresLine = regexp.MustCompile(`^Scores: \(#C #S #D #I\) (\d+) (\d+) (\d+) (\d+)$`)
var idLine = regexp.MustCompile(`^id: \((.+)\)$`)

// scliteCounts runs `sctk sclite -i rm -o pra` and reads every utterance's C/S/D/I.
func scliteCounts(t *testing.T, pairs []Pair) map[string]Counts {
	t.Helper()
	sctk := requireTool(t, "sctk")
	dir := t.TempDir()
	var ref, hyp strings.Builder
	for _, p := range pairs {
		fmt.Fprintf(&ref, "%s (%s)\n", p.Expected, p.ID)
		fmt.Fprintf(&hyp, "%s (%s)\n", p.Hyp, p.ID)
	}
	refPath, hypPath := filepath.Join(dir, "ref.trn"), filepath.Join(dir, "hyp.trn")
	must(t, os.WriteFile(refPath, []byte(ref.String()), 0o644))
	must(t, os.WriteFile(hypPath, []byte(hyp.String()), 0o644))
	out, err := exec.Command(sctk, "sclite", "-r", refPath, "trn", "-h", hypPath, "trn", "-i", "rm", "-o", "pra", "stdout").CombinedOutput()
	if err != nil {
		t.Fatalf("sclite: %v\n%s", err, out)
	}
	counts := map[string]Counts{}
	var id string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if m := idLine.FindStringSubmatch(line); m != nil {
			id = m[1]
		} else if m := scoresLine.FindStringSubmatch(line); m != nil {
			var c Counts
			fmt.Sscan(strings.Join(m[1:], " "), &c.Hits, &c.Subs, &c.Dels, &c.Ins)
			counts[id] = c
		}
	}
	return counts
}

func TestSCLITEParity(t *testing.T) {
	pairs := randomPairs(1200, 20261129, true)
	want := scliteCounts(t, pairs)
	if len(want) != len(pairs) {
		t.Fatalf("sclite scored %d utterances, want %d", len(want), len(pairs))
	}
	var ours, theirs Counts
	mismatched := 0
	for _, p := range pairs {
		got := AlignWords(Identity().Tokens(p.Expected), Identity().Tokens(p.Hyp), SCLITECosts())
		ours, theirs = ours.Add(got), theirs.Add(want[p.ID])
		if got != want[p.ID] && mismatched < 5 {
			mismatched++
			t.Errorf("%s: ours %+v, sclite %+v\nREF: %s\nHYP: %s", p.ID, got, want[p.ID], p.Expected, p.Hyp)
		}
	}
	if ours != theirs {
		t.Errorf("corpus counts differ: ours %+v, sclite %+v", ours, theirs)
	}
	t.Logf("sclite parity over %d pairs: corpus %+v", len(pairs), theirs)
}

func TestJiwerParity(t *testing.T) {
	py := parityPython(t)
	pairs := randomPairs(1200, 77, false) // jiwer refuses empty references
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	for _, p := range pairs {
		must(t, enc.Encode(map[string]string{"ref": p.Expected, "hyp": p.Hyp}))
	}
	cmd := exec.Command(py, "testdata/jiwer_counts.py")
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("jiwer oracle: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(pairs) {
		t.Fatalf("jiwer printed %d lines for %d pairs", len(lines), len(pairs))
	}
	// jiwer takes its alignment from rapidfuzz, whose tie-breaking among equal-cost paths
	// (affix stripping, bit-parallel backtrace) differs from our diagonal-first rule. Every
	// minimal path has the same S+D+I and the same N, so WER is identical; the S/D/I split on
	// tie paths is pinned by jiwerCases instead, and counted here as a figure.
	var ours, theirs Counts
	splitDiffers := 0
	for i, p := range pairs {
		var want Counts
		fmt.Sscan(lines[i], &want.Hits, &want.Subs, &want.Dels, &want.Ins)
		got := AlignWords(Identity().Tokens(p.Expected), Identity().Tokens(p.Hyp), UnitCosts())
		ours, theirs = ours.Add(got), theirs.Add(want)
		if got.Errors() != want.Errors() || got.RefWords() != want.RefWords() {
			t.Errorf("%s: ours %+v (errors %d), jiwer %+v (errors %d)", p.ID, got, got.Errors(), want, want.Errors())
		}
		if got != want {
			splitDiffers++
		}
	}
	oursWER, _ := ours.WER()
	theirWER, _ := theirs.WER()
	if oursWER != theirWER {
		t.Errorf("corpus WER ours %v, jiwer %v", oursWER, theirWER)
	}
	t.Logf("jiwer parity over %d pairs: WER %.6f both; S/D/I split differs on %d tie paths", len(pairs), theirWER, splitDiffers)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
