package report

import (
	"encoding/base64"
	"fmt"
	"html/template"
	"path/filepath"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
)

// NoCacheCells are a row's no-caching figures (harness/nocache) as the reports show them:
// repeats and fresh variants, their medians, the paired ratio with its interval, the native time and the
// verdict.
func NoCacheCells(n *evidence.NoCache) []string {
	native := "not printed"
	if n.NativeTaskMS != nil {
		native = fmt.Sprintf("%.1f", *n.NativeTaskMS)
	}
	verdict := "passed"
	if !n.Passed {
		verdict = "FAILED: " + strings.Join(n.Failures, "; ")
	}
	return []string{n.Input, fmt.Sprintf("%d + %d at c=%d", len(n.Repeats), len(n.Fresh), n.Concurrency),
		fmt.Sprintf("%.1f / %.1f", n.RepeatMedianMS, n.FreshMedianMS),
		fmt.Sprintf("%+.1f%% [%+.1f%%, %+.1f%%]", 100*n.ShiftFraction, 100*n.ShiftFractionCI.Lower, 100*n.ShiftFractionCI.Upper),
		native, verdict}
}

// noCacheHeader names NoCacheCells' columns.
var noCacheHeader = []string{"profile", "input", "repeats + fresh", "median repeat / fresh Task ms", "paired ratio repeat/fresh − 1 (interval)", "native Task ms", "verdict"}

// writeNoCache is the no-caching table: only rows that ran the check.
func writeNoCache(b *strings.Builder, s evidence.Stage) {
	header := false
	for _, r := range s.Results {
		if r.NoCache == nil {
			continue
		}
		if !header {
			fmt.Fprintf(b, "No caching (repeats of one input beside fresh variants of equal cost, in pairs; fails when the %.0f%% signed-rank interval of the paired ratio lies wholly below −%.0f%% or the repeats' median under %.0f%% of the native run):\n\n| %s |\n|%s\n",
				100*r.NoCache.Level, 100*r.NoCache.Margin, 100*r.NoCache.NativeFloor, strings.Join(noCacheHeader, " | "), strings.Repeat("---|", len(noCacheHeader)))
			header = true
		}
		fmt.Fprintf(b, "| %s | %s |\n", r.Profile, strings.Join(NoCacheCells(r.NoCache), " | "))
	}
	if header {
		b.WriteString("\n")
	}
}

// timelineURIs inlines a row's timeline PNGs (gonum draws them in harness/figures; the report
// only reads the files); only a .png file inside the run directory is read. They are inlined
// rather than linked so that the page stays one self-contained file under its img-src data:
// policy.
func timelineURIs(runDir string, r evidence.Result) ([]template.URL, error) {
	var out []template.URL
	for _, p := range r.Timelines {
		if !filepath.IsLocal(p) || filepath.Ext(p) != ".png" {
			return nil, fmt.Errorf("timeline path %q is not a .png file inside the run directory", p)
		}
		data, err := runfile.ReadIn(runDir, p)
		if err != nil {
			return nil, fmt.Errorf("inline timeline: %w", err)
		}
		out = append(out, template.URL("data:image/png;base64,"+base64.StdEncoding.EncodeToString(data)))
	}
	return out, nil
}

// writeServerMetrics links each row's AIPerf server-metrics exports (its scrape of /metrics).
func writeServerMetrics(b *strings.Builder, s evidence.Stage) {
	for _, r := range s.Results {
		if len(r.ServerMetrics) == 0 {
			continue
		}
		links := make([]string, len(r.ServerMetrics))
		for i, f := range r.ServerMetrics {
			links[i] = fmt.Sprintf("[run %d](%s)", i+1, f)
		}
		fmt.Fprintf(b, "AIPerf's scrape of the server's /metrics, %s: %s\n\n", r.Profile, strings.Join(links, " "))
	}
}
