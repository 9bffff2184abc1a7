package dataset

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestReadQAPairsPinned(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	pairs, err := ReadQAPairs(filepath.Join(filepath.Dir(file), "..", "..", "golden", "audioqa", "pairs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) == 0 || pairs[0].Question == "" || pairs[0].Clip == "" {
		t.Errorf("pinned pairs: %+v", pairs)
	}
}

func TestReadQAPairsRefusesBadLines(t *testing.T) {
	for name, body := range map[string]string{
		"not json":     "{\"id\":\"a\"",
		"no question":  `{"id":"a","dataset":"d","clip":"c"}`,
		"duplicate id": `{"id":"a","dataset":"d","clip":"c","question":"q"}` + "\n" + `{"id":"a","dataset":"d","clip":"c","question":"q"}`,
	} {
		path := filepath.Join(t.TempDir(), "pairs.jsonl")
		os.WriteFile(path, []byte(body), 0o644)
		if _, err := ReadQAPairs(path); err == nil || !strings.Contains(err.Error(), "pairs.jsonl:") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := ReadQAPairs(filepath.Join(t.TempDir(), "missing.jsonl")); err == nil {
		t.Error("a missing file was accepted")
	}
}
