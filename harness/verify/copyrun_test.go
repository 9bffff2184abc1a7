package verify

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCopyLinksOnlyBundlesAndCatchesAWriteThroughALink: a case's copy of the shared run links
// its bundles and copies every other file; replacing a linked bundle leaves the shared one as it
// was, and writing into it is caught.
func TestCopyLinksOnlyBundlesAndCatchesAWriteThroughALink(t *testing.T) {
	src := t.TempDir()
	files := map[string]string{"asr/row/row.bundle": "payload", "asr/row/records.jsonl": "{}\n", "evidence.json": "{}"}
	for rel, data := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(src, rel)), 0o755)
		if err := os.WriteFile(filepath.Join(src, rel), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		made := time.Now().Add(-time.Hour) // as the published run's files: written well before any case
		os.Chtimes(filepath.Join(src, rel), made, made)
	}
	copyOnce := func() (string, []linkedFile) {
		dst := filepath.Join(t.TempDir(), "run")
		linked, err := copyLinkingBundles(src, dst)
		if err != nil {
			t.Fatal(err)
		}
		return dst, linked
	}
	dst, linked := copyOnce()
	for rel, data := range files {
		a, _ := os.Stat(filepath.Join(src, rel))
		b, err := os.Stat(filepath.Join(dst, rel))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(filepath.Join(dst, rel))
		if string(got) != data || os.SameFile(a, b) != (filepath.Ext(rel) == ".bundle") {
			t.Errorf("%s: %q, linked %v; want its bytes, linked only if a bundle", rel, got, os.SameFile(a, b))
		}
	}
	if len(linked) != 1 {
		t.Fatalf("linked %v, want the one bundle", linked)
	}

	f := &forger{t: t, dir: dst}
	f.rewrite("asr/row/row.bundle", func(b []byte) []byte { return append(b, '!') })
	if err := linked[0].unchanged(); err != nil {
		t.Errorf("a bundle replaced by the forger: %v", err)
	}

	dst, linked = copyOnce()
	if err := os.WriteFile(filepath.Join(dst, "asr/row/row.bundle"), []byte("paylOad"), 0o644); err != nil { // same size
		t.Fatal(err)
	}
	if linked[0].unchanged() == nil {
		t.Errorf("a write through the link into the shared bundle was not caught")
	}
}
