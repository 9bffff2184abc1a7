package evidence

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A run written under another schema is refused by name, not read with today's meanings
// (schema 1's input_sha256 hashed every clip in the float form; schema 2's gate items said
// "reference" for what is now "expected").
func TestReadRefusesAnotherSchema(t *testing.T) {
	for _, old := range []int{1, 2} {
		dir := t.TempDir()
		want := fmt.Sprintf("schema %d, this qual reads %d", old, SchemaVersion)
		if err := os.WriteFile(filepath.Join(dir, "evidence.json"), []byte(fmt.Sprintf(`{"schema_version":%d,"run_id":"old"}`, old)), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("schema %d evidence: %v", old, err)
		}
		stage := filepath.Join(dir, "asr", "stage.json")
		if err := WriteJSON(stage, Stage{SchemaVersion: old, Stage: "asr"}); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadStage(stage); err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("schema %d stage: %v", old, err)
		}
	}
}
