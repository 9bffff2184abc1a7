package checkpoint

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/native/bundle"
)

func TestThresholdPinCatchesAChangedThreshold(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "golden"), 0o755)
	os.MkdirAll(filepath.Join(root, "fam", "thresholds"), 0o755)
	th := filepath.Join(root, "fam", "thresholds", "tc.json")
	os.WriteFile(th, []byte(`{"threshold_overrides": {"wer": 0.1}}`), 0o644)
	sum, _ := bundle.FileSHA256(th)
	os.WriteFile(filepath.Join(root, "golden", "thresholds.sha256"), []byte(sum+"  fam/thresholds/tc.json\n"), 0o644)
	if got, err := CheckThresholdPin(root, th); err != nil || got != sum {
		t.Fatalf("pinned threshold: %v %v", got, err)
	}
	os.WriteFile(th, []byte(`{"threshold_overrides": {"wer": 0.2}}`), 0o644) // loosened
	_, err := CheckThresholdPin(root, th)
	if err == nil || !strings.Contains(err.Error(), "fam/thresholds/tc.json changed") || !strings.Contains(err.Error(), "update golden/thresholds.sha256") {
		t.Fatalf("a changed threshold: %v", err)
	}
	other := filepath.Join(root, "fam", "thresholds", "new.json")
	os.WriteFile(other, []byte(`{}`), 0o644)
	if _, err := CheckThresholdPin(root, other); err == nil || !strings.Contains(err.Error(), "no pin") {
		t.Fatalf("an unpinned threshold: %v", err)
	}
}

func TestEveryShippedThresholdIsPinned(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	files, _ := filepath.Glob(filepath.Join(root, "native", "families", "*", "thresholds", "*.json"))
	if len(files) == 0 {
		t.Fatal("no threshold files found")
	}
	for _, f := range files {
		if _, err := CheckThresholdPin(root, f); err != nil {
			t.Error(err)
		}
	}
}
