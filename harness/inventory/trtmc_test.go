package inventory

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/target"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// The fixture tree (suites/targets/testdata/trtmc-fixture) is written in TRTMC's manifest schema,
// in both layouts, with every marking: premerge on a full profile, -l0 names, ci_tier l0_only,
// l0_replacement, accuracy_source none, TP > 1, fp8 quantization, a streaming bundle mode, a
// video generator and an image editor sharing the image task string, and a text-only omni model.
func trtmcFixture(t *testing.T) *target.Target {
	t.Helper()
	root := filepath.Join(repoRoot(), "suites", "targets", "testdata", "trtmc-fixture")
	tg, err := target.Read(filepath.Join(repoRoot(), "suites", "targets", "trtmc.yaml"), root)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

type wantRow struct {
	kind    string
	counted bool
	marking string // a substring of the markings or reason
}

func checkRows(t *testing.T, rows []Row, want map[string]wantRow) {
	t.Helper()
	if len(rows) != len(want) {
		var names []string
		for _, r := range rows {
			names = append(names, r.Profile)
		}
		t.Fatalf("rows %v, want %d rows", names, len(want))
	}
	for _, r := range rows {
		w, ok := want[r.Profile]
		if !ok {
			t.Errorf("unexpected row %s", r.Profile)
			continue
		}
		text := strings.Join(append(append(r.Markings, r.Notes...), r.Reason), "; ")
		if r.Kind != w.kind || r.Counted != w.counted || !strings.Contains(text, w.marking) {
			t.Errorf("%s: kind %s counted %v markings %q; want %+v", r.Profile, r.Kind, r.Counted, text, w)
		}
		if r.Status != StatusPlanned && r.Status != StatusUnsupported {
			t.Errorf("%s: status %s; TRTMC rows on this machine are planned (or unsupported)", r.Profile, r.Status)
		}
	}
}

func TestTRTMCInventoryFromBothLayouts(t *testing.T) {
	tg := trtmcFixture(t)
	paths, err := tg.ManifestPaths()
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Capabilities: ByTaskString, PlannedReason: "no GPU stack here"}
	asr, err := Discover(paths, StageASR, opts)
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, asr, map[string]wantRow{
		"whisper-tiny-fp16":                 {KindFull, true, "no GPU stack"}, // premerge: true alone is not reduced
		"whisper-large-v3-turbo":            {KindFull, true, ""},
		"whisper-large-v3-turbo-tp2":        {KindVariant, false, "tensor_parallel_size=2"},
		"nemotron-speech-streaming-en-0.6b": {KindFull, true, `bundle mode "streaming"`},
		"parakeet-tdt-0.6b-v3":              {KindFull, true, ""}, // older layout, task_strategy speech_to_text
	})
	t2i, err := Discover(paths, StageT2I, opts)
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, t2i, map[string]wantRow{
		"flux-schnell":          {KindFull, true, ""},
		"flux-schnell-l0":       {KindReduced, false, "L0"},
		"flux-2-dev":            {KindFull, true, ""},
		"flux-2-dev-fp8":        {KindVariant, false, "quantization: fp8"},
		"wan2.1-t2v-1.3b":       {KindExcluded, false, "video generator"},
		"qwen-image-edit":       {KindExcluded, false, "image editing"},
		"tiny-random-sd":        {KindReduced, false, "accuracy_source: none"},
		"stable-diffusion-v1-5": {KindFull, true, ""},
		"sd15-replacement":      {KindReduced, false, "l0_replacement"},
		"gap:hf-internal-testing/tiny-stable-diffusion-pipe": {KindGap, false, "only reduced/variant profiles (tiny-random-sd)"},
	})
	qa, err := Discover(paths, StageAudioQA, opts)
	if err != nil || len(qa) != 0 {
		t.Fatalf("audioqa rows %v (%v): no TRTMC profile answers audio questions", qa, err)
	}
	audit, err := Audit(paths, task.AudioTextToText, ByTaskString)
	if err != nil || len(audit) != len(paths) {
		t.Fatalf("audit %d rows for %d manifests (%v)", len(audit), len(paths), err)
	}
	for _, a := range audit {
		if a.Has {
			t.Errorf("%s claims audio_text_to_text", a.Profile)
		}
	}
}

func TestTRTMCCheckpointsGroupProfiles(t *testing.T) {
	tg := trtmcFixture(t)
	paths, _ := tg.ManifestPaths()
	rows, err := Discover(paths, StageT2I, Options{Capabilities: ByTaskString})
	if err != nil {
		t.Fatal(err)
	}
	byCkpt := map[string][]string{}
	for _, r := range rows {
		byCkpt[r.Checkpoint+"@"+r.Revision] = append(byCkpt[r.Checkpoint+"@"+r.Revision], r.Profile)
	}
	if got := byCkpt["black-forest-labs/FLUX.2-dev@9a7c1b2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b"]; len(got) != 2 {
		t.Errorf("FLUX.2-dev groups %v, want the full profile and its fp8 variant", got)
	}
	if n := len(Counted(rows)); n != 3 {
		t.Errorf("%d counted text-to-image checkpoints, want 3 (flux-schnell, flux-2-dev, sd 1.5)", n)
	}
}
