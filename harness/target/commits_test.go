package target

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The checkout's commit goes into the evidence, with a warning when it is outside the commits the
// target's commands were read from.
func TestCheckoutWarnsOutsideTheCommitsReadFrom(t *testing.T) {
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=q", "-c", "user.email=q@example.invalid"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	ctx := context.Background()
	tg := &Target{Name: "trtmc", Root: dir}
	if c := tg.Checkout(ctx); c.Commit != NotGit || !strings.Contains(c.Warning, "not a git checkout") {
		t.Fatalf("not a checkout: %+v", c)
	}
	sub := &Target{Name: "trtmc", Root: filepath.Join(repoRoot(), "suites", "targets", "testdata", "trtmc-double")}
	if c := sub.Checkout(ctx); c.Commit != NotGit {
		t.Fatalf("a directory inside trtmc-qual's own repository: %+v", c)
	}
	git("init", "-q")
	var commits []string
	for i := 0; i < 3; i++ {
		git("commit", "-q", "--allow-empty", "-m", "c")
		commits = append(commits, git("rev-parse", "HEAD"))
	}
	tg.ReadFrom = []string{commits[0][:8], commits[1][:8]}
	if c := tg.Checkout(ctx); c.Commit != commits[2] || !strings.Contains(c.Warning, "1 commits after") {
		t.Errorf("a newer checkout: %+v", c)
	}
	git("checkout", "-q", commits[1])
	if c := tg.Checkout(ctx); c.Commit != commits[1] || c.Warning != "" {
		t.Errorf("the newest commit read from: %+v", c)
	}
	git("checkout", "-q", commits[0])
	if c := tg.Checkout(ctx); !strings.Contains(c.Warning, "older than commits "+commits[1][:8]) {
		t.Errorf("an older checkout: %+v", c)
	}
	tg.ReadFrom = []string{"0123456789abcdef"}
	if c := tg.Checkout(ctx); !strings.Contains(c.Warning, "lacks commits 0123456789abcdef") {
		t.Errorf("a commit the checkout lacks: %+v", c)
	}
}
