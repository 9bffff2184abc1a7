package target

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Checkout is the TRTMC checkout a run used: its commit, and a warning when its commands may
// differ from the ones the target file was read from (TRTMC's CLIs change between commits:
// services.py @0dc2b04c passes --revision, which cli.py @1797a247 does not define).
type Checkout struct {
	Commit  string `json:"commit"` // git rev-parse HEAD, or "not a git checkout"
	Warning string `json:"warning,omitempty"`
}

// NotGit is Checkout.Commit for a root that is not a git checkout.
const NotGit = "not a git checkout"

// Checkout reads the commit of the target's root and compares it with the commits the target's
// commands were read from (read_from): every one of them must be in the checkout's history, and
// the checkout must have no commits after all of them. Outside that range it warns, naming why.
func (t *Target) Checkout(ctx context.Context) Checkout {
	git := func(args ...string) (string, error) {
		out, err := exec.CommandContext(ctx, "git", append([]string{"-C", t.Root}, args...)...).Output()
		return strings.TrimSpace(string(out)), err
	}
	top, err := git("rev-parse", "--show-toplevel")
	if err != nil || !sameDir(top, t.Root) { // a directory inside another repository is not a checkout of TRTMC
		return Checkout{Commit: NotGit, Warning: t.unknownRange("it is not a git checkout")}
	}
	head, err := git("rev-parse", "HEAD")
	if err != nil {
		return Checkout{Commit: NotGit, Warning: t.unknownRange("it has no commit")}
	}
	c := Checkout{Commit: head}
	if len(t.ReadFrom) == 0 {
		return c
	}
	var older, absent []string
	for _, read := range t.ReadFrom {
		if _, err := git("cat-file", "-e", read+"^{commit}"); err != nil {
			absent = append(absent, read)
		} else if _, err := git("merge-base", "--is-ancestor", read, "HEAD"); err != nil {
			older = append(older, read)
		}
	}
	switch {
	case len(absent) > 0:
		c.Warning = t.unknownRange(fmt.Sprintf("it lacks commits %s (a shallow clone, or another history)", strings.Join(absent, ", ")))
	case len(older) > 0:
		c.Warning = fmt.Sprintf("TRTMC checkout %s is older than commits %s that target %s's commands were read from: check every command with `qual plan`",
			short(head), strings.Join(older, ", "), t.Name)
	default:
		excl := []string{"rev-list", "--count", "HEAD"}
		for _, read := range t.ReadFrom {
			excl = append(excl, "^"+read)
		}
		if out, err := git(excl...); err == nil {
			if n, _ := strconv.Atoi(out); n > 0 {
				c.Warning = fmt.Sprintf("TRTMC checkout %s has %d commits after the newest one target %s's commands were read from (%s): check every command with `qual plan`",
					short(head), n, t.Name, strings.Join(t.ReadFrom, ", "))
			}
		}
	}
	return c
}

func (t *Target) unknownRange(why string) string {
	return fmt.Sprintf("cannot tell whether this TRTMC checkout is within the commits target %s's commands were read from (%s): %s; check every command with `qual plan`",
		t.Name, strings.Join(t.ReadFrom, ", "), why)
}

func sameDir(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}
