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
	case []any:
		if wv, ok := w.([]any); ok && len(wv) == len(gv) {
			for i := range gv {
				if !reflect.DeepEqual(gv[i], wv[i]) {
					return describe(path+"["+elementName(gv[i], i)+"]", gv[i], wv[i])
				}
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

// elementName names a list element by its "name" (a timing figure), else by its index.
func elementName(v any, i int) string {
	if m, ok := v.(map[string]any); ok {
		if name, ok := m["name"].(string); ok && name != "" {
			return name
		}
	}
	return fmt.Sprint(i)
}
