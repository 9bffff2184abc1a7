package qualify

import (
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"
)

// The console's detail follows the run's configuration: QUAL_VERBOSE (or a user's own -v)
// streams every spec; otherwise one line per claim and skipped specs silent.
func TestConsoleReporterFollowsVerbose(t *testing.T) {
	for _, tc := range []struct {
		name     string
		in       types.ReporterConfig
		verbose  bool
		wantV    bool
		wantFd   bool
		wantSkip bool
	}{
		{"default", types.ReporterConfig{}, false, false, true, true},
		{"default, several suites (ginkgo makes it succinct)", types.ReporterConfig{Succinct: true}, false, false, true, true},
		{"QUAL_VERBOSE", types.ReporterConfig{}, true, true, false, false},
		{"QUAL_VERBOSE beside --fd", types.ReporterConfig{FdOutput: true}, true, true, false, false},
		{"a user's ginkgo -v", types.ReporterConfig{Verbose: true}, false, true, false, false},
	} {
		got := consoleReporter(tc.in, tc.verbose)
		if !tc.wantV && got.Succinct {
			t.Errorf("%s: succinct: its suite header leaves the line open for the next console line", tc.name)
		}
		if got.Verbosity().GTE(types.VerbosityLevelVerbose) != tc.wantV || got.FdOutput != tc.wantFd || got.SilenceSkips != tc.wantSkip {
			t.Errorf("%s: verbose %v, fd %v, silence skips %v; want %v %v %v", tc.name, got.Verbose, got.FdOutput, got.SilenceSkips, tc.wantV, tc.wantFd, tc.wantSkip)
		}
	}
}

// The default console prints a failure in full (message, location, the spec's log, its report
// entries), a skip's reason, and nothing for a passed spec or one the run did not select; every
// failure state is printed, and a suite-level node is named by its kind.
func TestConsoleTextShowsFailuresInFull(t *testing.T) {
	loc := types.CodeLocation{FileName: "qualify.go", LineNumber: 7}
	base := types.SpecReport{ContainerHierarchyTexts: []string{"Stage 3", "p (checkpoint c, full model, counted)"}, LeafNodeText: "joins every request",
		LeafNodeType: types.NodeTypeIt, CapturedGinkgoWriterOutput: "[asr/p] row 1/1 · asr\n[asr/p] server ready\n",
		ReportEntries: types.ReportEntries{{Name: "reproduce", Visibility: types.ReportEntryVisibilityFailureOrVerbose}}}
	base.ReportEntries[0].Value = types.WrapEntryValue("make qualify ROWS=p")
	for _, state := range []types.SpecState{types.SpecStateFailed, types.SpecStatePanicked, types.SpecStateTimedout, types.SpecStateAborted, types.SpecStateInterrupted} {
		r := base
		r.State, r.Failure = state, types.Failure{Message: "unmatched 2\nids a, b", Location: loc}
		got := consoleText(r)
		for _, want := range []string{strings.ToUpper(state.String()) + ": Stage 3 p (checkpoint c, full model, counted) joins every request",
			"unmatched 2\n  ids a, b", "at qualify.go:7", "[asr/p] server ready", "reproduce: make qualify ROWS=p"} {
			if !strings.Contains(got, want) {
				t.Errorf("%s: no %q in\n%s", state, want, got)
			}
		}
	}
	suiteNode := base
	suiteNode.LeafNodeType, suiteNode.LeafNodeText, suiteNode.State = types.NodeTypeBeforeSuite, "", types.SpecStateFailed
	suiteNode.Failure = types.Failure{Message: "images", Location: loc}
	if got := consoleText(suiteNode); !strings.HasPrefix(got, "FAILED: [BeforeSuite]") {
		t.Errorf("a failed BeforeSuite reads %q", got)
	}
	skipped := base
	skipped.State, skipped.Failure = types.SpecStateSkipped, types.Failure{Message: "planned: needs 2 GPUs"}
	if got := consoleText(skipped); got != "SKIPPED: Stage 3 p (checkpoint c, full model, counted) joins every request: planned: needs 2 GPUs\n" {
		t.Errorf("a skip with its reason reads %q", got)
	}
	for _, quiet := range []types.SpecState{types.SpecStatePassed, types.SpecStateSkipped} {
		r := base
		r.State = quiet
		if got := consoleText(r); got != "" {
			t.Errorf("%s without a message prints %q", quiet, got)
		}
	}
}
