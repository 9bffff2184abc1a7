package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/internal/runfixture"
)

// TestNoBareQualifiedOutsideAFullRun: the console summary of a run that is no qualification of
// the target (a smoke run, a focus, a shard, a partial selection, a reduced load alone or with a
// smoke selection) has no line that says QUALIFIED, or a stage's or row's qualified status, without
// the run's scope word; the whole run at the target's load does, so that the check is seen to
// bite. (harness/report's test of the same name covers both reports and the JUnit properties.)
func TestNoBareQualifiedOutsideAFullRun(t *testing.T) {
	full := runfixture.PublishedRun(t)
	if len(bareLines(t, full, "SMOKE")) == 0 {
		t.Error("the whole run's console reads no bare QUALIFIED: the check cannot fail")
	}
	for _, n := range runfixture.Narrowings(full) {
		t.Run(n.Name, func(t *testing.T) {
			for _, line := range bareLines(t, n.Evidence, n.Word) {
				t.Errorf("console line without %q: %q", n.Word, line)
			}
		})
	}
}

var (
	consoleQualified    = regexp.MustCompile(`\bQUALIFIED\b|\baiperf-qualified\b`)
	consoleNotQualified = regexp.MustCompile(`\bNOT QUALIFIED\b`)
)

// bareLines are the console summary's lines that claim a qualification without word: a stage's
// status, a row's status, or the verdict. A stage line's reason is left out: it is the stored
// evidence's prose, not a status word.
func bareLines(t *testing.T, e evidence.Evidence, word string) []string {
	t.Helper()
	var out strings.Builder
	printSummary(&out, "reports/x", e)
	var bare []string
	stage := 0
	for _, line := range strings.Split(out.String(), "\n") {
		text := line
		if strings.HasPrefix(line, "stage ") && stage < len(e.Stages) {
			text = strings.TrimSuffix(line, e.Stages[stage].Reason)
			stage++
		}
		text = consoleNotQualified.ReplaceAllString(text, "")
		if consoleQualified.MatchString(text) && !strings.Contains(text, word) {
			bare = append(bare, line)
		}
	}
	return bare
}
