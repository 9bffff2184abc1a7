package sysinfo

import (
	"debug/buildinfo"
	"runtime/debug"
	"sort"
	"strings"
)

// BuildTags is the sorted union of the Go build tags (`-tags`) of the running binary and of the
// given Go binaries (the trtmc-native and trtmc-server the run used), read from their embedded
// build information without running them: a test build (`-tags qual_slowdown`) then shows in
// the evidence whichever binary carries it. A binary that is missing or not Go adds nothing.
func BuildTags(binaries ...string) []string {
	seen := map[string]bool{}
	if info, ok := debug.ReadBuildInfo(); ok {
		addTags(seen, info)
	}
	for _, path := range binaries {
		if info, err := buildinfo.ReadFile(path); err == nil {
			addTags(seen, info)
		}
	}
	out := make([]string, 0, len(seen))
	for tag := range seen {
		out = append(out, tag)
	}
	sort.Strings(out)
	return out
}

func addTags(seen map[string]bool, info *debug.BuildInfo) {
	for _, s := range info.Settings {
		if s.Key != "-tags" {
			continue
		}
		for _, tag := range strings.Split(s.Value, ",") {
			if tag = strings.TrimSpace(tag); tag != "" {
				seen[tag] = true
			}
		}
	}
}

// BuildTagsValue is how the evidence's versions record the tags: comma-separated, or "none".
func BuildTagsValue(tags []string) string {
	if len(tags) == 0 {
		return "none"
	}
	return strings.Join(tags, ",")
}
