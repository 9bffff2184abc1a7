package report

import (
	"fmt"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// writeSkipped lists, under the row table, every input a row did not send and why.
func writeSkipped(b *strings.Builder, s evidence.Stage) {
	n := 0
	for _, r := range s.Results {
		n += len(r.Skipped)
	}
	if n == 0 {
		return
	}
	fmt.Fprintf(b, "Inputs not sent (%d): beyond their family's declared limits, sent neither natively, nor over HTTP, nor by AIPerf:\n\n", n)
	for _, r := range s.Results {
		for _, sk := range r.Skipped {
			fmt.Fprintf(b, "- %s: clip `%s` (%.2f s, %d Hz): %s\n", r.Profile, sk.Clip, sk.Seconds, sk.SampleRate, sk.Reason)
		}
	}
	b.WriteString("\n")
}

// skippedLines is the same list for one row, for report.html.
func skippedLines(r evidence.Result) []string {
	out := make([]string, 0, len(r.Skipped))
	for _, sk := range r.Skipped {
		out = append(out, fmt.Sprintf("clip %s (%.2f s, %d Hz) not sent: %s", sk.Clip, sk.Seconds, sk.SampleRate, sk.Reason))
	}
	return out
}
