package qualify

import (
	"fmt"
	"io"
	"strings"

	"github.com/onsi/ginkgo/v2/types"
)

// consoleReporter is Ginkgo's reporter configuration for the run's console. Verbose
// (QUAL_VERBOSE, make V=1, or a user's own ginkgo -v) prints every spec's detail as it streams.
// Otherwise Ginkgo prints one line per claim (its documentation format) and nothing for a skipped
// spec; consoleText adds what that format leaves out: a failure in full, a skip's reason.
func consoleReporter(rc types.ReporterConfig, verbose bool) types.ReporterConfig {
	if verbose {
		rc.Verbose, rc.FdOutput = true, false
		return rc
	}
	if rc.Verbosity().GTE(types.VerbosityLevelVerbose) {
		return rc
	}
	// Not succinct (ginkgo's default for several suites): its suite header ends in no newline,
	// and the documentation format names the stage itself.
	rc.FdOutput, rc.SilenceSkips, rc.Succinct = true, true, false
	return rc
}

// consoleText is what the default console adds for one finished node: a failure in full (its
// message, location, the node's log and report entries), or the reason a spec was skipped with
// one (a planned or blocked claim); nothing for a passed spec or one the run did not select.
func consoleText(r types.SpecReport) string {
	var b strings.Builder
	switch {
	case r.Failed():
		fmt.Fprintf(&b, "%s: %s\n", strings.ToUpper(r.State.String()), name(r))
		fmt.Fprintf(&b, "  %s\n  at %s\n", indent(r.Failure.Message), r.Failure.Location)
		if out := strings.TrimRight(r.CapturedGinkgoWriterOutput, "\n"); out != "" {
			fmt.Fprintf(&b, "  log:\n    %s\n", strings.ReplaceAll(out, "\n", "\n    "))
		}
		for _, e := range r.ReportEntries {
			if e.Visibility != types.ReportEntryVisibilityNever {
				fmt.Fprintf(&b, "  %s: %s\n", e.Name, indent(e.StringRepresentation()))
			}
		}
	case r.State.Is(types.SpecStateSkipped) && r.Failure.Message != "":
		fmt.Fprintf(&b, "SKIPPED: %s: %s\n", name(r), r.Failure.Message)
	}
	return b.String()
}

// name is the node's full text, or its kind for a suite-level node.
func name(r types.SpecReport) string {
	if r.LeafNodeType.Is(types.NodeTypesForSuiteLevelNodes) {
		return fmt.Sprintf("[%s] %s", r.LeafNodeType, r.LeafNodeText)
	}
	return r.FullText()
}

func indent(s string) string { return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ") }

// writeConsole writes consoleText of each report to w.
func writeConsole(w io.Writer, reports ...types.SpecReport) {
	for _, r := range reports {
		fmt.Fprint(w, consoleText(r))
	}
}
