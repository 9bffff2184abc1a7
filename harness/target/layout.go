package target

import (
	"fmt"
	"path/filepath"
	"strings"
)

// layoutGlobs are the manifest globs that tell TRTMC's two layouts apart: families/<f>/tests/
// manifests (newer) and tests/e2e/models/<f>/manifests (the full snapshot at e9132e79).
func layoutGlobs() [][2]string {
	return [][2]string{{"families", "families/*/tests/manifests/*.json"}, {"tests/e2e", "tests/e2e/models/*/manifests/*.json"}}
}

// DetectLayout is the layout of a TRTMC checkout ("" when it has neither).
func DetectLayout(root string) string {
	for _, l := range layoutGlobs() {
		if m, _ := filepath.Glob(filepath.Join(root, l[1])); len(m) > 0 {
			return l[0]
		}
	}
	return ""
}

// CheckLayout refuses a TRTMC-kind target whose layout is not its checkout's, naming the target
// file beside it that reads that layout: with the wrong pair nothing is found, and a run would
// fail later in several ways.
func (t *Target) CheckLayout() error {
	if !t.Traits().InCheckout() {
		return nil
	}
	got := DetectLayout(t.Root)
	if got == t.Layout {
		return nil
	}
	if got == "" {
		var globs []string
		for _, l := range layoutGlobs() {
			globs = append(globs, l[1])
		}
		return fmt.Errorf("TRTMC root %s is not a TensorRT-Model-Connect checkout of either layout (no %s)", t.Root, strings.Join(globs, ", no "))
	}
	fit := "no target file beside it reads that layout"
	if path := t.siblingFor(got); path != "" {
		fit = "use " + path
	}
	return fmt.Errorf("TRTMC checkout %s has the %s layout, which target %s (%s, layout %s) does not read: %s", t.Root, got, t.Name, t.Path, t.Layout, fit)
}

// siblingFor is the target file in t's directory of the same kind that reads layout.
func (t *Target) siblingFor(layout string) string {
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(t.Path), "*.yaml"))
	for _, f := range files {
		if o, err := Read(f, t.Root); err == nil && o.Kind == t.Kind && o.Layout == layout {
			return f
		}
	}
	return ""
}
