package inventory

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// The fixture trees (suites/targets/testdata/trtmc-{older,newer}, see their README) reproduce
// every spelling met in the real TRTMC trees. Each expected row carries the one-line reason it
// is what it is; the marking substring must appear in the row's markings, notes or reason.
func fixture(t *testing.T, tree string) *Report {
	t.Helper()
	return Scan(fixturePaths(t, tree), Options{Capabilities: ByTaskString, PlannedReason: "no GPU stack here"})
}

// targetFile is the target file of a layout: trtmc.yaml reads families/, trtmc-older.yaml tests/e2e/.
func targetFile(tree string) string {
	if tree == "trtmc-older" {
		return "trtmc-older.yaml"
	}
	return "trtmc.yaml"
}

type wantRow struct {
	kind    evidence.Kind
	counted bool
	marking string // a substring of the markings, notes or reason
	why     string // the one-line reason, for the reader of a failure
}

func checkRows(t *testing.T, stage string, rows []evidence.InventoryRow, want map[string]wantRow) {
	t.Helper()
	got := map[string]bool{}
	for _, r := range rows {
		got[r.Profile] = true
		w, ok := want[r.Profile]
		if !ok {
			t.Errorf("%s: unexpected row %s (%s)", stage, r.Profile, r.Kind)
			continue
		}
		text := strings.Join(append(append(append([]string{}, r.Markings...), r.Notes...), r.Reason), "; ")
		if r.Kind != w.kind || r.Counted != w.counted || !strings.Contains(text, w.marking) {
			t.Errorf("%s %s: kind %s counted %v, %q; want %s counted %v with %q (%s)", stage, r.Profile, r.Kind, r.Counted, text, w.kind, w.counted, w.marking, w.why)
		}
		wantStatus := evidence.StatusPlanned
		if r.Kind == evidence.KindExcluded || r.Kind == evidence.KindGap {
			wantStatus = evidence.StatusUnsupported
		}
		if r.Status != wantStatus {
			t.Errorf("%s %s: status %s, want %s: no TRTMC result is claimed here", stage, r.Profile, r.Status, wantStatus)
		}
	}
	for p, w := range want {
		if !got[p] {
			t.Errorf("%s: missing row %s (%s)", stage, p, w.why)
		}
	}
}

func TestOlderLayoutInventory(t *testing.T) {
	rep := fixture(t, "trtmc-older")
	checkRows(t, string(stage.ASR), rep.Stages[stage.ASR], map[string]wantRow{
		"whisper-large-v3-turbo":            {evidence.KindFull, true, "no GPU stack", "task_strategy speech_to_text; its nightly probes' l0_replacement names itself, not a stand-in"},
		"whisper-large-v3-turbo-tp4":        {evidence.KindVariant, false, "tensor_parallel_size=4", "TP from build_args.parallel; no precision is fine"},
		"nemotron-3.5-asr-streaming-0.6b":   {evidence.KindFull, true, "whole-clip transcription", "streaming strategy, included by the owner's rule"},
		"nemotron-speech-streaming-en-0.6b": {evidence.KindFull, true, "whole-clip transcription", "the second Nemotron streaming checkpoint"},
	})
	checkRows(t, string(stage.T2I), rep.Stages[stage.T2I], map[string]wantRow{
		"flux-2-dev":             {evidence.KindFull, true, "nightly_only (a normal profile", "ci_tier nightly_only is not reduced"},
		"flux-2-dev-l0":          {evidence.KindReduced, false, "ci_tier: l0_only", "l0_only and named as flux-2-dev's stand-in"},
		"flux-2-dev-fp8":         {evidence.KindVariant, false, "fp8_scales", "fp8 spelled by fp8_scales only"},
		"flux-schnell":           {evidence.KindFull, true, "flux-schnell-l0 in its place", "full FLUX.1-schnell"},
		"flux-schnell-l0-cp4":    {evidence.KindReduced, false, "context_parallel_size=4", "L0 name + CP from build_args.parallel"},
		"flux-schnell-l0-batch2": {evidence.KindReduced, false, "max_batch_size: 2 (a batch profile)", "l0_only; the manifest's max_batch_size, not its name, makes it a batch profile"},
		"qwen-image":             {evidence.KindFull, true, "nightly_only", "top-level ci_tier nightly_only"},
		"qwen-image-l0":          {evidence.KindReduced, false, "stands in on CI for qwen-image", "l0_only, named by two l0_replacements"},
		"qwen-image-edit-2511":   {evidence.KindExcluded, false, "image editing (task_mode: edit)", "editing shares diffusion_media_generation"},
		"wan21-t2v-1.3b-l0":      {evidence.KindExcluded, false, "video generator (video_num_frames=5", "video shares diffusion_media_generation"},
		"minimax-h3-768p":        {evidence.KindExcluded, false, "video_num_frames=124", "video at 124 frames"},
	})
	if rows := rep.Stages[stage.AudioQA]; len(rows) != 0 {
		t.Errorf("audio QA rows %v: no TRTMC profile answers audio questions", rows)
	}
	wantOther(t, rep, map[string]string{
		"albert-base-tp4": "encoder_only_nlp", "qwen3-0.6b-fp8": "text_generation_causal", "personaplex-7b": "speech_to_speech",
		"nemotron-voicechat-11b": "speech_to_speech", "qwen3-omni-30b-a3b-instruct": "omni_multimodal", "phi4-multimodal": "vision_language_generation",
	})
	checkAudit(t, "trtmc-older")
	checkLimits(t, rep, map[string][4]string{
		"whisper":                   {"not declared", "not declared", "max_cache_length=128; max_new_tokens=20..100", "not declared"},
		"nemotron_speech_streaming": {"not declared", "not declared", "max_cache_length=128; max_new_tokens=80", "en-US"},
	})
}

func TestNewerLayoutInventory(t *testing.T) {
	rep := fixture(t, "trtmc-newer")
	checkRows(t, string(stage.ASR), rep.Stages[stage.ASR], map[string]wantRow{
		"whisper-tiny-fp16":                 {evidence.KindFull, true, "", "premerge: true alone is not reduced"},
		"whisper-tiny-fp16-tp2":             {evidence.KindVariant, false, "tensor_parallel_size=2", "top-level TP 2"},
		"nemotron-speech-streaming-en-0.6b": {evidence.KindFull, true, "whole-clip transcription", "task transcription_streaming, included by the owner's rule"},
		"nemotron-3.5-asr-streaming-0.6b":   {evidence.KindFull, true, "whole-clip transcription", "task transcription_streaming, included by the owner's rule"},
		"parakeet-tdt-0.6b-v3":              {evidence.KindFull, true, "", "task speech_transcription, declared in support.py"},
	})
	checkRows(t, string(stage.T2I), rep.Stages[stage.T2I], map[string]wantRow{
		"flux-schnell":           {evidence.KindFull, true, "", "full FLUX.1-schnell"},
		"flux-schnell-l0-batch2": {evidence.KindReduced, false, "batch task image_generation_batch", "image_generation_batch is in the group (flux declares it), as an L0 row"},
		"flux-schnell-l0-cp4":    {evidence.KindReduced, false, "context_parallel_size=4", "L0 name + top-level CP 4"},
		"flux-2-dev":             {evidence.KindFull, true, "", "full FLUX.2-dev"},
		"flux-2-dev-fp8":         {evidence.KindVariant, false, "quantization: fp8", "quantization as a string"},
		"z-image-turbo":          {evidence.KindFull, true, "", "unpinned revision joins its L0 sibling's checkpoint"},
		"z-image-turbo-l0":       {evidence.KindReduced, false, "L0", "L0 only by name in this layout"},
		"qwen-image-l0":          {evidence.KindReduced, false, "L0", "the only Qwen-Image profile read"},
		"gap:Qwen/Qwen-Image":    {evidence.KindGap, false, "only reduced/variant profiles (qwen-image-l0)", "no full Qwen-Image profile: a gap row, not an omission"},
		"qwen-image-edit-2511":   {evidence.KindExcluded, false, "image editing (task image_edit)", "editing"},
		"stable-diffusion-v1-5":  {evidence.KindFull, true, "", "256x256, 10 steps, no revision"},
		"minimax-h3-768p":        {evidence.KindExcluded, false, "text_to_audio_video", "video with audio"},
		"wan21-t2v-1.3b":         {evidence.KindExcluded, false, "video_num_frames=17 at top level", "video sharing image_generation"},
		"sana-wm-bidirectional":  {evidence.KindExcluded, false, "world_model_generation", "world model"},
	})
	wantOther(t, rep, map[string]string{
		"albert-base-tp4": "text_to_pooled_features", "personaplex-7b": "speech_to_speech", "nemotron-voicechat-11b": "speech_session",
		"qwen3-omni-30b-a3b-instruct": "text_generation", "phi4-multimodal": "vision_language_generation",
		"flux-no-bundle": "belongs to stage 6 (t2i) but lacks bundle, testcases", "whisper-truncated.json": "malformed",
	})
	checkAudit(t, "trtmc-newer")
	checkLimits(t, rep, map[string][4]string{
		"whisper":                   {"not declared", "not declared", "max_sequence_length=128; max_new_tokens=10..120", "not declared"},
		"nemotron_speech_streaming": {"not declared", "not declared", "max_sequence_length=128; max_new_tokens=80", "en-US"},
		"parakeet_tdt":              {"not declared", "not declared", "max_new_tokens=50", "not declared"},
	})
	for _, r := range rep.Stages[stage.ASR] {
		if r.Family == "parakeet_tdt" && r.CapabilitySource != "families/parakeet_tdt/support.py" {
			t.Errorf("parakeet capability read from %q, want its support.py", r.CapabilitySource)
		}
	}
}

// wantOther pins the other-manifests audit: every profile (or file) with its reason.
func wantOther(t *testing.T, rep *Report, want map[string]string) {
	t.Helper()
	if len(rep.Other) != len(want) {
		t.Errorf("%d other manifests, want %d: %+v", len(rep.Other), len(want), rep.Other)
	}
	for _, o := range rep.Other {
		key := o.Profile
		if key == "" {
			key = filepath.Base(o.Manifest)
		}
		if w, ok := want[key]; !ok || !strings.Contains(o.Reason, w) {
			t.Errorf("other %s: reason %q, want it to mention %q", key, o.Reason, w)
		}
	}
}

// checkAudit requires the stage-9 audit to find no audio_text_to_text and to name the four
// kinds of audio-input family.
func checkAudit(t *testing.T, tree string) {
	t.Helper()
	root := filepath.Join(repoRoot(), "suites", "targets", "testdata", tree)
	tg, _ := target.Read(filepath.Join(repoRoot(), "suites", "targets", targetFile(tree)), root)
	paths, _ := tg.ManifestPaths()
	audit, err := Audit(paths, task.AudioTextToText, ByTaskString)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, a := range audit {
		if a.Has {
			t.Errorf("%s claims audio_text_to_text", a.Profile)
		}
		if a.AudioInput != "" {
			kinds[strings.Fields(a.AudioInput)[0]] = a.Profile
		}
	}
	for _, k := range []string{"speech-to-speech", "omni", "voice-chat", "multimodal"} {
		if kinds[k] == "" {
			t.Errorf("%s: the audit names no %s family (%v)", tree, k, kinds)
		}
	}
}

func checkLimits(t *testing.T, rep *Report, want map[string][4]string) {
	t.Helper()
	for fam, w := range want {
		l, ok := LimitsFor(rep.Limits, fam)
		if !ok {
			t.Errorf("no limits audit for %s", fam)
			continue
		}
		got := [4]string{l.MaxClipSeconds.String(), l.SampleRate.String(), l.TokenLimit.String(), l.Language.String()}
		for i := range w {
			if !strings.HasPrefix(got[i], w[i]) {
				t.Errorf("%s limit %d: %q, want %q…", fam, i, got[i], w[i])
			}
		}
	}
}

// Distributed profiles (TP/CP > 1, either spelling) are planned with the GPUs they need, never
// attempted: not on a CPU machine, and not on a 1-GPU runner where the plan would otherwise run
// them. The count is the manifest's distributed_runtime.world_size when it declares one (older
// layout), else tensor_parallel_size × context_parallel_size. Every other row has no GPU count.
func TestDistributedRowsArePlannedWithTheirGPUs(t *testing.T) {
	want := map[string]map[string]string{
		"trtmc-older": {
			"whisper-large-v3-turbo-tp4": "planned: needs 4 GPUs (distributed_runtime.world_size=4)",
			"flux-schnell-l0-cp4":        "planned: needs 4 GPUs (tensor_parallel_size=1 × context_parallel_size=4)",
		},
		"trtmc-newer": {
			"whisper-tiny-fp16-tp2": "planned: needs 2 GPUs (tensor_parallel_size=2 × context_parallel_size=1)",
			"flux-schnell-l0-cp4":   "planned: needs 4 GPUs (tensor_parallel_size=1 × context_parallel_size=4)",
		},
	}
	for tree, rows := range want {
		// Without a planned reason (a machine whose GPU stack is there): still planned.
		rep := Scan(fixturePaths(t, tree), Options{Capabilities: ByTaskString})
		seen := map[string]bool{}
		for _, name := range stage.Names() {
			for _, r := range rep.Stages[name] {
				prefix, distributed := rows[r.Profile]
				switch {
				case distributed:
					seen[r.Profile] = true
					if !strings.HasPrefix(r.Reason, prefix) || r.Status != evidence.StatusPlanned || r.Counted || r.Kind == evidence.KindFull {
						t.Errorf("%s %s: gpus %d, %s %s counted %v, reason %q; want planned, not counted, reason starting %q", tree, r.Profile, r.GPUs, r.Kind, r.Status, r.Counted, r.Reason, prefix)
					}
					if n := strings.Fields(strings.TrimPrefix(prefix, "planned: needs "))[0]; fmtInt(r.GPUs) != n {
						t.Errorf("%s %s: gpus %d, want %s", tree, r.Profile, r.GPUs, n)
					}
				case r.GPUs != 0:
					t.Errorf("%s %s: gpus %d on a single-device profile (%q)", tree, r.Profile, r.GPUs, r.Reason)
				}
			}
		}
		for p := range rows {
			if !seen[p] {
				t.Errorf("%s: no row %s", tree, p)
			}
		}
	}
}

func fixturePaths(t *testing.T, tree string) []string {
	t.Helper()
	root := filepath.Join(repoRoot(), "suites", "targets", "testdata", tree)
	tg, err := target.Read(filepath.Join(repoRoot(), "suites", "targets", targetFile(tree)), root)
	if err != nil {
		t.Fatal(err)
	}
	paths, err := tg.ManifestPaths()
	if err != nil || len(paths) == 0 {
		t.Fatalf("%d manifests in %s (%v)", len(paths), root, err)
	}
	return paths
}

func fmtInt(n int) string { return strconv.Itoa(n) }

// The older layout's reasons cite its own files and fields: there is no apps/benchmark at e9132e79
// (distributed profiles are refused in python/tensorrt_model_connect/benchmark/catalog.py), and
// qwen3-omni's testcase is user_contract tts_audio with a required talker_decode stage (text in,
// speech out), not a text-only path. The JSON audit says [] where a profile has no capability.
func TestOlderLayoutReasonsCiteItsOwnFiles(t *testing.T) {
	for tree, catalog := range map[string]string{"trtmc-older": "python/tensorrt_model_connect/benchmark/catalog.py", "trtmc-newer": "apps/benchmark/trtmc_benchmark/catalog.py"} {
		rep := Scan(fixturePaths(t, tree), Options{Capabilities: ByTaskString})
		for _, name := range stage.Names() {
			for _, r := range rep.Stages[name] {
				if r.GPUs > 1 && !strings.Contains(r.Reason, "("+catalog+" @") {
					t.Errorf("%s %s: %q does not cite %s", tree, r.Profile, r.Reason, catalog)
				}
			}
		}
	}
	paths := fixturePaths(t, "trtmc-older")
	audit, err := Audit(paths, task.AudioTextToText, ByTaskString)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, a := range audit {
		if a.Capabilities == nil {
			t.Errorf("%s: capabilities null in JSON", a.Profile)
		}
		if a.Profile == "qwen3-omni-30b-a3b-instruct" {
			found = true
			if !strings.Contains(a.AudioInput, `user_contract "tts_audio", required stage talker_decode: text in, speech out`) || strings.Contains(a.AudioInput, "text-only") {
				t.Errorf("qwen3-omni: %q", a.AudioInput)
			}
		}
	}
	if !found {
		t.Fatal("no qwen3-omni in the older audit")
	}
}
