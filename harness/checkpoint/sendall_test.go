package checkpoint

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
)

// Each AIPerf run of the reference target's served ASR rows sends every pinned clip: AIPerf
// walks the dataset in order, warmup first, so a run of W + N requests over more than W + N
// clips never sends the last ones (with 2 + 6 over the nine general-English clips, LibriSpeech's
// 7902-96591-0000 was never served). The clips are the row's own after its family's limits.
func TestReferenceASRRunsSendEveryPinnedClip(t *testing.T) {
	root := moduleRoot()
	tg, err := target.Read(filepath.Join(root, "suites", "targets", "reference.yaml"), root)
	if err != nil {
		t.Fatal(err)
	}
	load := tg.StageLoad(stage.ASR)
	for _, profile := range []string{"sphinx/manifests/sphinx-en-us.json", "sphinx/manifests/sphinx-tidigits.json", "whisper/manifests/whisper-tiny-en.json"} {
		manifestPath := filepath.Join(root, "native", "families", filepath.FromSlash(profile))
		env := &Env{Root: root, Target: tg, RunDir: t.TempDir(), Stage: stage.ASR, Log: io.Discard}
		c, err := New(env, evidence.InventoryRow{Stage: string(stage.ASR), Profile: filepath.Base(manifestPath), Manifest: manifestPath, Kind: evidence.KindFull, Counted: true})
		if err != nil {
			t.Fatal(err)
		}
		inputs, err := c.loadInputs()
		if err != nil {
			t.Fatalf("%s: %v", profile, err)
		}
		if load.Warmup+load.Requests < len(inputs) {
			t.Errorf("%s: each run sends %d + %d requests over %d pinned clips: %d are never sent", profile, load.Warmup, load.Requests, len(inputs), len(inputs)-load.Warmup-load.Requests)
		}
	}
}
