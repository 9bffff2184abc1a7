package report

import (
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/plot"
	"github.com/trtmc-qual/trtmc-qual/harness/stats/schema"
)

// withTimeline gives r one AIPerf run's timeline PNG under dir and its no-caching figures.
func withTimeline(t *testing.T, dir string, r *evidence.Result) {
	t.Helper()
	png, err := plot.Timeline{Title: r.Profile, Lanes: 2, Spans: []plot.Span{{ArrivalS: 0, TaskS: 1, EndS: 1.1, Warmup: true}, {ArrivalS: 1.2, QueueS: 0.2, TaskS: 1, EndS: 2.5}}}.PNG(48)
	if err != nil {
		t.Fatal(err)
	}
	rel := filepath.Join("asr", r.Profile, "timeline-run-01.png")
	if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, rel), png, 0o644); err != nil {
		t.Fatal(err)
	}
	r.Timelines = []string{rel}
	r.ServerMetrics = []string{"asr/" + r.Profile + "/aiperf/artifacts/server_metrics_export.json"}
	native := 3100.0
	r.NoCache = &evidence.NoCache{Input: "1089-134686-0000", Concurrency: 2, K: 8, Repeats: make([]evidence.NoCacheRequest, 8), Fresh: make([]evidence.NoCacheRequest, 8),
		RepeatMedianMS: 2712.4, FreshMedianMS: 2730.9, ShiftFraction: -0.012, ShiftFractionCI: schema.Bounds{Lower: -0.061, Upper: 0.034}, NativeTaskMS: &native, Passed: true}
}

func TestReportsShowTheNoCachingFiguresAndTimelines(t *testing.T) {
	dir := t.TempDir()
	e := sampleRun()
	e.Stages[0].Results[0].Plot = ""
	withTimeline(t, dir, &e.Stages[0].Results[0])
	page, err := HTML(dir, e)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<table class="nocache">`, "1089-134686-0000", "8 + 8 at c=2", "2712.4 / 2730.9", "-1.2% [-6.1%, +3.4%]", "3100.0", "passed",
		`src="data:image/png;base64,`, "AIPerf run 1 seen from the server",
		`<a href="asr/sphinx-en-us/aiperf/artifacts/server_metrics_export.json">run 1</a>`} {
		if !strings.Contains(html.UnescapeString(string(page)), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	md := Markdown(e)
	if !strings.Contains(md, "| sphinx-en-us | 1089-134686-0000 | 8 + 8 at c=2 | 2712.4 / 2730.9 | -1.2% [-6.1%, +3.4%] | 3100.0 | passed |") {
		t.Errorf("qualification.md lacks the no-caching row:\n%s", md)
	}
	if !strings.Contains(md, "/metrics, sphinx-en-us: [run 1](asr/sphinx-en-us/aiperf/artifacts/server_metrics_export.json)") {
		t.Errorf("qualification.md lacks the server-metrics link:\n%s", md)
	}
	e.Stages[0].Results[0].NoCache.Passed, e.Stages[0].Results[0].NoCache.Failures = false, []string{"may cache results: repeats faster"}
	if page, _ := HTML(dir, e); !strings.Contains(string(page), "FAILED: may cache results: repeats faster") {
		t.Error("a failed check is not shown failed")
	}
	e.Stages[0].Results[0].Timelines = []string{"../outside.png"}
	if _, err := HTML(dir, e); err == nil {
		t.Fatal("a timeline path leaving the run directory must be refused")
	}
}
