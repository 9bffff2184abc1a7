package main

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// treeDigest is every file and directory under dir with its content's hash: what a refused
// command must leave as it was.
func treeDigest(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			fmt.Fprintf(&b, "%s/\n", rel)
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %x\n", rel, sha256.Sum256(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestOutputIntoARunIsRefusedWhereverThePathLeads: qual report -o, qual compare -o and qual merge -o
// (a new directory) refuse every
// destination that is a run or lies inside one — the run being rendered, another signed run, an
// unsigned reported run, a run the suites wrote but no report yet — however the path gets there:
// absolute, relative to the working directory, through "..", through a link to the run or to a
// directory inside it, through a link's ".." (the link target's parent, which the lexical path
// hides), through a dangling link whose target would be made inside a run. Each is exit 2 with one
// line in the bad-run-directory style, and no run changes. Destinations outside every run —
// including one whose lexical form names a run but whose links lead out — are rendered.
func TestOutputIntoARunIsRefusedWhereverThePathLeads(t *testing.T) {
	t.Setenv("QUAL_CACHE", t.TempDir())
	t.Setenv("QUAL_SIGNING_KEY", "")
	t.Setenv("QUAL_ROOT", repoRoot()) // the tests change directory
	src := plannedRun(t)
	if _, err := run(t, runSign, src); err != nil {
		t.Fatal(err)
	}
	other := plannedRun(t)
	if _, err := run(t, runSign, other); err != nil {
		t.Fatal(err)
	}
	unsigned := plannedRun(t)
	suitesOnly := t.TempDir()
	if err := os.MkdirAll(filepath.Join(suitesOnly, "asr"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(suitesOnly, "asr", "stage.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	links := t.TempDir()
	outside := t.TempDir()
	link := func(name, to string) string {
		p := filepath.Join(links, name)
		if err := os.Symlink(to, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	runs := map[string]string{"source": src, "other signed": other, "unsigned": unsigned, "suites only": suitesOnly}
	var refused []string
	for name, r := range runs {
		slug := strings.ReplaceAll(name, " ", "-")
		refused = append(refused,
			r, r+"/", filepath.Join(r, "t2i"), filepath.Join(r, "new", "deeper"), r+"/new/../t2i", r+"/t2i/../../"+filepath.Base(r)+"/x",
			link(slug+"-run", r), link(slug+"-inside", filepath.Join(r, "t2i")), link(slug+"-inside-up", filepath.Join(r, "t2i"))+"/..",
			link(slug+"-inside-new", filepath.Join(r, "t2i"))+"/new", link(slug+"-dangling", filepath.Join(r, "not-yet")),
			link(slug+"-parent", filepath.Dir(r))+"/"+filepath.Base(r)+"/out",
			outside+"/../"+filepath.Base(r)+"/out") // t.TempDir()s are siblings
	}
	// Relative paths resolve against the working directory.
	t.Chdir(src)
	refused = append(refused, ".", "t2i", "new/x", "../"+filepath.Base(src)+"/y")
	before := map[string]string{}
	for name, r := range runs {
		before[name] = treeDigest(t, r)
	}
	for _, out := range refused {
		for _, args := range [][]string{{"report", "--fail-on", "failed", "-o", out, src}, {"compare", "-o", out, src, other}, {"merge", "-o", out, src}} {
			if args[0] == "merge" && !strings.Contains(out, "new") && !strings.HasSuffix(out, "/out") && !strings.HasSuffix(out, "/x") && !strings.HasSuffix(out, "/y") {
				continue // an existing directory: merge refuses any that is not empty, run or not
			}
			code, stdout, errOut := qualRun(t, args...)
			want := fmt.Sprintf("qual %s: %s cannot be an output directory: it is ", args[0], out)
			if code != exitUsage || stdout != "" || !strings.HasPrefix(errOut, want) || strings.Count(errOut, "\n") != 1 ||
				!strings.Contains(errOut, "render into a directory outside every run") {
				t.Errorf("qual %s -o %s: exit %d, stdout %q, stderr %q; want exit 2 and %q…", args[0], out, code, stdout, errOut, want)
			}
		}
	}
	for name, r := range runs {
		if now := treeDigest(t, r); now != before[name] {
			t.Errorf("the %s run %s changed:\nbefore\n%s\nafter\n%s", name, r, before[name], now)
		}
	}
	// Outside every run: a fresh directory, a relative one from outside, and a link's ".." that
	// leads out although the lexical path names a run (unsigned/t2i/out-link → away/sub).
	t.Chdir(outside)
	away := t.TempDir()
	if err := os.MkdirAll(filepath.Join(away, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(away, "sub"), filepath.Join(unsigned, "t2i", "out-link")); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{filepath.Join(t.TempDir(), "copy"), "rel-copy", filepath.Join(unsigned, "t2i", "out-link") + "/.."} {
		if code, _, errOut := qualRun(t, "report", "--fail-on", "failed", "-o", out, src); code != exitOK {
			t.Errorf("qual report -o %s (outside every run): exit %d %s", out, code, errOut)
		}
	}
	for _, p := range []string{filepath.Join(outside, "rel-copy", "report.html"), filepath.Join(away, "report.html")} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("a destination outside every run holds no report: %v", err)
		}
	}
}

// TestOutputThatIsAFileIsRefusedFirst: an -o of qual report, compare or merge that is a file
// (named, through a link, or relative) is a usage error (exit 2) before anything is printed or
// written, not a failure after the verdict (exit 1 is a failed verdict, a regression for
// compare).
func TestOutputThatIsAFileIsRefusedFirst(t *testing.T) {
	t.Setenv("QUAL_CACHE", t.TempDir())
	t.Setenv("QUAL_SIGNING_KEY", "")
	t.Setenv("QUAL_ROOT", repoRoot())
	src, other := plannedRun(t), plannedRun(t)
	files := t.TempDir()
	file := filepath.Join(files, "a-file")
	if err := os.WriteFile(file, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(files, "link")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	t.Chdir(files)
	for _, out := range []string{file, link, "a-file", "./link"} {
		for _, args := range [][]string{{"report", "--fail-on", "failed", "-o", out, src}, {"compare", "-o", out, src, other}, {"merge", "-o", out, src}} {
			code, stdout, errOut := qualRun(t, args...)
			want := fmt.Sprintf("qual %s: %s cannot be an output directory: ", args[0], out)
			if code != exitUsage || stdout != "" || !strings.HasPrefix(errOut, want) || !strings.Contains(errOut, "is a file") {
				t.Errorf("qual %s -o %s: exit %d, stdout %q, stderr %q; want exit 2 and %q…", args[0], out, code, stdout, errOut, want)
			}
		}
	}
	if data, _ := os.ReadFile(file); string(data) != "mine" {
		t.Errorf("the file was written: %q", data)
	}
}
