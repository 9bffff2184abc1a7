package shape

import (
	"bytes"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestEveryGoFileIsGofmted: every tracked Go file is as gofmt writes it (go/format is gofmt's
// printer), so a review diff never carries layout.
func TestEveryGoFileIsGofmted(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "..")
	cmd := exec.Command("git", "ls-files", "*.go")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	checked := 0
	for _, name := range strings.Fields(string(out)) {
		src, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		formatted, err := format.Source(src)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !bytes.Equal(src, formatted) {
			t.Errorf("%s is not gofmt'ed: run gofmt -w %s", name, name)
		}
		checked++
	}
	if checked < 100 {
		t.Fatalf("checked %d Go files: the listing is wrong", checked)
	}
}
