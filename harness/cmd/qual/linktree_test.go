package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// shardTree writes a checkpoint directory as a shard holds one: a bundle, nested records, an
// empty directory, a read-only file.
func shardTree(t *testing.T) (stageDir string, files map[string][]byte) {
	t.Helper()
	stageDir = filepath.Join(t.TempDir(), "t2i")
	files = map[string][]byte{
		"procdiff-base/bundle/model.bundle":                       bytes.Repeat([]byte{7}, 1<<16),
		"procdiff-base/aiperf/artifacts/profile_export.jsonl":     []byte("{}\n"),
		"procdiff-base/server/records.jsonl":                      []byte("{\"id\":1}\n"),
		"procdiff-small/aiperf/artifacts/profile_runs/run_0001/x": []byte("x"),
	}
	for p, data := range files {
		full := filepath.Join(stageDir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(stageDir, "procdiff-base", "server", "records.jsonl"), 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(stageDir, "procdiff-small", "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	return stageDir, files
}

// qual merge links a shard's files into the merged run where the filesystem allows: the same
// file (inode), not a second copy of every bundle; the tree, contents and modes are the shard's.
func TestMergeLinksShardFiles(t *testing.T) {
	src, files := shardTree(t)
	dst := filepath.Join(t.TempDir(), "t2i")
	if err := copyCheckpointDirs(src, dst); err != nil {
		t.Fatal(err)
	}
	for p := range files {
		a, errA := os.Stat(filepath.Join(src, filepath.FromSlash(p)))
		b, errB := os.Stat(filepath.Join(dst, filepath.FromSlash(p)))
		if errA != nil || errB != nil || !os.SameFile(a, b) {
			t.Errorf("%s: not linked into the merged run (%v %v)", p, errA, errB)
		}
	}
	sameTree(t, src, dst, files)
}

// Where a link cannot be made (another filesystem, none supported), every file is copied: the
// same tree, contents and modes, and separate files.
func TestMergeCopiesWhereItCannotLink(t *testing.T) {
	src, files := shardTree(t)
	dst := t.TempDir()
	for _, name := range []string{"procdiff-base", "procdiff-small"} {
		noLink := func(oldname, newname string) error {
			return &os.LinkError{Op: "link", Old: oldname, New: newname, Err: syscall.EXDEV}
		}
		if err := linkTree(filepath.Join(src, name), filepath.Join(dst, name), noLink); err != nil {
			t.Fatal(err)
		}
	}
	for p := range files {
		a, _ := os.Stat(filepath.Join(src, filepath.FromSlash(p)))
		b, err := os.Stat(filepath.Join(dst, filepath.FromSlash(p)))
		if err != nil || os.SameFile(a, b) {
			t.Errorf("%s: %v, linked %v: want a copy", p, err, err == nil && os.SameFile(a, b))
		}
	}
	sameTree(t, src, dst, files)
	if err := linkTree(filepath.Join(src, "procdiff-base"), filepath.Join(dst, "procdiff-base"), os.Link); err == nil || !errors.Is(err, os.ErrExist) {
		t.Errorf("linking over an existing tree: %v, want it refused", err)
	}
}

func sameTree(t *testing.T, src, dst string, files map[string][]byte) {
	t.Helper()
	for p, want := range files {
		got, err := os.ReadFile(filepath.Join(dst, filepath.FromSlash(p)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes (%v), want %d", p, len(got), err, len(want))
		}
	}
	ro, err := os.Stat(filepath.Join(dst, "procdiff-base", "server", "records.jsonl"))
	if err != nil || ro.Mode().Perm() != 0o444 {
		t.Errorf("a read-only file's mode: %v %v", ro, err)
	}
	if info, err := os.Stat(filepath.Join(dst, "procdiff-small", "empty")); err != nil || !info.IsDir() {
		t.Errorf("the empty directory: %v", err)
	}
}
