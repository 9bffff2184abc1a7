package target

import (
	"path/filepath"
	"strings"
	"testing"
)

// A TRTMC checkout of either layout with the other layout's target is refused at once, naming
// the target file that fits; the right pair passes.
func TestCheckLayoutNamesTheTargetThatFits(t *testing.T) {
	targets := filepath.Join(repoRoot(), "suites", "targets")
	testdata := filepath.Join(targets, "testdata")
	for _, c := range []struct{ file, root, fit string }{
		{"trtmc.yaml", "trtmc-newer", ""}, {"trtmc-older.yaml", "trtmc-older", ""}, {"trtmc.yaml", "trtmc-double", ""},
		{"trtmc.yaml", "trtmc-older", "trtmc-older.yaml"}, {"trtmc-older.yaml", "trtmc-newer", "trtmc.yaml"},
	} {
		tg, err := Read(filepath.Join(targets, c.file), filepath.Join(testdata, c.root))
		if err != nil {
			t.Fatal(err)
		}
		err = tg.CheckLayout()
		switch {
		case c.fit == "" && err != nil:
			t.Errorf("%s on %s: %v", c.file, c.root, err)
		case c.fit != "" && (err == nil || !strings.Contains(err.Error(), "use "+filepath.Join(targets, c.fit))):
			t.Errorf("%s on %s: %v, want it to name %s", c.file, c.root, err, c.fit)
		}
	}
	tg, _ := Read(filepath.Join(targets, "trtmc.yaml"), t.TempDir())
	if err := tg.CheckLayout(); err == nil || !strings.Contains(err.Error(), "either layout") {
		t.Errorf("an empty directory: %v", err)
	}
}
