package target

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

func TestReadBothShippedTargets(t *testing.T) {
	for _, name := range []string{"reference.yaml", "trtmc.yaml"} {
		tg, err := Read(filepath.Join(repoRoot(), "suites", "targets", name), repoRoot())
		if err != nil {
			t.Fatal(err)
		}
		if len(tg.NativeRun) == 0 || tg.Server.GPU == "" || tg.AIPerf["asr"].Requests == 0 {
			t.Errorf("%s: incomplete target %+v", name, tg)
		}
	}
}

func TestReadRefusesUnknownKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.yaml")
	os.WriteFile(path, []byte("name: x\nmanifests: [a]\nbuild: [b]\ngate: [c]\nserverr: {}\n"), 0o644)
	if _, err := Read(path, "."); err == nil || !strings.Contains(err.Error(), "serverr") {
		t.Fatalf("a misspelled key was accepted: %v", err)
	}
}

func TestExpandFillsEveryPlaceholderOrFails(t *testing.T) {
	got, err := Expand([]string{"{native}", "build", "--manifest", "{manifest}"}, map[string]string{"native": "/bin/n", "manifest": "m.json"})
	if err != nil || strings.Join(got, " ") != "/bin/n build --manifest m.json" {
		t.Fatalf("%v %v", got, err)
	}
	if _, err := Expand([]string{"{bundle}"}, map[string]string{}); err == nil {
		t.Fatal("an unfilled placeholder was accepted")
	}
}
