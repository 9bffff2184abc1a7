package images

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Two checkouts building at once keep each other's images: a build prunes only its own
// checkout's earlier builds and those of a checkout that no longer exists, and an image that a
// live checkout found already built (the builder's checkout since deleted) is that checkout's
// too. Needs the engine (make test starts it).
func TestPruneKeepsAnotherLiveCheckoutsBuild(t *testing.T) {
	ctx := context.Background()
	if err := CheckEngine(ctx); err != nil {
		t.Fatal(err)
	}
	const repo = "trtmc-qual/prune-test"
	t.Cleanup(func() { removeRepo(repo) })
	cache := t.TempDir()
	a := &Builder{Log: io.Discard, CacheDir: cache, Root: t.TempDir()}
	b := &Builder{Log: io.Discard, CacheDir: cache, Root: t.TempDir()}
	build := func(by *Builder, content string) string {
		t.Helper()
		f := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		tag, err := by.build(ctx, repo, buildContext{dockerfile: "FROM scratch\nCOPY f /f\n", files: map[string]string{"f": f}})
		if err != nil {
			t.Fatal(err)
		}
		return tag
	}
	a1 := build(a, "a1")
	b1 := build(b, "b1")
	a2 := build(a, "a2")
	for tag, want := range map[string]bool{a1: false, b1: true, a2: true} {
		if Exists(ctx, tag) != want {
			t.Errorf("after checkout A's second build: %s present %v, want %v", tag, !want, want)
		}
	}
	if err := os.RemoveAll(b.Root); err != nil {
		t.Fatal(err)
	}
	a3 := build(a, "a3")
	for tag, want := range map[string]bool{b1: false, a2: false, a3: true} {
		if Exists(ctx, tag) != want {
			t.Errorf("after checkout B is gone: %s present %v, want %v", tag, !want, want)
		}
	}

	// C finds A's build of the same inputs; A goes away; D's build must leave it to C.
	c := &Builder{Log: io.Discard, CacheDir: cache, Root: t.TempDir()}
	d := &Builder{Log: io.Discard, CacheDir: cache, Root: t.TempDir()}
	if shared := build(c, "a3"); shared != a3 {
		t.Fatalf("the same inputs gave %s, not A's %s", shared, a3)
	}
	if err := os.RemoveAll(a.Root); err != nil {
		t.Fatal(err)
	}
	d1 := build(d, "d1")
	if !Exists(ctx, a3) {
		t.Errorf("%s, built by a deleted checkout and used by the live checkout C, was pruned by D's build", a3)
	}
	if err := os.RemoveAll(c.Root); err != nil {
		t.Fatal(err)
	}
	build(d, "d2")
	for tag, want := range map[string]bool{a3: false, d1: false} {
		if Exists(ctx, tag) != want {
			t.Errorf("after checkouts A and C are gone: %s present %v, want %v", tag, !want, want)
		}
	}
}

func removeRepo(repo string) {
	out, _ := exec.Command("docker", "images", "-q", repo).Output()
	for _, id := range strings.Fields(string(out)) {
		exec.Command("docker", "rmi", "-f", id).Run()
	}
}
