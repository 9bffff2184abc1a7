// Command famgen regenerates native/registry/families_gen.go from native/families/descriptors
// (run from the repository root: go generate ./native/registry).
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/trtmc-qual/trtmc-qual/native/registry/internal/famgen"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "famgen:", err)
		os.Exit(1)
	}
}

func run() error {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	src, err := os.ReadFile(filepath.Join(root, "native", "families", "descriptors", "descriptors.go"))
	if err != nil {
		return err
	}
	folders, err := famgen.Families(src)
	if err != nil {
		return err
	}
	out, err := famgen.Render(folders)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(root, "native", "registry", "families_gen.go"), out, 0o644)
}
