package claim

import (
	"fmt"
	"math/rand/v2"
	"reflect"
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

// Differences is empty exactly when the two records' JSON is equal, whatever changed: a value,
// an added or removed key, a list's length, an empty list against none (300 random records,
// each changed in one random way).
func TestDifferencesIsEmptyExactlyWhenTheRecordsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 2))
	changes := []func(map[string]any){
		func(m map[string]any) { m["added"] = 1.0 },
		func(m map[string]any) { delete(m, "k0") },
		func(m map[string]any) { m["k0"] = []any{} },
		func(m map[string]any) { m["k0"] = nil },
		func(m map[string]any) { m["k0"] = []any{1.0, 2.0, 3.0} },
		func(m map[string]any) { m["k0"] = map[string]any{} },
		func(map[string]any) {},
	}
	for draw := range 300 {
		rec := randomRecord(rng, 2)
		changed := asJSON(rec).(map[string]any)
		changes[rng.IntN(len(changes))](changed)
		equal := reflect.DeepEqual(asJSON(rec), asJSON(changed))
		if d := Differences(changed, rec); (len(d) == 0) != equal {
			t.Fatalf("draw %d: equal %v, differences %v\n%v\n%v", draw, equal, d, changed, rec)
		}
	}
	if d := Differences(map[string]any{"l": []any{}}, map[string]any{"l": nil}); len(d) != 1 {
		t.Errorf("[] against null: %v", d)
	}
}

// verify names the first 8 differing fields of a claim and counts the rest, in the singular for one.
func TestDifferenceLinesNameEightAndCountTheRest(t *testing.T) {
	for n, last := range map[int]string{8: "timing recomputed differently: .f7", 9: "timing recomputed differently in 1 more field", 12: "timing recomputed differently in 4 more fields"} {
		var diffs []string
		for i := range n {
			diffs = append(diffs, fmt.Sprintf(".f%d", i))
		}
		lines := differenceLines("timing", diffs)
		if len(lines) != min(n, maxDifferences+1) || lines[len(lines)-1] != last {
			t.Errorf("%d differences: %q", n, lines)
		}
	}
}
