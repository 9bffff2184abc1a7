package inventory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
)

// TestEverySpellingIsolated checks each spelling alone, so that one signal never hides a broken
// reading of another (the fixture trees combine them as the real files do).
func TestEverySpellingIsolated(t *testing.T) {
	cases := []struct {
		name, json string
		kind       evidence.Kind
		marking    string
	}{
		{"task", `{"task":"image_generation"}`, evidence.KindFull, ""},
		{"task_strategy", `{"task_strategy":"diffusion_media_generation"}`, evidence.KindFull, ""},
		{"tp top level", `{"task":"image_generation","tensor_parallel_size":4}`, evidence.KindVariant, "tensor_parallel_size=4"},
		{"tp build_args", `{"task":"image_generation","build_args":{"parallel":{"mode":"tensor_parallel","tp_size":2}}}`, evidence.KindVariant, "tensor_parallel_size=2"},
		{"cp build_args", `{"task":"image_generation","build_args":{"parallel":{"mode":"context_parallel","cp_size":4}}}`, evidence.KindVariant, "context_parallel_size=4"},
		{"parallel single", `{"task":"image_generation","build_args":{"parallel":{"mode":"single","cp_size":1}}}`, evidence.KindFull, ""},
		{"quantization string", `{"task":"image_generation","quantization":"fp8"}`, evidence.KindVariant, "quantization: fp8"},
		{"quantization object", `{"task":"image_generation","quantization":{"format":"fp8","scale_source":"modelopt"}}`, evidence.KindVariant, "quantization: fp8"},
		{"fp8_scales", `{"task":"image_generation","fp8_scales":"x.json"}`, evidence.KindVariant, "fp8_scales"},
		{"ci_tier l0_only top", `{"task":"image_generation","ci_tier":"l0_only"}`, evidence.KindReduced, "l0_only"},
		{"ci_tier l0_only testcase", `{"task":"image_generation","testcases":[{"name":"p","ci_tier":"l0_only"}]}`, evidence.KindReduced, "l0_only"},
		{"ci_tier multi_device", `{"task":"image_generation","testcases":[{"name":"p","ci_tier":"multi_device"}]}`, evidence.KindVariant, "multi_device"},
		{"ci_tier nightly_only", `{"task":"image_generation","testcases":[{"name":"p","ci_tier":"nightly_only"}]}`, evidence.KindFull, "nightly_only (a normal profile"},
		{"l0_replacement true", `{"task":"image_generation","l0_replacement":true}`, evidence.KindReduced, "l0_replacement: true"},
		{"l0_replacement names another", `{"task":"image_generation","testcases":[{"name":"p","l0_replacement":"p-l0"}]}`, evidence.KindFull, "CI runs p-l0"},
		{"accuracy_source none", `{"task":"image_generation","accuracy_source":"none"}`, evidence.KindReduced, "random weights"},
		{"premerge alone", `{"task":"image_generation","testcases":[{"name":"p","premerge":true}]}`, evidence.KindFull, ""},
		{"video top", `{"task":"image_generation","video_num_frames":17}`, evidence.KindExcluded, "video_num_frames=17 at top level"},
		{"video testcase", `{"task":"image_generation","testcases":[{"name":"p","video_num_frames":5}]}`, evidence.KindExcluded, "video_num_frames=5 at testcase p"},
		{"still image frames", `{"task":"image_generation","video_num_frames":1}`, evidence.KindFull, ""},
		{"user_contract video", `{"task":"image_generation","testcases":[{"name":"p","user_contract":"diffusion_video"}]}`, evidence.KindExcluded, "diffusion_video"},
		{"reference_family video", `{"task":"image_generation","testcases":[{"name":"p","reference_family":"diffusers_video_gen"}]}`, evidence.KindExcluded, "diffusers_video_gen"},
		{"text_to_audio_video", `{"task":"text_to_audio_video"}`, evidence.KindExcluded, "text_to_audio_video"},
		{"world_model_generation", `{"task":"world_model_generation"}`, evidence.KindExcluded, "world_model_generation"},
		{"image_edit", `{"task":"image_edit"}`, evidence.KindExcluded, "image editing (task image_edit)"},
		{"task_mode edit", `{"task":"image_generation","testcases":[{"name":"p","task_mode":"edit"}]}`, evidence.KindExcluded, "task_mode: edit"},
		{"user_contract i2i", `{"task":"image_generation","user_contract":"image-to-image"}`, evidence.KindExcluded, "image-to-image"},
		{"test_image", `{"task":"image_generation","testcases":[{"name":"p","test_image":"x.jpeg"}]}`, evidence.KindExcluded, "input image"},
		{"batch task", `{"task":"image_generation_batch"}`, evidence.KindVariant, "batch task"},
	}
	dir := t.TempDir()
	for i, c := range cases {
		body := strings.TrimSuffix(c.json, "}") + `,"name":"p","family":"f","bundle":"p.bundle","hf_id":"org/m"`
		if !strings.Contains(c.json, "testcases") {
			body += `,"testcases":[{"name":"p"}]`
		}
		path := filepath.Join(dir, string(rune('a'+i))+".json")
		if err := os.WriteFile(path, []byte(body+"}"), 0o644); err != nil {
			t.Fatal(err)
		}
		rows := Scan([]string{path}, Options{Capabilities: ByTaskString}).Stages[stage.T2I]
		var r evidence.InventoryRow
		for _, row := range rows {
			if row.Profile == "p" {
				r = row
			}
		}
		if r.Profile == "" {
			t.Errorf("%s: not in stage 6", c.name)
			continue
		}
		text := strings.Join(append(append(append([]string{}, r.Markings...), r.Notes...), r.Reason), "; ")
		if r.Kind != c.kind || !strings.Contains(text, c.marking) {
			t.Errorf("%s: kind %s %q, want %s with %q", c.name, r.Kind, text, c.kind, c.marking)
		}
	}
}

// TestAdmitRefusesClipsBeyondTheFamilyLimit: a declared maximum keeps longer clips out, with
// the reason; an undeclared one admits every clip.
func TestAdmitRefusesClipsBeyondTheFamilyLimit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.json")
	os.WriteFile(path, []byte(`{"name":"a","family":"f","bundle":"a.bundle","hf_id":"o/a","task":"transcription",
		"build":{"max_seconds":30,"sample_rate":16000,"language":"en"},"testcases":[{"name":"a","max_new_tokens":40}]}`), 0o644)
	rep := Scan([]string{path}, Options{})
	l, ok := LimitsFor(rep.Limits, "f")
	if !ok || l.MaxClipSeconds.Value != "30" || l.SampleRate.Value != "16000" || l.Language.Value != "en" || !strings.Contains(l.TokenLimit.Value, "max_new_tokens=40") {
		t.Fatalf("limits %+v", l)
	}
	if ok, why := l.Admit(31.5); ok || !strings.Contains(why, "31.50 s exceeds family f's maximum clip duration 30 (max_seconds in a build)") {
		t.Errorf("31.5 s admitted=%v %q", ok, why)
	}
	if ok, _ := l.Admit(29); !ok {
		t.Error("29 s refused under a 30 s limit")
	}
	if ok, _ := (FamilyLimits{Family: "g"}).Admit(1e6); !ok {
		t.Error("an undeclared limit refused a clip")
	}
}

func TestCLIControlsAreShownWhenDeclared(t *testing.T) {
	dir := t.TempDir()
	fam := filepath.Join(dir, "families", "f")
	os.MkdirAll(filepath.Join(fam, "tests", "manifests"), 0o755)
	os.WriteFile(filepath.Join(fam, "support.py"), []byte(`describe = family_support(tasks=("transcription",))`), 0o644)
	os.WriteFile(filepath.Join(fam, "cli.json"), []byte(`{"version":1,"commands":[{"name":"build","arguments":[{"name":"precision","flags":["--precision"]}]},
		{"name":"transcribe","arguments":[{"name":"bundle"},{"name":"beam_size","flags":["--beam-size"]},{"name":"runtime_root","flags":["--runtime-root"]},{"name":"language","flags":["--language"]}]}]}`), 0o644)
	m := filepath.Join(fam, "tests", "manifests", "p.json")
	os.WriteFile(m, []byte(`{"name":"p","family":"f","bundle":"p.bundle","hf_id":"o/p","task":"transcription","testcases":[{"name":"p"}]}`), 0o644)
	rows := Scan([]string{m}, Options{}).Stages[stage.ASR]
	if len(rows) != 1 || strings.Join(rows[0].Controls, ",") != "beam_size,language" || rows[0].CapabilitySource != "families/f/support.py" {
		t.Fatalf("rows %+v", rows)
	}
}

func TestLimitsOfManifestReadsItsFamily(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.json"), []byte(`{"name":"a","family":"f","bundle":"a.bundle","hf_id":"o/a","task":"transcription","testcases":[{"name":"a"}]}`), 0o644)
	os.WriteFile(filepath.Join(dir, "a-tp2.json"), []byte(`{"name":"a-tp2","family":"f","bundle":"b.bundle","hf_id":"o/a","task":"transcription","tensor_parallel_size":2,
		"testcases":[{"name":"a-tp2","max_audio_seconds":20}]}`), 0o644)
	l, err := LimitsOfManifest(filepath.Join(dir, "a.json"))
	if err != nil || l.MaxClipSeconds.Value != "20" {
		t.Fatalf("%+v %v", l, err)
	}
	if ok, why := l.Admit(25); ok || !strings.Contains(why, "max_audio_seconds in testcase a-tp2") {
		t.Errorf("25 s admitted=%v %q", ok, why)
	}
}
