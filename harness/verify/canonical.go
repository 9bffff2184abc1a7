package verify

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// canonicalCheck: evidence.json and each stage.json are byte for byte what the project writes.
func canonicalCheck(r *Run) []Problem {
	return problemsFrom(func(report reporter) { checkCanonical(r.Dir, r.Evidence, report) })
}

// checkCanonical requires evidence.json and every stage.json to be what the suites and
// `qual report` write: no unknown field, no duplicate or case-variant key (Go's decoder keeps the
// last case-insensitive match, jq and Python the exact one), and the same JSON as their own
// re-encoding by evidence.EncodeJSON. Any reader then reads the values this verifier checked.
// The comparison is of JSON values, not bytes: a free-form map (a stage's settings) is written
// from structs in field order and re-encoded from maps in key order.
func checkCanonical(runDir string, e evidence.Evidence, report reporter) {
	canonical(runDir, "evidence.json", &evidence.Evidence{}, report)
	for _, s := range e.Stages {
		if _, err := workload.InsideDir(runDir, "stage", s.Stage); err == nil && s.Stage == filepath.Base(s.Stage) {
			canonical(runDir, s.Stage+"/stage.json", &evidence.Stage{}, report)
		}
	}
}

func canonical(runDir, rel string, v any, report reporter) {
	data, err := runfile.ReadIn(runDir, rel)
	if err != nil {
		report(rel, "%v", err)
		return
	}
	stored, err := readTree(data)
	if err != nil {
		report(rel, "is not canonical JSON: %v", err)
		return
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		report(rel, "not the evidence schema: %v", err)
		return
	}
	again, err := evidence.EncodeJSON(v)
	if err != nil {
		report(rel, "%v", err)
		return
	}
	want, err := readTree(again)
	if err != nil {
		report(rel, "re-encoded: %v", err)
		return
	}
	if path, a, b := firstTreeDifference("", stored, want); path != "" {
		report(rel, "is not its own canonical re-encoding: at %s the file has %s, re-encoded %s", path, a, b)
	}
}

// readTree decodes one JSON value, keeping numbers as written and refusing a key that repeats
// in its object exactly or up to case.
func readTree(data []byte) (any, error) {
	// encoding/json's own check bounds the nesting before readValue recurses into it.
	if err := json.Unmarshal(data, new(json.RawMessage)); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := readValue(dec, "")
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("data after the top-level value")
	}
	return v, nil
}

func readValue(dec *json.Decoder, path string) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := map[string]any{}
			folded := map[string]string{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key := kt.(string)
				if prev, dup := folded[strings.ToLower(key)]; dup {
					return nil, fmt.Errorf("key %q of %s repeats %q (a reader keeps one or the other)", key, orRoot(path), prev)
				}
				folded[strings.ToLower(key)] = key
				if obj[key], err = readValue(dec, path+"."+key); err != nil {
					return nil, err
				}
			}
			_, err := dec.Token() // }
			return obj, err
		case '[':
			var arr []any
			for i := 0; dec.More(); i++ {
				v, err := readValue(dec, fmt.Sprintf("%s[%d]", path, i))
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := dec.Token() // ]
			return arr, err
		}
	}
	return tok, nil
}

func orRoot(path string) string {
	if path == "" {
		return "the top level"
	}
	return path
}

// firstTreeDifference is the first path where two decoded JSON values differ, with both sides.
func firstTreeDifference(path string, a, b any) (string, string, string) {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			break
		}
		for _, k := range sortedKeysOf(x, y) {
			va, inA := x[k]
			vb, inB := y[k]
			if !inA || !inB {
				return path + "." + k, present(va, inA), present(vb, inB)
			}
			if p, sa, sb := firstTreeDifference(path+"."+k, va, vb); p != "" {
				return p, sa, sb
			}
		}
		return "", "", ""
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			break
		}
		for i := range x {
			if p, sa, sb := firstTreeDifference(fmt.Sprintf("%s[%d]", path, i), x[i], y[i]); p != "" {
				return p, sa, sb
			}
		}
		return "", "", ""
	}
	if reflect.DeepEqual(a, b) {
		return "", "", ""
	}
	return orRoot(path), present(a, true), present(b, true)
}

func present(v any, ok bool) string {
	if !ok {
		return "nothing"
	}
	data, _ := json.Marshal(v)
	if len(data) > 80 {
		return string(data[:80]) + "…"
	}
	return string(data)
}

func sortedKeysOf(a, b map[string]any) []string {
	seen := map[string]bool{}
	var keys []string
	for _, m := range []map[string]any{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	return keys
}
