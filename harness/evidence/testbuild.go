package evidence

import (
	"sort"
	"strings"
)

// BuildTagsKey is the versions entry holding the Go build tags of the run's binaries
// (harness/sysinfo): "none" for a normal build.
const BuildTagsKey = "build_tags"

// testBuildEffect says what a test-build tag does to the binaries ("" for a tag that is not
// one). A run built with such a tag measured something else than the checkpoint: it is never a
// qualification, whatever its stages say.
func testBuildEffect(tag string) string {
	switch tag {
	case "qual_slowdown":
		return "injected slowdown: whisper-tiny-en's Task 20% slower"
	}
	return ""
}

// TestBuildTags are the test-build tags among a versions map's build tags (nil for a normal build).
func TestBuildTags(versions map[string]string) []string {
	var out []string
	for _, tag := range strings.Split(versions[BuildTagsKey], ",") {
		if testBuildEffect(strings.TrimSpace(tag)) != "" {
			out = append(out, strings.TrimSpace(tag))
		}
	}
	return out
}

// TestBuildBanner is the line a test build's report opens with ("" for a normal build).
func TestBuildBanner(versions map[string]string) string {
	tags := TestBuildTags(versions)
	if len(tags) == 0 {
		return ""
	}
	effects := make([]string, len(tags))
	for i, tag := range tags {
		effects[i] = testBuildEffect(tag)
	}
	return "TEST BUILD with " + strings.Join(effects, "; ") + " (build tags: " + strings.Join(tags, ",") +
		"), not a qualification"
}

// mergeBuildTags is the union of the stages' build tags, so a merged run whose shards were built
// differently keeps every tag (a test build in one shard makes the whole run a test build).
func mergeBuildTags(stages []Stage) string {
	seen := map[string]bool{}
	for _, s := range stages {
		for _, tag := range strings.Split(s.Versions[BuildTagsKey], ",") {
			if tag = strings.TrimSpace(tag); tag != "" && tag != "none" {
				seen[tag] = true
			}
		}
	}
	if len(seen) == 0 {
		return "none"
	}
	tags := make([]string, 0, len(seen))
	for tag := range seen {
		tags = append(tags, tag)
	}
	sort.Strings(tags)
	return strings.Join(tags, ",")
}
