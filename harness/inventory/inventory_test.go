package inventory

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory/reference"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
)

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

func TestReferenceInventoryFollowsCapabilityAndMarkings(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(repoRoot(), "native", "families", "*", "manifests", "*.json"))
	asr, err := Discover(paths, stage.ASR, Options{Capabilities: reference.Capabilities})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		kind    evidence.Kind
		counted bool
	}{"sphinx-en-us": {evidence.KindFull, true}, "sphinx-tidigits": {evidence.KindFull, true}, "sphinx-an4-l0": {evidence.KindReduced, false}, "sphinx-en-us-fast": {evidence.KindVariant, false},
		// AN4 has only its reduced profile: an explicit gap row, never a silent omission.
		"gap:pocketsphinx-testdata/an4": {evidence.KindGap, false},
		"whisper-tiny-en":               {evidence.KindFull, true}, "whisper-tiny-en-int8": {evidence.KindVariant, false}}
	if len(asr) != len(want) {
		t.Fatalf("asr rows: %+v", asr)
	}
	for _, r := range asr {
		w := want[r.Profile]
		if r.Kind != w.kind || r.Counted != w.counted || r.NativeTask != "speech_transcription" {
			t.Errorf("%s: kind %s counted %v task %s, want %+v", r.Profile, r.Kind, r.Counted, r.NativeTask, w)
		}
		if _, ok := want[r.Profile]; !ok {
			t.Errorf("unexpected row %s", r.Profile)
		}
	}
	// Stage 9: only the sphinxqa cascade implements audio_text_to_text; every row says what it is.
	qa, err := Discover(paths, stage.AudioQA, Options{Capabilities: reference.Capabilities})
	if err != nil || len(qa) != 3 {
		t.Fatalf("audioqa rows %+v, err %v: want the two sphinxqa profiles and the AN4 gap", qa, err)
	}
	wantQA := map[string]struct {
		kind    evidence.Kind
		counted bool
	}{"sphinxqa-en-us": {evidence.KindFull, true}, "sphinxqa-an4-l0": {evidence.KindReduced, false}, "gap:pocketsphinx-testdata/an4": {evidence.KindGap, false}}
	for _, r := range qa {
		w, ok := wantQA[r.Profile]
		if !ok || r.Kind != w.kind || r.Counted != w.counted || r.NativeTask != "audio_text_to_text" ||
			(r.Kind != evidence.KindGap && !strings.HasPrefix(r.Statement, "cascade reference: PocketSphinx + templated reader")) {
			t.Errorf("%s: kind %s counted %v task %s statement %q, want %+v", r.Profile, r.Kind, r.Counted, r.NativeTask, r.Statement, w)
		}
	}
}

func TestShardPutsEveryCheckpointInExactlyOneShard(t *testing.T) {
	var rows []evidence.InventoryRow
	for c := range 7 {
		for p := range 3 {
			rows = append(rows, evidence.InventoryRow{Checkpoint: fmt.Sprintf("ckpt-%d", c), Revision: "r", Profile: fmt.Sprintf("ckpt-%d-p%d", c, p)})
		}
	}
	for n := 1; n <= 4; n++ {
		owner := map[string]int{}
		total := 0
		for i := 1; i <= n; i++ {
			for _, r := range Shard(rows, i, n) {
				if prev, ok := owner[r.Checkpoint]; ok && prev != i {
					t.Fatalf("n=%d: %s in shards %d and %d", n, r.Checkpoint, prev, i)
				}
				owner[r.Checkpoint] = i
				total++
			}
		}
		if total != len(rows) || len(owner) != 7 {
			t.Fatalf("n=%d: %d rows over %d checkpoints, want %d over 7", n, total, len(owner), len(rows))
		}
		if again := Shard(rows, 1, n); len(again) != len(Shard(rows, 1, n)) {
			t.Fatal("sharding is not deterministic")
		}
	}
}
