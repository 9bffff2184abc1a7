package evidence

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A run whose binaries carry the qual_slowdown tag is a test build: every stage qualified still
// gives the verdict TEST BUILD, and both reports open with the banner saying so.
func TestTestBuildIsNeverQualified(t *testing.T) {
	e := Evidence{RunID: "slow", Stages: []Stage{{Stage: "asr", Number: 3, Status: "qualified"}}}
	e.Versions = map[string]string{BuildTagsKey: "none"}
	if got := Verdict(e); got != "QUALIFIED" {
		t.Fatalf("normal build: %s", got)
	}
	if strings.Contains(Markdown(e), "> **TEST BUILD") || strings.Contains(Markdown(e), "**Verdict: TEST BUILD") {
		t.Error("a normal build's report mentions a test build")
	}
	e.Versions = map[string]string{BuildTagsKey: "netgo,qual_slowdown"}
	if got := Verdict(e); got != "TEST BUILD" {
		t.Errorf("test build: verdict %s", got)
	}
	md := Markdown(e)
	banner := "> **TEST BUILD with injected slowdown: whisper-tiny-en's Task 20% slower (build tags: qual_slowdown), not a qualification.**"
	if i := strings.Index(md, banner); i < 0 || i > strings.Index(md, "**Verdict: TEST BUILD**") {
		t.Errorf("markdown lacks the banner before the verdict:\n%s", md)
	}
	dir := t.TempDir()
	if err := WriteHTML(dir, e); err != nil {
		t.Fatal(err)
	}
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), `id="testbuild"><strong>TEST BUILD with injected slowdown`) || !strings.Contains(string(html), "Verdict: TEST BUILD") {
		t.Error("report.html lacks the test-build banner or verdict")
	}
}

func TestMergedBuildTagsKeepEveryShardsTags(t *testing.T) {
	stages := []Stage{{Versions: map[string]string{BuildTagsKey: "none"}}, {Versions: map[string]string{BuildTagsKey: "qual_slowdown"}}, {}}
	if got := mergeBuildTags(stages); got != "qual_slowdown" {
		t.Errorf("merged %q", got)
	}
	if got := mergeBuildTags(stages[:1]); got != "none" {
		t.Errorf("normal %q", got)
	}
	if got := TestBuildTags(map[string]string{BuildTagsKey: "other"}); got != nil {
		t.Errorf("a tag that is no test build: %v", got)
	}
}
