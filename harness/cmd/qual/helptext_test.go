package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// flagName is a flag as a user writes it (-x or --x: Go's flag package takes both).
var flagName = regexp.MustCompile(`(?:^|[\s\[|(])--?([a-z][a-z0-9-]*)`)

// definedFlag is a flag as flag.PrintDefaults lists it.
var definedFlag = regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)`)

func flagsIn(s string) []string {
	var out []string
	for _, m := range flagName.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return uniq(out)
}

func uniq(s []string) []string {
	sort.Strings(s)
	return slices.Compact(s)
}

// acceptedFlags are the flags a command parses, as its --help lists them: qual's own, or for a
// command another binary runs (qual-run), that binary's.
func acceptedFlags(t *testing.T, name string) []string {
	t.Helper()
	code, help, errOut := qualRun(t, name, "--help")
	if code != exitOK {
		t.Fatalf("qual %s --help: exit %d %s", name, code, errOut)
	}
	if strings.Contains(help, "\nRun by qual-run ") { // its flags are qual-run's
		needQualRun(t)
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(filepath.Join(filepath.Dir(self), "qual-run"), name, "--help").CombinedOutput()
		if err != nil {
			t.Fatalf("qual-run %s --help: %v\n%s", name, err, out)
		}
		help = string(out)
	}
	var out []string
	for _, m := range definedFlag.FindAllStringSubmatch(help, -1) {
		out = append(out, m[1])
	}
	return uniq(out)
}

// What a user reads about a command names exactly the flags it takes: its synopsis (the usage
// line of `qual --help` and `qual CMD --help`) lists every flag the command parses and none it
// does not, and its example uses only flags it takes. For every command of the registry,
// those another binary runs included.
func TestEveryCommandsHelpListsTheFlagsItTakes(t *testing.T) {
	for name, s := range commands() {
		accepted := acceptedFlags(t, name)
		if got := flagsIn(s.args); !slices.Equal(got, accepted) {
			t.Errorf("qual %s: the synopsis %q names flags %v; the command takes %v", name, s.args, got, accepted)
		}
		for _, f := range flagsIn(s.example) {
			if !slices.Contains(accepted, f) {
				t.Errorf("qual %s: the example %q uses --%s, which it does not take", name, s.example, f)
			}
		}
	}
}

// readmeCommand is a qual command line the README shows: in a code span or a shell block.
var readmeCommand = regexp.MustCompile("(?m)(?:`|^\\s*)(?:build/bin/)?qual ([a-z][a-z-]*)([^`#\\n]*)")

// Every qual command the README tells a user to run exists, with flags it takes (a make
// variable that passes flags to one, CAPACITY_FLAGS, included).
func TestEveryQualCommandTheReadmeShowsExists(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot(), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	cmds := commands()
	seen := 0
	for _, m := range readmeCommand.FindAllStringSubmatch(readme, -1) {
		name, rest := m[1], m[2]
		if _, ok := cmds[name]; !ok {
			if name == "help" || name == "version" {
				continue
			}
			t.Errorf("the README runs `qual %s%s`: there is no such command", name, rest)
			continue
		}
		seen++
		accepted := acceptedFlags(t, name)
		for _, f := range flagsIn(rest) {
			if !slices.Contains(accepted, f) {
				t.Errorf("the README runs `qual %s%s`: qual %s takes no --%s (it takes %v)", name, rest, name, f, accepted)
			}
		}
	}
	for _, m := range regexp.MustCompile(`CAPACITY_FLAGS="([^"]*)"`).FindAllStringSubmatch(readme, -1) {
		for _, f := range flagsIn(m[1]) {
			if !slices.Contains(acceptedFlags(t, "capacity"), f) {
				t.Errorf("the README passes --%s to qual capacity (CAPACITY_FLAGS), which it does not take", f)
			}
		}
	}
	if seen < 10 {
		t.Errorf("found %d qual commands in the README: the pattern no longer reads it", seen)
	}
}
