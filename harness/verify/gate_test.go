package verify

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/native/family"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
)

// pinnedRoot writes a repository root holding a pinned prompt file.
func pinnedRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "golden", "t2i"), 0o755)
	os.WriteFile(filepath.Join(root, "golden", "t2i", "prompts.jsonl"), []byte(`{"id": "p01", "prompt": "a lighthouse", "seed": 11}`+"\n"), 0o644)
	return root
}

// TestT2IInputIDMustBeAPinnedPrompt: the input id picks the golden PNG; an id that is not a
// pinned prompt (a path, a made-up id) fails the row naming it.
func TestT2IInputIDMustBeAPinnedPrompt(t *testing.T) {
	root := pinnedRoot(t)
	tc := manifest.Testcase{Name: "c", Dataset: "golden/t2i/prompts.jsonl", Reference: "golden/t2i/ref"}
	for _, id := range []string{"../../../etc/x", "p99"} {
		r := evidence.Result{
			Gate:    &family.GateResult{Items: []family.GateItem{{ID: id, Output: "sha"}}, Figures: map[string]float64{}},
			Outputs: []evidence.Output{{RequestID: "r1", InputID: id, HTTPOutput: "sha"}},
		}
		report, got := collect()
		fails := checkT2IGate(pins{root: root}, "t2i/p", tc, manifest.Thresholds{}, r, nil, report)
		if !containsAll(*got, `input_id "`+id+`" is not a prompt id pinned in golden/t2i/prompts.jsonl`) || len(fails) == 0 {
			t.Errorf("input id %q: problems %v, fails %v", id, *got, fails)
		}
	}
}
