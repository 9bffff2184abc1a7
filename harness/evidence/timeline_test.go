package evidence

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHTMLShowsEachRunsTimelineUnderItsRow(t *testing.T) {
	dir := t.TempDir()
	e := sampleRun()
	r := &e.Stages[0].Results[0]
	r.Plot = ""
	png := []byte("\x89PNG\r\n\x1a\n timeline bytes")
	for _, rel := range []string{"asr/m/timeline-run-01.png", "asr/m/timeline-run-02.png"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, rel), png, 0o644); err != nil {
			t.Fatal(err)
		}
		r.Timelines = append(r.Timelines, rel)
	}
	page, err := HTML(dir, e)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(page), `alt="timeline of `+r.Profile+`" src="data:image/png;base64,`); n != 2 {
		t.Fatalf("%d timelines inlined, want 2", n)
	}
	r.Timelines = []string{"../outside.png"}
	if _, err := HTML(dir, e); err == nil {
		t.Fatal("a timeline path leaving the run directory must be refused")
	}
}
