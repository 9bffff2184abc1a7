package manifest

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func familiesDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "families")
}

func TestShippedManifestsReadWithTheirThresholds(t *testing.T) {
	for _, fam := range []string{"sphinx", "procdiff"} {
		ms, err := ReadDir(filepath.Join(familiesDir(), fam, "manifests"))
		if err != nil || len(ms) == 0 {
			t.Fatalf("%s: %d manifests, %v", fam, len(ms), err)
		}
		for _, m := range ms {
			if m.Family != fam || m.TaskString() == "" || m.Path == "" {
				t.Errorf("%s: %+v", m.Name, m)
			}
			th, err := ReadThresholds(ThresholdsPath(m, m.Testcases[0].Name))
			if err != nil || len(th.Overrides) == 0 {
				t.Errorf("%s thresholds: %v", m.Name, err)
			}
		}
	}
}

// A manifest missing required fields is refused with every missing field named.
func TestReadNamesMissingFields(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.json")
	os.WriteFile(path, []byte(`{"name":"x","build":{}}`), 0o644)
	_, err := Read(path)
	if err == nil || !strings.Contains(err.Error(), "missing required fields bundle, family, precision, task (or task_strategy), testcases") {
		t.Errorf("%v", err)
	}
	os.WriteFile(path, []byte(`{"name":`), 0o644)
	if _, err := Read(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("bad JSON: %v", err)
	}
}

// A missing bound is an error naming the file: a gate never runs without it.
func TestThresholdLimits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.json")
	os.WriteFile(path, []byte(`{"threshold_overrides":{"gold_wer":0.3}}`), 0o644)
	th, err := ReadThresholds(path)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := th.Limit("gold_wer"); err != nil || v != 0.3 {
		t.Errorf("gold_wer %v %v", v, err)
	}
	if _, err := th.Limit("cer"); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("missing bound: %v", err)
	}
	os.WriteFile(path, []byte(`{"threshold_overrides":{}}`), 0o644)
	if _, err := ReadThresholds(path); err == nil {
		t.Error("thresholds without any bound were accepted")
	}
}

func TestBuildSettings(t *testing.T) {
	m := Manifest{Build: map[string]any{"model": "en-us", "steps": 4.0}}
	if m.String("model") != "en-us" || m.String("steps") != "" {
		t.Errorf("String: %q %q", m.String("model"), m.String("steps"))
	}
	if v, ok := m.Number("steps"); !ok || v != 4 {
		t.Errorf("Number: %v %v", v, ok)
	}
	if _, ok := m.Number("model"); ok {
		t.Error("a string read as a number")
	}
}
