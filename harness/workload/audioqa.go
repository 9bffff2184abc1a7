package workload

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
	"github.com/trtmc-qual/trtmc-qual/native/audio"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/families/sphinxqa/reader"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// AudioQA is stage 9: one recorded clip and a question → an answer, over chat completions
// with an input_audio part (AIPerf --endpoint-type chat; a single_turn row with "text" and
// "audio", which AIPerf 0.13.0 sends as a text part followed by
// {"type":"input_audio","input_audio":{"data":<base64 of the WAV file>,"format":"wav"}}).
//
// On the reference target the capable family is the sphinxqa cascade (PocketSphinx +
// templated reader, not an audio-language model); a target without a capable profile is

// audioQA reads clips `make deps` fetched from cache ("" = the default cache; WithCache).
type audioQA struct{ cache string }

// WithCache implements CacheReader.
func (audioQA) WithCache(dir string) Workload { return audioQA{cache: dir} }

func (audioQA) Stage() stage.Name    { return stage.AudioQA }
func (audioQA) Route() string        { return "/v1/chat/completions" }
func (audioQA) EndpointType() string { return "chat" }
func (audioQA) Figures() []string    { return []string{"audio_seconds_per_second", "rtf"} }
func (audioQA) IdentityRule() string {
	return "answer text exactly equal (HTTP == server record == native run)"
}

// MayBeBlocked: no TRTMC family implements audio_text_to_text yet; the reference target's
// cascade family does.
func (audioQA) MayBeBlocked() string {
	return "a target need not implement audio_text_to_text: no TRTMC family does yet, and TRTMC's serving app could not " +
		"carry the request if one did (apps/perf_serving/trtmc_perf_serving/openai.py @db5a3def _parts takes only text and " +
		"image_url content parts and refuses an input_audio part with 400 \"unsupported content part\"; /v1/chat/completions " +
		"is served only for the generate operation)"
}

// ProbeStage: the refusal probe serves a transcription-only checkpoint.
func (audioQA) ProbeStage() stage.Name { return stage.ASR }

// ProbeRequest is the first free-form QA pair (PairsPath) as a chat request with its clip as an
// input_audio part.
func (a audioQA) ProbeRequest(root, model, dir string) (string, []byte, error) {
	pairs, err := dataset.ReadQAPairs(filepath.Join(root, PairsPath))
	if err != nil {
		return "", nil, err
	}
	if len(pairs) == 0 {
		return "", nil, fmt.Errorf("%s holds no QA pair to probe with", PairsPath)
	}
	clip, _, err := QAClip(root, a.cache, pairs[0], dir)
	if err != nil {
		return "", nil, err
	}
	wav, err := os.ReadFile(clip)
	if err != nil {
		return "", nil, fmt.Errorf("probe clip: %w", err)
	}
	body, err := ProbeBody(model, pairs[0], wav)
	return pairs[0].ID, body, err
}

// PairsPath is where the free-form QA pairs of the refusal probe live, relative to the
// repository root. A capable profile's testcase names its own pinned pairs.
const PairsPath = "golden/audioqa/pairs.jsonl"

// Inputs reads the testcase's QA pairs and materializes each pair's clip (each ASR dataset
// once); the clip is copied into the server container for the native runs.
func (a audioQA) Inputs(root string, m manifest.Manifest, tc manifest.Testcase, dir string) ([]Input, error) {
	datasetPath, err := datasetPath(m, tc)
	if err != nil {
		return nil, err
	}
	pairs, err := dataset.ReadQAPairs(filepath.Join(root, datasetPath))
	if err != nil {
		return nil, err
	}
	clips := map[string]dataset.Materialized{}
	out := make([]Input, 0, len(pairs))
	for _, p := range pairs {
		c, ok := clips[p.Dataset+"\x00"+p.Clip]
		if !ok {
			if err := materializeSet(root, a.cache, p.Dataset, filepath.Join(dir, "inputs", fmt.Sprint(len(clips))), clips); err != nil {
				return nil, err
			}
			if c, ok = clips[p.Dataset+"\x00"+p.Clip]; !ok {
				return nil, fmt.Errorf("QA pair %s names clip %s, not in %s", p.ID, p.Clip, p.Dataset)
			}
		}
		a, err := fileAudio(c.Path)
		if err != nil {
			return nil, err
		}
		out = append(out, Input{ID: p.ID, HostPath: c.Path, ContainerPath: "/data/" + p.ID + ".wav", Gold: p.Answer,
			Seconds: c.Duration, AudioSHA: a.SHA256(), Question: p.Question})
	}
	return out, nil
}

func materializeSet(root, cache, setPath, dir string, into map[string]dataset.Materialized) error {
	set, err := dataset.ReadASR(filepath.Join(root, setPath))
	if err != nil {
		return err
	}
	set.Cache = cache
	mat, err := set.Materialize(root, dir)
	if err != nil {
		return err
	}
	for _, c := range mat {
		into[setPath+"\x00"+c.ID] = c
	}
	return nil
}

// QAClip materializes the clip a QA pair names from its ASR dataset pin, under dir (a clip
// `make deps` fetched is read from cache, "" = the default cache).
func QAClip(root, cache string, p dataset.QAPair, dir string) (string, float64, error) {
	clips := map[string]dataset.Materialized{}
	if err := materializeSet(root, cache, p.Dataset, dir, clips); err != nil {
		return "", 0, err
	}
	c, ok := clips[p.Dataset+"\x00"+p.Clip]
	if !ok {
		return "", 0, fmt.Errorf("QA pair %s names clip %s, not in %s", p.ID, p.Clip, p.Dataset)
	}
	return c.Path, c.Duration, nil
}

func (audioQA) AIPerf(inputs []Input, _ manifest.Manifest, _ manifest.Testcase) (Load, error) {
	l := Load{Media: map[string]string{}}
	for _, in := range inputs {
		l.Rows = append(l.Rows, map[string]any{"session_id": in.ID, "text": in.Question, "audio": in.ContainerPath})
		l.Media[in.ContainerPath] = in.HostPath
	}
	return l, nil
}

// Request identifies the pair by what AIPerf sent: the question text part and the decoded
// input_audio part must be one pinned pair's, and the server's input hash must agree.
func (w audioQA) Request(p join.Pair, inputs []Input) (Request, error) {
	answer, err := w.HTTPOutput(p)
	if err != nil {
		return Request{}, err
	}
	question, clipSHA, err := ChatInput(p.Client.Payload)
	if err != nil {
		return Request{}, err
	}
	if got := task.AudioQuestionSHA256(clipSHA, question); got != p.Server.InputSHA256 {
		return Request{}, fmt.Errorf("the server recorded input %s, AIPerf sent %s (question %q)", p.Server.InputSHA256, got, question)
	}
	for _, in := range inputs {
		if in.AudioSHA == clipSHA && in.Question == question {
			return Request{Key: in.ID, Input: in.ID, Gold: in.Gold, Output: answer,
				Native: map[string]string{"input": in.ContainerPath, "question": in.Question}}, nil
		}
	}
	return Request{}, fmt.Errorf("request (question %q, clip sha %s) is not one of the pinned QA pairs", question, clipSHA)
}

// ChatInput reads the question (text parts, joined and trimmed as the server does) and the
// decoded clip's sha256 (task.Audio.SHA256) from a chat payload as AIPerf sent it; verify reads
// the payloads of a published run with it too.
func ChatInput(payload map[string]any) (string, string, error) {
	var req struct {
		Messages []struct {
			Content []struct {
				Type       string                   `json:"type"`
				Text       string                   `json:"text"`
				InputAudio *contract.ChatInputAudio `json:"input_audio"`
			} `json:"content"`
		} `json:"messages"`
	}
	raw, _ := json.Marshal(payload)
	if err := json.Unmarshal(raw, &req); err != nil {
		return "", "", fmt.Errorf("chat payload: %w", err)
	}
	var texts, audios []string
	for _, m := range req.Messages {
		for _, part := range m.Content {
			switch {
			case part.Type == "text":
				texts = append(texts, part.Text)
			case part.Type == "input_audio" && part.InputAudio != nil && part.InputAudio.Format == "wav":
				audios = append(audios, part.InputAudio.Data)
			}
		}
	}
	if len(audios) != 1 {
		return "", "", fmt.Errorf("chat payload holds %d input_audio WAV parts, want 1", len(audios))
	}
	wav, err := base64.StdEncoding.DecodeString(audios[0])
	if err != nil {
		return "", "", fmt.Errorf("input_audio data: %w", err)
	}
	a, err := audio.DecodeWAV(wav)
	if err != nil {
		return "", "", fmt.Errorf("input_audio data: %w", err)
	}
	return strings.TrimSpace(strings.Join(texts, "\n")), a.SHA256(), nil
}

func (audioQA) HTTPOutput(p join.Pair) (string, error) {
	var resp contract.ChatCompletionResponse
	if err := json.Unmarshal([]byte(p.Client.ResponseBody()), &resp); err != nil || len(resp.Choices) != 1 {
		return "", fmt.Errorf("HTTP response holds no single choice: %q (%v)", Tail(p.Client.ResponseBody()), err)
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

// NativeOutput reads `trtmc-native answer --json`'s "text" (the answer).
func (audioQA) NativeOutput(stdout string) (string, error) { return nativeText(stdout) }

// Meaning: every answer is non-empty and of its question's type (a count is an integer, a
// word question gets one word, "is the word X spoken" gets yes/no, the digit list is numerals
// or "none"), by the declared templated forms. A question outside those forms (a free-form
// pair of a future audio-language model) can only be held to non-empty. Accuracy to the gold
// answers over the requests sent is reported; the family gate bounds it over every pair.
func (audioQA) Meaning(_ manifest.Thresholds, outputs []evidence.Output, pairs []join.Pair) (evidence.Meaning, error) {
	m := evidence.Meaning{Checks: map[string]float64{}, Rule: "every answer non-empty; an answer to a declared templated question " +
		"(native/families/sphinxqa/reader) of that question's type; accuracy to gold reported (bounded by the family gate over every pair)"}
	questions := map[string]string{}
	for _, p := range pairs {
		if q, _, err := ChatInput(p.Client.Payload); err == nil {
			questions[p.ID] = q
		}
	}
	empty, typed, untyped, correct := 0, 0, 0, 0
	for _, o := range outputs {
		if o.HTTPOutput == "" {
			empty++
			m.Failures = append(m.Failures, fmt.Sprintf("%s: empty answer", o.RequestID))
			continue
		}
		if o.HTTPOutput == o.Gold {
			correct++
		}
		q := questions[o.RequestID]
		if _, err := reader.Parse(q); err != nil {
			untyped++
			continue
		}
		typed++
		if err := reader.CheckType(q, o.HTTPOutput); err != nil {
			m.Failures = append(m.Failures, fmt.Sprintf("%s: %v", o.RequestID, err))
		}
	}
	m.Checks["answers"], m.Checks["empty_answers"] = float64(len(outputs)), float64(empty)
	m.Checks["typed_answers"], m.Checks["untyped_questions"] = float64(typed), float64(untyped)
	if len(outputs) > 0 {
		m.Checks["gold_accuracy"] = float64(correct) / float64(len(outputs))
	}
	if len(outputs) == 0 {
		m.Failures = append(m.Failures, "no answers to check")
	}
	return m, nil
}

// ProbeBody is the chat request of the refusal probe: the pair's question and its clip as an
// input_audio part, to a model without the capability.
func ProbeBody(model string, p dataset.QAPair, wav []byte) ([]byte, error) {
	body := map[string]any{"model": model, "messages": []any{map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "text", "text": p.Question},
		map[string]any{"type": "input_audio", "input_audio": map[string]any{"data": base64.StdEncoding.EncodeToString(wav), "format": "wav"}},
	}}}}
	return json.Marshal(body)
}
