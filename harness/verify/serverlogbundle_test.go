package verify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
)

// The served bundle is the one the server logged loading; every way the log can disagree is
// named, and only the reference target's log (our server's) is read.
func TestServedBundleIsTheOneLoaded(t *testing.T) {
	served, other := strings.Repeat("5f", 32), strings.Repeat("ab", 32)
	line := func(sha string) string {
		return `time=2026-12-03T09:52:01.588Z level=INFO msg="loaded bundle" model=sphinx-en-us path=/bundles/x.bundle sha256=` + sha + " seconds=1.07\n"
	}
	ready := "time=2026-12-03T09:52:01.589Z level=INFO msg=ready\n"
	for _, c := range []struct {
		name   string
		log    *string // nil: no server.log
		kind   target.Kind
		status evidence.Status
		want   string // "" = no problem
	}{
		{"the served bundle loaded", ptr(line(served) + ready), target.Reference, evidence.StatusQualified, ""},
		{"loaded twice (a restart), both the served one", ptr(line(served) + line(served)), target.Reference, evidence.StatusQualified, ""},
		{"another bundle loaded", ptr(line(other) + ready), target.Reference, evidence.StatusQualified, "the server loaded bundle " + other},
		{"the served one, then another", ptr(line(served) + line(other)), target.Reference, evidence.StatusQualified, "the server loaded bundle " + other},
		{"no bundle loaded", ptr(ready), target.Reference, evidence.StatusQualified, "logged no loaded bundle"},
		{"the log deleted under a qualified row", nil, target.Reference, evidence.StatusQualified, "missing"},
		{"no log under a failed row (the server never started)", nil, target.Reference, evidence.StatusFailed, ""},
		{"a TRTMC server's log is not ours to read", ptr(line(other)), target.TRTMC, evidence.StatusQualified, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "asr", "row"), 0o755); err != nil {
				t.Fatal(err)
			}
			if c.log != nil {
				mustWrite(t, filepath.Join(dir, "asr", "row", "server.log"), []byte(*c.log))
			}
			row := &Row{Where: "asr/row", Stage: evidence.Stage{TargetKind: string(c.kind)}, Result: evidence.Result{
				Status: c.status, Records: "asr/row/server-records.jsonl", Bundle: evidence.Bundle{SHA256Served: served}}}
			got := serverLogBundleCheck(&Run{Dir: dir, Rows: []*Row{row}})
			if c.want == "" && len(got) != 0 || c.want != "" && !anyProblemHas(got, c.want) {
				t.Fatalf("want %q, got %v", c.want, got)
			}
		})
	}
}

func ptr(s string) *string { return &s }
