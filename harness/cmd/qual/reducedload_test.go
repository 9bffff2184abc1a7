package main

import (
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/plan"
	"github.com/trtmc-qual/trtmc-qual/harness/report"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
)

// reducedRun writes an ASR stage of the reference target run with the given QUAL_ASR_* load
// (every resulting row given the result its kind reaches), reports it, and returns the run and
// the stage's recorded reduced load.
func reducedRun(t *testing.T, load map[string]string) (string, []string) {
	t.Helper()
	useTarget(t, "reference.yaml", "")
	for _, v := range []string{"QUAL_ASR_RUNS", "QUAL_ASR_REQUESTS", "QUAL_ASR_WARMUP", "QUAL_ASR_CONCURRENCY"} {
		t.Setenv(v, load[v])
	}
	p, err := plan.FromEnv(stage.ASR)
	if err != nil {
		t.Fatal(err)
	}
	run := p.NewStageRun("")
	for _, row := range p.Rows {
		if !evidence.Resulting(row) {
			continue
		}
		status := evidence.StatusFamilyValidated
		if row.Counted {
			status = evidence.StatusQualified
		}
		run.Add(evidence.Result{Profile: row.Profile, Checkpoint: row.Checkpoint, Kind: row.Kind, Counted: row.Counted, Status: status})
	}
	dir := t.TempDir()
	if err := run.Write(dir, map[string]string{"go": "test"}, evidence.Hardware{}); err != nil {
		t.Fatal(err)
	}
	return dir, run.Snapshot().Selection.ReducedLoad
}

// TestAReducedLoadIsNoQualificationInEveryOutput: a run whose AIPerf counts are below the target
// file's (make test-run's TEST_LOAD: fewer runs) selects every row and every row qualifies, yet it
// is no qualification, and every output says so in the same words: the console summary, the
// verdict of qualification.md and report.html with a scope line, summary.json (verdict, scope,
// qualification false), the JUnit report's scope property, and qual verify's first line. A raised
// count or another concurrency is not a reduction; the target's own load is a qualification.
func TestAReducedLoadIsNoQualificationInEveryOutput(t *testing.T) {
	t.Setenv("QUAL_CACHE", t.TempDir())
	t.Setenv("QUAL_SIGNING_KEY", "")
	for _, c := range []struct {
		name    string
		load    map[string]string
		reduced []string
	}{
		{"make test-run's load", map[string]string{"QUAL_ASR_WARMUP": "2", "QUAL_ASR_REQUESTS": "8", "QUAL_ASR_RUNS": "2"}, []string{"runs 2 of 5"}},
		{"fewer of each", map[string]string{"QUAL_ASR_WARMUP": "1", "QUAL_ASR_REQUESTS": "3", "QUAL_ASR_RUNS": "1"}, []string{"runs 1 of 5", "requests 3 of 7", "warmup 1 of 2"}},
		{"fewer requests only", map[string]string{"QUAL_ASR_REQUESTS": "6"}, []string{"requests 6 of 7"}},
		{"more of each, another concurrency", map[string]string{"QUAL_ASR_REQUESTS": "9", "QUAL_ASR_RUNS": "6", "QUAL_ASR_CONCURRENCY": "1"}, nil},
		{"the target's load", nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, reduced := reducedRun(t, c.load)
			if !slices.Equal(reduced, c.reduced) {
				t.Fatalf("recorded reduced load %q, want %q", reduced, c.reduced)
			}
			code, console, errOut := qualRun(t, "report", "--fail-on", "failed", dir)
			if code != exitOK {
				t.Fatalf("qual report: exit %d %s", code, errOut)
			}
			e, err := evidence.Read(dir)
			if err != nil {
				t.Fatal(err)
			}
			verdict := evidence.Verdict(e)
			var want string
			if c.reduced != nil {
				want = "REDUCED LOAD — not a qualification: 6 of 6 rows, at a load below the target's (asr: " + strings.Join(c.reduced, ", ") + ")"
			}
			narrowed := strings.HasPrefix(verdict, want) && want != ""
			if (c.reduced != nil) != narrowed || (c.reduced == nil && strings.Contains(verdict, "not a qualification")) {
				t.Fatalf("verdict %q, want it to start %q", verdict, want)
			}
			if !strings.Contains(console, "\nVerdict: "+verdict+"\n") {
				t.Errorf("console:\n%s\nlacks the verdict %q", console, verdict)
			}
			for _, f := range []string{"qualification.md", "report.html"} {
				data, _ := os.ReadFile(filepath.Join(dir, f))
				text := html.UnescapeString(string(data))
				if !strings.Contains(text, "Verdict: "+verdict) || (c.reduced != nil) != strings.Contains(text, "it measured at a load below the target's (asr: "+strings.Join(c.reduced, ", ")+")") {
					t.Errorf("%s: verdict or scope line missing for %q", f, verdict)
				}
			}
			var sum report.Summary
			data, _ := os.ReadFile(filepath.Join(dir, report.SummaryFile))
			if err := json.Unmarshal(data, &sum); err != nil {
				t.Fatal(err)
			}
			scope := evidence.ScopeWords(evidence.ScopeOf(e))
			if sum.Verdict != verdict || sum.Qualification != (c.reduced == nil) || sum.Scope.Words != scope || (len(sum.Scope.ReducedLoad) > 0) != (c.reduced != nil) {
				t.Errorf("summary.json: verdict %q, qualification %v, scope %+v; want %q, words %q", sum.Verdict, sum.Qualification, sum.Scope, verdict, scope)
			}
			if got := report.JUnitStageProperties(e.Stages[0])["scope"]; got != scope || (c.reduced != nil) != strings.Contains(got, "REDUCED LOAD — not a qualification") {
				t.Errorf("JUnit scope property %q, want %q", got, scope)
			}
			if code, _, errOut := qualRun(t, "sign", dir); code != exitOK {
				t.Fatalf("sign: %s", errOut)
			}
			_, out, _ := qualRun(t, "verify", dir)
			if first := firstLine(out); !strings.Contains(first, "verdict "+verdict) {
				t.Errorf("verify's first line %q lacks the verdict %q", first, verdict)
			}
		})
	}
}
