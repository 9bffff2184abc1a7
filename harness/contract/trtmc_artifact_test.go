package contract

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The --serve worker names its PNGs in image_artifacts and no artifact or path
// (benchmark_worker.cpp @ca938e40 run_generate_image): the record says which file of the request's
// directory it is, marked as a worker's file name.
func TestTRTMCImageRecordNamesTheWorkersArtifact(t *testing.T) {
	line := []byte(`{"request_id": "r9", "route": "/v1/images/generations", "operation": "generate_image", "backend": "trtmc", "time": 1.5, "timing": {"queue_ms": 0.1, "model_call_ms": 40.5, "handler_ms": 45}, "observation": {"generated_images": 1, "height": 2, "width": 2, "media_type": "image", "image_artifacts": ["output.image.1.0.png"], "media_digest": {"frames": 1, "height": 2, "width": 2, "sampled_frames": [0], "thumbnail_size": 64, "thumbnails": [[1]]}}}`)
	r, err := ParseRecord(line)
	if err != nil || r.Output == nil || len(r.Output.Images) != 1 || r.Output.Images[0].Artifact != WorkerArtifactPrefix+"output.image.1.0.png" {
		t.Fatalf("%+v %v", r.Output, err)
	}
}

// Every member the harness decodes from a TRTMC-kind target's serving output (TRTMCDecoders)
// has a row in the contract double's fidelity table citing TRTMC's source as file@commit. A
// member added to a decode struct without its row fails here.
func TestEveryTRTMCReadHasAFidelityRow(t *testing.T) {
	table, err := os.ReadFile(filepath.Join("..", "..", "suites", "targets", "testdata", "trtmc-double", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := fidelityRows(string(table))
	var missing []string
	for output, v := range TRTMCDecoders() {
		for _, field := range jsonFields(reflect.TypeOf(v), output) {
			if !rows[field] {
				missing = append(missing, field)
			}
		}
	}
	for _, h := range TRTMCHeaders() {
		if field := "header." + h; !rows[field] {
			missing = append(missing, field)
		}
	}
	for _, key := range BaseRequestReads() {
		if field := "serving/info.base_request." + key; !rows[field] {
			missing = append(missing, field)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("read from TRTMC's serving output with no fidelity row (| `field` | ... file@commit ... |) in the double's README:\n%s", strings.Join(missing, "\n"))
	}
}

// fidelityRows are the fields named in a table row's first cell ("| `a.b` |") of a row that cites
// a source as something@<hex commit>.
func fidelityRows(text string) map[string]bool {
	cite := regexp.MustCompile(`\S+ @[0-9a-f]{7,40}\b|\S+@[0-9a-f]{7,40}\b`)
	first := regexp.MustCompile("^\\|\\s*`([^`]+)`\\s*\\|")
	out := map[string]bool{}
	for _, line := range strings.Split(text, "\n") {
		if m := first.FindStringSubmatch(line); m != nil && cite.MatchString(line) {
			out[m[1]] = true
		}
	}
	return out
}

// jsonFields lists a decode type's JSON members as dotted paths under prefix ("[]" marks an
// array's items), descending into structs.
func jsonFields(t reflect.Type, prefix string) []string {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		if t.Kind() == reflect.Slice {
			prefix += "[]"
		}
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		path := prefix + "." + name
		out = append(out, path)
		out = append(out, jsonFields(f.Type, path)...)
	}
	return out
}
