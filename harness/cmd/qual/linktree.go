package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// linkTree puts the tree at src at dst (which must not exist): each file hard-linked where the
// filesystem allows (a shard's bundles are gigabytes, and a merged run only reads them), copied
// where it does not (another filesystem, no hard links). Only directories and regular files are
// taken: a run holds nothing else (harness/runfile refuses it before the merge gets here).
func linkTree(src, dst string, link func(oldname, newname string) error) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, info.Mode().Perm()|0o700)
		case !info.Mode().IsRegular():
			return fmt.Errorf("%s is not a regular file", p)
		case link(p, target) == nil:
			return nil
		}
		return copyFile(p, target, info.Mode().Perm())
	})
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s: %w", src, err)
	}
	return out.Close()
}
