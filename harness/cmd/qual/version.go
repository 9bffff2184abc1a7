package main

import (
	"fmt"
	"runtime/debug"
)

// version is `qual --version`: the module version and the commit it was built from, as the Go
// toolchain stamped them into the binary (`go build` stamps the commit; `go run` does not).
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "qual: no build information in this binary"
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	commit := settings["vcs.revision"]
	switch {
	case commit == "":
		commit = "not stamped in this binary (go run does not record it; go build in a git checkout does)"
	case settings["vcs.modified"] == "true":
		commit += " (with uncommitted changes)"
	}
	if t := settings["vcs.time"]; t != "" {
		commit += ", committed " + t
	}
	return fmt.Sprintf("qual %s %s\ncommit %s\n%s\n", info.Main.Path, info.Main.Version, commit, info.GoVersion)
}
