package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A kept command's whole stdout and stderr are in the row's folder even when it fails, so a
// failed gate's own output can be read there.
func TestRunKeepingKeepsTheOutputOfAFailedCommand(t *testing.T) {
	dir := t.TempDir()
	c := &Checkpoint{Env: &Env{Root: dir}, Dir: dir}
	_, err := c.runKeeping(context.Background(), []string{"sh", "-c", "echo figures; echo 'gold_wer over its bound' >&2; exit 3"}, "gate")
	if err == nil || !strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("a failing command: %v", err)
	}
	for name, want := range map[string]string{"gate.stdout.txt": "figures\n", "gate.stderr.txt": "gold_wer over its bound\n"} {
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != want {
			t.Errorf("%s: %q %v, want %q", name, got, err, want)
		}
	}
	if _, err := c.run(context.Background(), []string{"true"}); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("run without keep wrote files: %v", entries)
	}
}
