package shape

import (
	"bytes"
	"go/format"
	"os"
	"path/filepath"
	"testing"
)

// TestEveryGoFileIsGofmted: every tracked Go file is as gofmt writes it (go/format is gofmt's
// printer), so a review diff never carries layout.
func TestEveryGoFileIsGofmted(t *testing.T) {
	checked := 0
	for _, name := range tracked(t, "*.go") {
		src, err := os.ReadFile(filepath.Join(repoRoot(), name))
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
