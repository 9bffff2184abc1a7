package verify

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// TestJUnitGateIsReread: a TRTMC row's gate verdict must be what the JUnit report stored in the
// run says; a tampered verdict or a missing report is caught.
func TestJUnitGateIsReread(t *testing.T) {
	run := t.TempDir()
	dir := filepath.Join(run, "asr", "p", "work")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "gate-junit.xml"), []byte(`<testsuites><testsuite><testcase name="test_official_checkpoint_e2e[p-case]" time="1"><failure message="WER 0.5 &gt; 0.35"/></testcase></testsuite></testsuites>`), 0o644)
	var problems []string
	report := func(where, format string, args ...any) {
		problems = append(problems, where+": "+fmt.Sprintf(format, args...))
	}
	r := evidence.Result{Profile: "p", Gate: &evidence.GateResult{Testcase: "p-case", Passed: true}}
	checkJUnitGate(run, "asr/p", "asr", r, report)
	if len(problems) != 1 || !strings.Contains(problems[0], "JUnit report says passed=false") {
		t.Fatalf("a passed verdict over a failed JUnit was not caught: %v", problems)
	}
	problems = nil
	r.Gate.Passed = false
	checkJUnitGate(run, "asr/p", "asr", r, report)
	if len(problems) != 0 {
		t.Fatalf("a faithful verdict was refused: %v", problems)
	}
	checkJUnitGate(t.TempDir(), "asr/p", "asr", r, report)
	if len(problems) != 1 || !strings.Contains(problems[0], "not in the run") {
		t.Fatalf("a missing report was not caught: %v", problems)
	}
}
