package machine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParityVenvFollowsTheCacheUnlessNamed(t *testing.T) {
	cache := t.TempDir()
	env := map[string]string{"QUAL_CACHE": cache}
	m, err := FromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(cache, "parity-venv", "bin", "python"); m.ParityPython != want {
		t.Fatalf("parity python %q, want %q", m.ParityPython, want)
	}
	if _, err := m.Parity(); err == nil || !strings.Contains(err.Error(), "make deps") {
		t.Fatalf("a missing venv must be an error naming make deps, got %v", err)
	}
	named := filepath.Join(cache, "py")
	if err := os.WriteFile(named, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	env["QUAL_PARITY_PYTHON"] = named
	m, _ = FromEnv(func(k string) string { return env[k] })
	if py, err := m.Parity(); err != nil || py != named {
		t.Fatalf("QUAL_PARITY_PYTHON=%s: got %q, %v", named, py, err)
	}
}

func TestCacheDefaultsUnderHome(t *testing.T) {
	t.Setenv("HOME", "/home/someone")
	m, err := FromEnv(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if m.Cache != "/home/someone/.cache/trtmc-qual" {
		t.Fatalf("cache %q", m.Cache)
	}
}
