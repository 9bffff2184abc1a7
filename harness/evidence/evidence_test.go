package evidence

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A run written under another schema is refused by name, not read with today's meanings
// (schema 1's input_sha256 hashed every clip in the float form).
func TestReadRefusesAnotherSchema(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "evidence.json"), []byte(`{"schema_version":1,"run_id":"old"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "schema 1, this qual reads 2") {
		t.Fatalf("schema 1 evidence: %v", err)
	}
	stage := filepath.Join(dir, "asr", "stage.json")
	if err := WriteJSON(stage, Stage{SchemaVersion: 1, Stage: "asr"}); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadStage(stage); err == nil || !strings.Contains(err.Error(), "schema 1, this qual reads 2") {
		t.Fatalf("schema 1 stage: %v", err)
	}
}
