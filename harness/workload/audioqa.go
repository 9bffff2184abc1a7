package workload

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// AudioQA is stage 9: one recorded clip and a question → an answer, over chat completions
// with an input_audio part.
//
// Today no family of either target implements audio_text_to_text, so the stage is reported
// blocked with its capability audit and a refusal probe (ProbeBody). The serving side is
// written as far as the contract fixes it — inputs from the pinned QA pairs, AIPerf chat rows
// with audio, the answer read from the chat completion and the server record — while the
// meaning check, which a capable family's gate defines, fails loudly until that family exists.
const AudioQA Stage = "audioqa"

type audioQA struct{}

func (audioQA) Stage() Stage          { return AudioQA }
func (audioQA) Number() int           { return 9 }
func (audioQA) Title() string         { return "audio question answering" }
func (audioQA) Capability() task.Name { return task.AudioTextToText }
func (audioQA) Route() string         { return "/v1/chat/completions" }
func (audioQA) EndpointType() string  { return "chat" }
func (audioQA) Figures() []string     { return []string{"audio_seconds_per_second", "rtf"} }
func (audioQA) IdentityRule() string {
	return "answer text exactly equal (HTTP == server record == native run)"
}

// PairsPath is where the pinned QA pairs live, relative to the repository root.
const PairsPath = "golden/audioqa/pairs.jsonl"

// Inputs reads QA pairs (the testcase's dataset) and materializes each pair's clip; the clip
// is copied into the server container for the native runs.
func (audioQA) Inputs(root, datasetPath, dir string) ([]Input, error) {
	pairs, err := dataset.ReadQAPairs(filepath.Join(root, datasetPath))
	if err != nil {
		return nil, err
	}
	out := make([]Input, 0, len(pairs))
	for _, p := range pairs {
		path, seconds, err := QAClip(root, p, filepath.Join(dir, "inputs"))
		if err != nil {
			return nil, err
		}
		sha, err := fileAudioSHA(path)
		if err != nil {
			return nil, err
		}
		out = append(out, Input{ID: p.ID, HostPath: path, ContainerPath: "/data/" + p.ID + ".wav", Gold: p.Answer,
			Seconds: seconds, AudioSHA: sha, Question: p.Question})
	}
	return out, nil
}

// QAClip materializes the clip a QA pair names from its ASR dataset pin, under dir.
func QAClip(root string, p dataset.QAPair, dir string) (string, float64, error) {
	set, err := dataset.ReadASR(filepath.Join(root, p.Dataset))
	if err != nil {
		return "", 0, err
	}
	clips, err := set.Materialize(root, dir)
	if err != nil {
		return "", 0, err
	}
	for _, c := range clips {
		if c.ID == p.Clip {
			return c.Path, c.Duration, nil
		}
	}
	return "", 0, fmt.Errorf("QA pair %s names clip %s, not in %s", p.ID, p.Clip, p.Dataset)
}

func (audioQA) AIPerf(inputs []Input, _ manifest.Manifest, _ manifest.Testcase) (Load, error) {
	l := Load{Media: map[string]string{}}
	for _, in := range inputs {
		l.Rows = append(l.Rows, map[string]any{"session_id": in.ID, "text": in.Question, "audio": in.ContainerPath})
		l.Media[in.ContainerPath] = in.HostPath
	}
	return l, nil
}

// Request identifies the pair by the server's input hash (clip sha256 + question) and reads
// the answer.
func (w audioQA) Request(p join.Pair, inputs []Input) (Request, error) {
	answer, err := w.HTTPOutput(p)
	if err != nil {
		return Request{}, err
	}
	for _, in := range inputs {
		if contract.AudioQuestionSHA256(in.AudioSHA, in.Question) == p.Server.InputSHA256 {
			return Request{Key: in.ID, Input: in.ID, Gold: in.Gold, Output: answer,
				Native: map[string]string{"input": in.ContainerPath, "question": in.Question}}, nil
		}
	}
	return Request{}, fmt.Errorf("request input (sha %s) is not one of the pinned QA pairs", p.Server.InputSHA256)
}

func (audioQA) HTTPOutput(p join.Pair) (string, error) {
	var resp contract.ChatCompletionResponse
	if err := json.Unmarshal([]byte(p.Client.ResponseBody()), &resp); err != nil || len(resp.Choices) != 1 {
		return "", fmt.Errorf("HTTP response holds no single choice: %q (%v)", tail(p.Client.ResponseBody()), err)
	}
	if err := checkRecord(p); err != nil {
		return "", err
	}
	answer := resp.Choices[0].Message.Content
	if answer != p.Server.Output.Text {
		return "", fmt.Errorf("HTTP answer %q != server record %q", answer, p.Server.Output.Text)
	}
	return answer, nil
}

func (audioQA) NativeOutput(stdout string) (string, error) { return nativeText(stdout) }

// Meaning is defined by the capable family's gate, which does not exist yet: it fails, naming
// why, rather than passing anything.
func (audioQA) Meaning(manifest.Thresholds, []evidence.Output, []join.Pair) (evidence.Meaning, error) {
	return evidence.Meaning{}, fmt.Errorf("stage 9 has no meaning check yet: it is defined with the first family implementing %s", task.AudioTextToText)
}

func (audioQA) RecheckMeaning([]evidence.Output, evidence.Meaning) []string { return nil }

// ProbeBody is the chat request of the refusal probe: the pair's question and its clip as an
// input_audio part, to a model without the capability.
func ProbeBody(model string, p dataset.QAPair, wav []byte) ([]byte, error) {
	body := map[string]any{"model": model, "messages": []any{map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "text", "text": p.Question},
		map[string]any{"type": "input_audio", "input_audio": map[string]any{"data": base64.StdEncoding.EncodeToString(wav), "format": "wav"}},
	}}}}
	return json.Marshal(body)
}
