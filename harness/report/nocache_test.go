package report

import (
	"html"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// withTimeline gives r a run of settings (picturesOf draws its timeline), a server-metrics
// scrape and its no-caching figures.
func withTimeline(r *evidence.Result) {
	r.Settings = map[string]any{"runs": 1.0, "lanes": 2.0}
	r.ServerMetrics = []string{"asr/" + r.Profile + "/aiperf/artifacts/server_metrics_export.json"}
	native := 3100.0
	r.NoCache = &evidence.NoCache{Input: "1089-134686-0000", Concurrency: 2, K: 8, Repeats: make([]evidence.NoCacheRequest, 8), Fresh: make([]evidence.NoCacheRequest, 8),
		RepeatMedianMS: 2712.4, FreshMedianMS: 2730.9, ShiftFraction: -0.012, ShiftFractionCI: evidence.Bounds{Lower: -0.061, Upper: 0.034}, NativeTaskMS: &native, Passed: true}
}

func TestReportsShowTheNoCachingFiguresAndTimelines(t *testing.T) {
	e := sampleRun()
	withTimeline(&e.Stages[0].Results[0])
	pics := picturesOf(e)
	page := HTML(e, pics)
	for _, want := range []string{`<table class="nocache">`, "1089-134686-0000", "8 + 8 at c=2", "2712.4 / 2730.9", "-1.2% [-6.1%, +3.4%]", "3100.0", "passed",
		`<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="timeline of sphinx-en-us, AIPerf run 1"`, "AIPerf run 1 seen from the server",
		`<a href="asr/sphinx-en-us/aiperf/artifacts/server_metrics_export.json">run 1</a>`} {
		if !strings.Contains(html.UnescapeString(string(page)), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	md := Markdown(e, nil)
	if !strings.Contains(md, "| sphinx-en-us | 1089-134686-0000 | 8 + 8 at c=2 | 2712.4 / 2730.9 | -1.2% [-6.1%, +3.4%] | 3100.0 | passed |") {
		t.Errorf("qualification.md lacks the no-caching row:\n%s", md)
	}
	if !strings.Contains(md, "/metrics, sphinx-en-us: [run 1](asr/sphinx-en-us/aiperf/artifacts/server_metrics_export.json)") {
		t.Errorf("qualification.md lacks the server-metrics link:\n%s", md)
	}
	e.Stages[0].Results[0].NoCache.Passed, e.Stages[0].Results[0].NoCache.Failures = false, []string{"may cache results: repeats faster"}
	if page := HTML(e, pics); !strings.Contains(string(page), "FAILED: may cache results: repeats faster") {
		t.Error("a failed check is not shown failed")
	}
	delete(pics, PictureKey("asr", "sphinx-en-us"))
	if md := Markdown(e, pics); !strings.Contains(md, "Timelines of sphinx-en-us: not drawn") || strings.Contains(md, "![timeline") {
		t.Errorf("a measured row whose files do not derive its pictures is not said to be not drawn:\n%s", md)
	}
}
