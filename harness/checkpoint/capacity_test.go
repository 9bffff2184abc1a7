package checkpoint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A level joins only the records the server wrote during it: the earlier levels' records are
// dropped from its file and its join, so an unmatched record of its own still fails the join.
func TestLevelKeepsOnlyItsOwnRecords(t *testing.T) {
	dir := t.TempDir()
	all := `{"request_id":"old-1","method":"POST","route":"/v1/audio/transcriptions","status":200,"start_unix_ns":1,"end_unix_ns":2,"trtmc_timing":{"queue_ms":0,"model_call_ms":1,"handler_ms":1}}
{"request_id":"old-2","method":"POST","route":"/v1/audio/transcriptions","status":200,"start_unix_ns":1,"end_unix_ns":2,"trtmc_timing":{"queue_ms":0,"model_call_ms":1,"handler_ms":1}}
{"request_id":"new-1","method":"POST","route":"/v1/audio/transcriptions","status":200,"start_unix_ns":3,"end_unix_ns":4,"trtmc_timing":{"queue_ms":0,"model_call_ms":1,"handler_ms":1}}
`
	path := filepath.Join(dir, "server-records.jsonl")
	if err := os.WriteFile(path, []byte(all), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &Checkpoint{Dir: dir, serving: &serving{}}
	if err := c.ownRecords(2); err != nil {
		t.Fatal(err)
	}
	if len(c.serving.records) != 1 || c.serving.records[0].RequestID != "new-1" {
		t.Fatalf("level records %+v, want new-1 only", c.serving.records)
	}
	kept, _ := os.ReadFile(path)
	if !strings.Contains(string(kept), `"new-1"`) || strings.Contains(string(kept), `"old-`) {
		t.Fatalf("level's records file holds %q", kept)
	}
	if err := c.ownRecords(5); err == nil {
		t.Fatal("more records before the level than the server has: accepted")
	}
}
