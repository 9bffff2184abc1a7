package main

import (
	"fmt"
	"runtime/debug"
)

// linkerCommit and linkerModified are the commit make bin stamps with -ldflags -X, for a build
// the toolchain does not stamp itself (a git worktree, GOFLAGS=-buildvcs=false); only the linker
// sets them.
var linkerCommit, linkerModified string

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
	commit, modified := settings["vcs.revision"], settings["vcs.modified"]
	if commit == "" {
		commit, modified = linkerCommit, linkerModified
	}
	switch {
	case commit == "":
		commit = "not stamped in this binary (go run does not record it; make bin and go build in a git clone do)"
	case modified == "true":
		commit += " (with uncommitted changes)"
	}
	if t := settings["vcs.time"]; t != "" {
		commit += ", committed " + t
	}
	return fmt.Sprintf("qual %s %s\ncommit %s\n%s\n", info.Main.Path, info.Main.Version, commit, info.GoVersion)
}
