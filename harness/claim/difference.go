package claim

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
)

// Differences compares two records as their JSON (what the evidence stores; Go's float
// encoding round-trips exactly) and names every differing field, in key order (an element of a
// list of named values by its name): none when they agree. A tampered record often differs in
// several derived fields at once; naming only the first hid the others.
func Differences(got, want any) []string {
	var out []string
	describe("", asJSON(got), asJSON(want), &out)
	return out
}

func asJSON(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		return err.Error()
	}
	return out
}

func describe(path string, g, w any, out *[]string) {
	if reflect.DeepEqual(g, w) {
		return
	}
	before := len(*out)
	describeParts(path, g, w, out)
	if len(*out) == before { // differing as a whole, not in any named part ([] against null)
		*out = append(*out, fmt.Sprintf("%s: recomputed %v, evidence says %v", path, g, w))
	}
}

// describeParts names the differing parts of two values that differ: fields of objects, elements
// of lists, else the values themselves.
func describeParts(path string, g, w any, out *[]string) {
	switch gv := g.(type) {
	case map[string]any:
		if wv, ok := w.(map[string]any); ok {
			describeMap(path, gv, wv, out)
			return
		}
	case nil: // a list the evidence holds and the derivation made none of
		if wv, ok := w.([]any); ok && describeNamed(path, nil, wv, out) {
			return
		}
	case []any:
		wv, ok := w.([]any)
		if w == nil { // a list the evidence omits
			ok = true
		}
		if ok && len(gv) > 0 && len(wv) == len(gv) {
			for i := range gv {
				describe(path+"["+elementName(gv[i], i)+"]", gv[i], wv[i], out)
			}
			return
		}
		if ok && describeNamed(path, gv, wv, out) {
			return
		}
	}
	*out = append(*out, fmt.Sprintf("%s: recomputed %v, evidence says %v", path, g, w))
}

func describeMap(path string, g, w map[string]any, out *[]string) {
	for _, k := range slices.Sorted(maps.Keys(g)) {
		describe(path+"."+k, g[k], w[k], out)
	}
	for _, k := range slices.Sorted(maps.Keys(w)) {
		if _, ok := g[k]; !ok {
			*out = append(*out, fmt.Sprintf("%s.%s: evidence has %v, recomputed nothing", path, k, w[k]))
		}
	}
}

// describeNamed names every element one list of named elements holds and the other does not,
// and every one that differs under one name; false when the lists are not both named.
func describeNamed(path string, g, w []any, out *[]string) bool {
	gm, gok := byName(g)
	wm, wok := byName(w)
	if !gok || !wok {
		return false
	}
	for _, v := range g {
		name, _ := nameOf(v)
		if other, ok := wm[name]; !ok {
			*out = append(*out, fmt.Sprintf("%s[%s]: recomputed %v, evidence has nothing", path, name, v))
		} else {
			describe(path+"["+name+"]", v, other, out)
		}
	}
	for _, v := range w {
		if name, _ := nameOf(v); gm[name] == nil {
			*out = append(*out, fmt.Sprintf("%s[%s]: evidence has %v, recomputed nothing", path, name, v))
		}
	}
	return true
}

// byName is a list's elements by their names; false when one has none or two share one.
func byName(list []any) (map[string]any, bool) {
	out := map[string]any{}
	for _, v := range list {
		name, ok := nameOf(v)
		if _, dup := out[name]; !ok || dup {
			return nil, false
		}
		out[name] = v
	}
	return out, true
}

// elementName names a list element by its name (nameOf), else by its index.
func elementName(v any, i int) string {
	if name, ok := nameOf(v); ok {
		return name
	}
	return fmt.Sprint(i)
}

// nameOf is a list element's name: its "name" (a timing figure) or "clip" (a skipped input).
func nameOf(v any) (string, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return "", false
	}
	for _, key := range []string{"name", "clip"} {
		if name, ok := m[key].(string); ok && name != "" {
			return name, true
		}
	}
	return "", false
}
