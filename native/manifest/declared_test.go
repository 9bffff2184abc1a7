package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A testcase without a thresholds file declares no bound: reading it is no error, a bound asked
// of it says the file is absent, and a file that is there must still parse.
func TestThresholdsReadWhereDeclared(t *testing.T) {
	dir := t.TempDir()
	th, err := ReadDeclaredThresholds(filepath.Join(dir, "none.json"))
	if err != nil || th.Declared() {
		t.Fatalf("%+v %v", th, err)
	}
	if _, err := th.Limit("gold_wer"); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("a bound of an absent file: %v", err)
	}
	path := filepath.Join(dir, "case.json")
	os.WriteFile(path, []byte(`{"threshold_overrides": {"min_pixel_mean": 0.15, "pixel_mean_min": 0.2}}`), 0o644)
	if th, err = ReadDeclaredThresholds(path); err != nil || !th.Declared() {
		t.Fatalf("%+v %v", th, err)
	}
	if v, name, ok := th.Bound("contract_min_pixel_mean", "min_pixel_mean", "pixel_mean_min"); !ok || v != 0.15 || name != "min_pixel_mean" {
		t.Errorf("first declared name: %v %q %v", v, name, ok)
	}
	os.WriteFile(path, []byte(`{"threshold_overrides": `), 0o644)
	if _, err := ReadDeclaredThresholds(path); err == nil {
		t.Error("a broken thresholds file was read")
	}
}
