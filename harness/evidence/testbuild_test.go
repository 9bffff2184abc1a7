package evidence

import "testing"

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
