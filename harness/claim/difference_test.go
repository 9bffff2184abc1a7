package claim

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestDifferencesNamesEveryPerturbedField: over 500 random records (nested objects, lists of
// named figures, plain lists), perturbing any k of their scalars alone is named exactly k times,
// each by its own path; an unperturbed record has no difference.
func TestDifferencesNamesEveryPerturbedField(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 7))
	for draw := range 500 {
		rec := randomRecord(rng, 3)
		if d := Differences(rec, rec); len(d) != 0 {
			t.Fatalf("draw %d: a record differs from itself: %v", draw, d)
		}
		changed := map[string]bool{}
		perturbed := perturb(rng, rec, "", changed)
		diffs := Differences(perturbed, rec)
		if len(diffs) != len(changed) {
			t.Fatalf("draw %d: %d fields perturbed (%v), %d named: %v", draw, len(changed), changed, len(diffs), diffs)
		}
		for p := range changed {
			if !slicesAnyPrefix(diffs, p+": ") {
				t.Errorf("draw %d: perturbed %s is not named: %v", draw, p, diffs)
			}
		}
	}
}

func slicesAnyPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// randomRecord is a JSON-shaped record: an object of scalars, nested objects, a list of named
// figures and a plain list of numbers.
func randomRecord(rng *rand.Rand, depth int) map[string]any {
	rec := map[string]any{}
	for i := range 1 + rng.IntN(4) {
		k := fmt.Sprintf("k%d", i)
		switch c := rng.IntN(4); {
		case c == 0 && depth > 0:
			rec[k] = randomRecord(rng, depth-1)
		case c == 1:
			var list []any
			for j := range 1 + rng.IntN(3) {
				list = append(list, map[string]any{"name": fmt.Sprintf("f%d", j), "value": rng.Float64()})
			}
			rec[k] = list
		case c == 2:
			rec[k] = []any{rng.Float64(), rng.Float64()}
		default:
			rec[k] = rng.Float64()
		}
	}
	return rec
}

// perturb copies v, changing each scalar with probability ½ and noting its path as Differences
// names it.
func perturb(rng *rand.Rand, v any, path string, changed map[string]bool) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if k == "name" {
				out[k] = e
				continue
			}
			out[k] = perturb(rng, e, path+"."+k, changed)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = perturb(rng, e, path+"["+elementName(e, i)+"]", changed)
		}
		return out
	case float64:
		if rng.IntN(2) == 0 {
			changed[path] = true
			return x + 1
		}
	}
	return v
}
