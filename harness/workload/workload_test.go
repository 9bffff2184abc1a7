package workload

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
)

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

func TestRegistryIsConsistentWithTheStages(t *testing.T) {
	seen := map[stage.Name]bool{}
	for _, w := range All() {
		if seen[w.Stage()] {
			t.Errorf("stage %s registered twice", w.Stage())
		}
		seen[w.Stage()] = true
		if _, err := stage.Get(string(w.Stage())); err != nil {
			t.Errorf("workload of an unregistered stage: %v", err)
		}
		if got, err := Get(string(w.Stage())); err != nil || got.Stage() != w.Stage() {
			t.Errorf("Get(%s) = %v, %v", w.Stage(), got, err)
		}
		if w.Route() == "" || w.EndpointType() == "" || w.IdentityRule() == "" || len(w.Figures()) == 0 {
			t.Errorf("%s: route %q endpoint %q rule %q figures %v", w.Stage(), w.Route(), w.EndpointType(), w.IdentityRule(), w.Figures())
		}
	}
	for _, s := range stage.Names() {
		if !seen[s] {
			t.Errorf("stage %s has no workload in All", s)
		}
	}
}

func TestUnknownStageNamesTheKnownOnes(t *testing.T) {
	_, err := Get("speech")
	if err == nil || !strings.Contains(err.Error(), `"speech"`) || !strings.Contains(err.Error(), "asr, audioqa, t2i") {
		t.Errorf("unknown stage: %v", err)
	}
}

// A native run that prints no JSON object is an error naming what it printed, never a panic.
func TestNativeOutputWithoutJSONIsAnError(t *testing.T) {
	for _, w := range All() {
		for _, out := range []string{"", "Segmentation fault", "}{"} {
			if _, err := w.NativeOutput(out); err == nil {
				t.Errorf("%s: native output %q accepted", w.Stage(), out)
			}
		}
	}
	got, err := Get("asr")
	if err != nil {
		t.Fatal(err)
	}
	if text, err := got.NativeOutput("INFO: loading\n{\"text\":\"five five\"}"); err != nil || text != "five five" {
		t.Errorf("banner then JSON: %q %v", text, err)
	}
}

func asrPair(t *testing.T, wav []byte, httpText, recordText, recordSHA string) join.Pair {
	var p join.Pair
	p.ID = "r1"
	p.Client.Payload = map[string]any{"file": map[string]any{"b64_data": base64.StdEncoding.EncodeToString(wav)}}
	body, _ := json.Marshal(contract.TranscriptionResponse{Text: httpText})
	p.Client.Responses = append(p.Client.Responses, struct {
		Text        string `json:"text"`
		ContentType string `json:"content_type"`
	}{Text: string(body)})
	p.Server = contract.Record{RequestID: "r1", Status: 200, InputSHA256: recordSHA, Output: &contract.RecordOutput{Text: recordText}}
	return p
}

// The ASR workload reads the pinned clips, identifies a request by the audio it sent, and
// refuses an HTTP transcript that differs from the server record.
func TestASRRequestIdentifiesTheClip(t *testing.T) {
	w, _ := Get("asr")
	inputs, err := w.Inputs(repoRoot(), manifest.Manifest{}, manifest.Testcase{Dataset: "golden/asr/sphinx-en-us/dataset.json"}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	wav, err := os.ReadFile(inputs[0].HostPath)
	if err != nil {
		t.Fatal(err)
	}
	req, err := w.Request(asrPair(t, wav, "some text", "some text", inputs[0].AudioSHA), inputs)
	if err != nil || req.Input != inputs[0].ID || req.Gold != inputs[0].Gold || req.Native["input"] != inputs[0].ContainerPath || req.Output != "some text" {
		t.Errorf("request %+v %v", req, err)
	}
	if _, err := w.Request(asrPair(t, wav, "some text", "other text", inputs[0].AudioSHA), inputs); err == nil {
		t.Error("an HTTP transcript differing from the server record was accepted")
	}
	if _, err := w.Request(asrPair(t, wav, "x", "x", strings.Repeat("0", 64)), inputs); err == nil {
		t.Error("audio the server did not decode was accepted")
	}
	l, err := w.AIPerf(inputs, manifest.Manifest{}, manifest.Testcase{})
	if err != nil || len(l.Rows) != len(inputs) || l.Media[inputs[0].ContainerPath] != inputs[0].HostPath {
		t.Errorf("AIPerf load %+v %v", l, err)
	}
}

func TestASRMeaningFailsOnEmptyTranscripts(t *testing.T) {
	w, _ := Get("asr")
	th := manifest.Thresholds{Overrides: map[string]float64{"gold_wer": 0.5}}
	m, err := w.Meaning(th, []evidence.Output{{RequestID: "a", Gold: "five five", HTTPOutput: ""}}, nil)
	if err != nil || len(m.Failures) == 0 || m.Checks["empty_transcripts"] != 1 {
		t.Errorf("meaning %+v %v", m, err)
	}
	m, err = w.Meaning(th, []evidence.Output{{RequestID: "a", Gold: "five five", HTTPOutput: "five five"}}, nil)
	if err != nil || len(m.Failures) != 0 || m.Checks["gold_wer"] != 0 {
		t.Errorf("meaning %+v %v", m, err)
	}
}

func TestT2IAIPerfSettings(t *testing.T) {
	w, _ := Get("t2i")
	m := manifest.Manifest{Build: map[string]any{"sizes": []any{[]any{64.0, 48.0}}}}
	tc := manifest.Testcase{Settings: map[string]any{"num_inference_steps": 4.0}}
	l, err := w.AIPerf([]Input{{ID: "p", Prompt: dataset.Prompt{ID: "p", Prompt: "a red cube", Seed: 7, NegativePrompt: "blur"}}}, m, tc)
	if err != nil || l.ExtraInputs["size"] != "64x48" || l.ExtraInputs["response_format"] != "b64_json" || l.ExtraInputs["num_inference_steps"] != 4.0 {
		t.Errorf("extra inputs %v %v", l.ExtraInputs, err)
	}
	trtmc, err := w.AIPerf(nil, manifest.Manifest{Top: map[string]any{"image_width": 512.0, "image_height": 256.0}}, tc)
	if err != nil || trtmc.ExtraInputs["size"] != "512x256" {
		t.Errorf("TRTMC's top-level image size: %v %v", trtmc.ExtraInputs, err)
	}
	extra, _ := l.Rows[0]["extra"].(map[string]any)
	if l.Rows[0]["text"] != "a red cube" || extra["seed"] != int64(7) || extra["negative_prompt"] != "blur" {
		t.Errorf("rows %v", l.Rows)
	}
}

// knownStageSites are the files that still decide by stage, each with the step that removes it.
// A new file deciding by stage fails the test below.
var knownStageSites = map[string]bool{
	// none: verify's gate recomputation is registered by stage.Name (verify.rechecks)
}

// No code outside this registry decides behaviour by stage name: adding a stage must not
// need a new case anywhere else. (harness/inventory keeps its own stage table for discovery,
// checked against the registry by TestRegistryIsConsistentWithTheInventory.)
func TestNoStageSwitchOutsideTheRegistry(t *testing.T) {
	stageDecision := regexp.MustCompile(`case\s+(inventory\.Stage|workload\.)(ASR|T2I|AudioQA)\b|(==|!=)\s*(inventory\.Stage|workload\.)(ASR|T2I|AudioQA)\b|(inventory\.Stage|workload\.)(ASR|T2I|AudioQA)\s*(==|!=)|switch\s+[\w.]*[Ss]tage\s*\{`)
	root := repoRoot()
	for _, dir := range []string{"harness", "suites", "containers", "server"} {
		filepath.WalkDir(filepath.Join(root, dir), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			if strings.HasPrefix(rel, "harness/workload/") || strings.HasPrefix(rel, "harness/inventory/") || knownStageSites[rel] {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for i, line := range strings.Split(string(data), "\n") {
				if stageDecision.MatchString(line) {
					t.Errorf("%s:%d decides by stage outside the workload registry: %s", rel, i+1, strings.TrimSpace(line))
				}
			}
			return nil
		})
	}
}
