package verify

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/report"
)

// summary.json is checked as a copy of the evidence: the written file passes, and every way of
// changing it — an edited verdict, scope or figure, another schema version, a file left out, a
// re-encoding — is a problem naming it.
func TestSummaryIsReDerivedAndCompared(t *testing.T) {
	e := evidence.Evidence{SchemaVersion: evidence.SchemaVersion, RunID: "r1", Versions: map[string]string{"trtmc-qual": "abc"},
		Stages: []evidence.Stage{{Stage: "asr", Number: 3, Status: evidence.StageQualified,
			Results: []evidence.Result{{Profile: "a", Kind: evidence.KindFull, Counted: true, Status: evidence.StatusQualified}}}}}
	dir := t.TempDir()
	if err := report.WriteSummary(dir, e); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, report.SummaryFile)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if p := summaryCheck(&Run{Dir: dir, Evidence: e}); len(p) != 0 {
		t.Fatalf("the written summary is refused: %v", p)
	}
	for name, edit := range map[string]func(string) string{
		"verdict": func(s string) string { return strings.Replace(s, `"verdict": "QUALIFIED"`, `"verdict": "FAILED"`, 1) },
		"scope":   func(s string) string { return strings.Replace(s, `"partial": false`, `"partial": true`, 1) },
		"status": func(s string) string {
			return strings.Replace(s, `"status": "aiperf-qualified"`, `"status": "failed"`, 1)
		},
		"version": func(s string) string {
			v := report.SummarySchemaVersion
			return strings.Replace(s, fmt.Sprintf(`"schema_version": %d`, v), fmt.Sprintf(`"schema_version": %d`, v+1), 1)
		},
		"encoding":  func(s string) string { return strings.ReplaceAll(s, "\n ", "\n  ") },
		"truncated": func(s string) string { return s[:len(s)/2] },
	} {
		if err := os.WriteFile(path, []byte(edit(string(good))), 0o644); err != nil {
			t.Fatal(err)
		}
		if p := summaryCheck(&Run{Dir: dir, Evidence: e}); len(p) != 1 || p[0].Where != report.SummaryFile {
			t.Errorf("%s edited: %v", name, p)
		}
	}
	os.Remove(path)
	if p := summaryCheck(&Run{Dir: dir, Evidence: e}); len(p) != 1 {
		t.Errorf("summary.json missing: %v", p)
	}
}
