package claim

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
)

// FirstDifference compares two records as their JSON (what the evidence stores; Go's float
// encoding round-trips exactly) and names the first differing field, in key order (an element
// of a list of named values by its name): "" when they agree.
func FirstDifference(got, want any) string {
	g, w := asJSON(got), asJSON(want)
	if reflect.DeepEqual(g, w) {
		return ""
	}
	return describe("", g, w)
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

func describe(path string, g, w any) string {
	switch gv := g.(type) {
	case map[string]any:
		if wv, ok := w.(map[string]any); ok {
			return describeMap(path, gv, wv)
		}
	case nil: // a list the evidence holds and the derivation made none of
		if wv, ok := w.([]any); ok {
			if d := describeNamed(path, nil, wv); d != "" {
				return d
			}
		}
	case []any:
		wv, ok := w.([]any)
		if w == nil { // a list the evidence omits
			ok = true
		}
		if ok && len(wv) == len(gv) {
			for i := range gv {
				if !reflect.DeepEqual(gv[i], wv[i]) {
					return describe(path+"["+elementName(gv[i], i)+"]", gv[i], wv[i])
				}
			}
		}
		if ok {
			if d := describeNamed(path, gv, wv); d != "" {
				return d
			}
		}
	}
	return fmt.Sprintf("%s: recomputed %v, evidence says %v", path, g, w)
}

func describeMap(path string, g, w map[string]any) string {
	for _, k := range slices.Sorted(maps.Keys(g)) {
		if !reflect.DeepEqual(g[k], w[k]) {
			return describe(path+"."+k, g[k], w[k])
		}
	}
	for _, k := range slices.Sorted(maps.Keys(w)) {
		if _, ok := g[k]; !ok {
			return fmt.Sprintf("%s.%s: evidence has %v, recomputed nothing", path, k, w[k])
		}
	}
	return fmt.Sprintf("%s: recomputed %v, evidence says %v", path, g, w)
}

// describeNamed names the first element one list of named elements holds and the other does
// not, or the first that differs under one name; "" when the lists are not both named.
func describeNamed(path string, g, w []any) string {
	gm, gok := byName(g)
	wm, wok := byName(w)
	if !gok || !wok {
		return ""
	}
	for _, v := range g {
		name, _ := nameOf(v)
		if other, ok := wm[name]; !ok {
			return fmt.Sprintf("%s[%s]: recomputed %v, evidence has nothing", path, name, v)
		} else if !reflect.DeepEqual(v, other) {
			return describe(path+"["+name+"]", v, other)
		}
	}
	for _, v := range w {
		if name, _ := nameOf(v); gm[name] == nil {
			return fmt.Sprintf("%s[%s]: evidence has %v, recomputed nothing", path, name, v)
		}
	}
	return ""
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
