package verify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// checkCanonical requires evidence.json and every stage.json to be exactly what the suites and
// `qual report` write (evidence.EncodeJSON): no unknown field, no duplicate or case-variant key
// (Go's decoder keeps the last case-insensitive match, jq and Python the exact one), no other
// spacing. Any reader then reads the same values this verifier checked.
func checkCanonical(runDir string, e evidence.Evidence, report reporter) {
	canonical(runDir, "evidence.json", &evidence.Evidence{}, report)
	for _, s := range e.Stages {
		if _, err := local(runDir, "stage", s.Stage); err == nil && s.Stage == filepath.Base(s.Stage) {
			canonical(runDir, s.Stage+"/stage.json", &evidence.Stage{}, report)
		}
	}
}

func canonical(runDir, rel string, v any, report reporter) {
	data, err := os.ReadFile(filepath.Join(runDir, filepath.FromSlash(rel)))
	if err != nil {
		report(rel, "%v", err)
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
	if !bytes.Equal(data, again) {
		report(rel, "is not its own canonical re-encoding (%s): a duplicate or case-variant key, or an edit by another writer", differingLine(data, again))
	}
}

// differingLine names the first line where the file and its re-encoding differ.
func differingLine(got, want []byte) string {
	g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := range max(len(g), len(w)) {
		var a, b []byte
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if !bytes.Equal(a, b) {
			return fmt.Sprintf("line %d is %s, re-encoded %s", i+1, clip(a), clip(b))
		}
	}
	return "same lines"
}

func clip(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > 80 {
		return fmt.Sprintf("`%s…`", b[:80])
	}
	return fmt.Sprintf("`%s`", b)
}
