package evidence

import (
	"encoding/json"
	"fmt"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/stats/schema"
	"github.com/trtmc-qual/trtmc-qual/harness/timing"
	"github.com/trtmc-qual/trtmc-qual/native/family"
)

// sources are the types a schema type is written from or read into: each pair must encode the
// same JSON fields (names, options and shapes), so that converting between them at the boundary
// loses nothing and the published JSON stays what the schema wrote.
var sources = []struct {
	schema, source any
}{
	{GateResult{}, family.GateResult{}},
	{GateItem{}, family.GateItem{}},
	{Timing{}, timing.Summary{}},
	{Figure{}, timing.Figure{}},
	{OrderInterval{}, timing.OrderInterval{}},
	{Join{}, join.Report{}},
	{Repeated{}, schema.Repeated{}},
	{NonInferiority{}, schema.NonInferiority{}},
	{Bounds{}, schema.Bounds{}},
}

func TestSchemaTypesEncodeAsTheirSources(t *testing.T) {
	for _, s := range sources {
		got, want := jsonShape(reflect.TypeOf(s.schema)), jsonShape(reflect.TypeOf(s.source))
		if got != want {
			t.Errorf("%T encodes as\n%s\n%T as\n%s", s.schema, got, s.source, want)
		}
	}
}

// jsonShape is what encoding/json writes of a type: each struct's fields by JSON name with their
// options and shapes (a "-" field left out), element and key shapes of slices and maps.
func jsonShape(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return "*" + jsonShape(t.Elem())
	case reflect.Slice:
		return "[]" + jsonShape(t.Elem())
	case reflect.Map:
		return "map[" + jsonShape(t.Key()) + "]" + jsonShape(t.Elem())
	case reflect.Struct:
		var fields []string
		for f := range t.Fields() {
			tag := f.Tag.Get("json")
			if tag == "-" || !f.IsExported() {
				continue
			}
			if f.Anonymous && tag == "" {
				fields = append(fields, "embedded "+jsonShape(f.Type))
				continue
			}
			fields = append(fields, fmt.Sprintf("%s %s", tag, jsonShape(f.Type)))
		}
		slices.Sort(fields)
		return "{" + strings.Join(fields, "; ") + "}"
	}
	return t.Kind().String()
}

// leaves are the only project packages the schema imports: it is read by verify and the
// reports alone, so it imports none of the packages that derive or produce what it records
// (their types were embedded in it), matched by exact import path.
var leaves = []string{module + "/harness/runfile"}

const module = "github.com/trtmc-qual/trtmc-qual"

func TestEvidenceImportsNoProducer(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range parsed.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if (path == module || strings.HasPrefix(path, module+"/")) && !slices.Contains(leaves, path) {
				t.Errorf("%s imports %s, a project package outside the schema's leaves %v", f, path, leaves)
			}
		}
	}
}

// A published run's evidence.json and every stage.json, read into the schema's types and
// encoded again, are their own JSON: the types record every field the schema writes, with its
// value. Values, not bytes: a stage's free-form settings map is written from structs in field
// order and re-encoded from a map in key order (verify's canonical check compares the same way).
func TestPublishedEvidenceReencodesAsItself(t *testing.T) {
	dir := os.Getenv("QUAL_TEST_RUN")
	if dir == "" {
		t.Skip("QUAL_TEST_RUN names no published run (make test sets it; make test-run makes one)")
	}
	e, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, filepath.Join(dir, "evidence.json"), e)
	stages, _ := filepath.Glob(filepath.Join(dir, "*", "stage.json"))
	if len(stages) == 0 {
		t.Fatalf("%s holds no stage.json", dir)
	}
	for _, path := range stages {
		s, err := ReadStage(path)
		if err != nil {
			t.Fatal(err)
		}
		sameJSON(t, path, s)
	}
}

// sameJSON requires v, encoded, to be the JSON value of the file at path, naming the first
// place they differ.
func sameJSON(t *testing.T, path string, v any) {
	t.Helper()
	published, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	again, err := EncodeJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	var want, got any
	if err := json.Unmarshal(published, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(again, &got); err != nil {
		t.Fatal(err)
	}
	if at := firstDifference("", got, want); at != "" {
		t.Errorf("%s re-encoded differs %s", path, at)
	}
}

// firstDifference is where two decoded JSON values first differ ("" when equal), keys in order.
func firstDifference(at string, got, want any) string {
	gm, gok := got.(map[string]any)
	wm, wok := want.(map[string]any)
	if gok && wok {
		keys := slices.Sorted(maps.Keys(gm))
		for k := range wm {
			if _, ok := gm[k]; !ok {
				keys = append(keys, k)
			}
		}
		for _, k := range keys {
			if d := firstDifference(at+"."+k, gm[k], wm[k]); d != "" {
				return d
			}
		}
		return ""
	}
	gs, gok := got.([]any)
	ws, wok := want.([]any)
	if gok && wok && len(gs) == len(ws) {
		for i := range gs {
			if d := firstDifference(fmt.Sprintf("%s[%d]", at, i), gs[i], ws[i]); d != "" {
				return d
			}
		}
		return ""
	}
	if reflect.DeepEqual(got, want) {
		return ""
	}
	return fmt.Sprintf("at %s: re-encoded %v, published %v", at, got, want)
}
