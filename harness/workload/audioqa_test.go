package workload

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/native/audio"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// qaPair is a joined chat request as AIPerf 0.13.0 sends it (text part, then the WAV file's
// bytes base64-encoded in an input_audio part) with its answer and server record.
func qaPair(id, question string, wav []byte, httpAnswer, recordAnswer, recordSHA string) join.Pair {
	var p join.Pair
	p.ID = id
	p.Client.Payload = map[string]any{"model": "sphinxqa-en-us", "stream": false, "messages": []any{map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "text", "text": question},
		map[string]any{"type": "input_audio", "input_audio": map[string]any{"data": base64.StdEncoding.EncodeToString(wav), "format": "wav"}},
	}}}}
	var resp contract.ChatCompletionResponse
	json.Unmarshal([]byte(`{"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":`+jsonString(httpAnswer)+`}}]}`), &resp)
	body, _ := json.Marshal(resp)
	p.Client.Responses = append(p.Client.Responses, struct {
		Text        string `json:"text"`
		ContentType string `json:"content_type"`
	}{Text: string(body)})
	p.Server = contract.Record{RequestID: id, Status: 200, InputSHA256: recordSHA, Output: &contract.RecordOutput{Text: recordAnswer}}
	return p
}

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

// The audio-QA workload reads the cascade's pinned pairs, sends each as a text + audio row,
// identifies a request by the question and audio AIPerf sent (and the server's input hash),
// and refuses an HTTP answer that differs from the server record.
func TestAudioQARequestIdentifiesThePair(t *testing.T) {
	w, _ := Get("audioqa")
	inputs, err := w.Inputs(repoRoot(), manifest.Manifest{}, manifest.Testcase{Dataset: "golden/audioqa/sphinxqa-en-us.jsonl"}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	in := inputs[len(inputs)-1] // goforward, a digit question
	if !strings.HasPrefix(in.ID, "goforward-") || in.Question == "" || in.Gold == "" || in.Seconds < 2 {
		t.Fatalf("input %+v", in)
	}
	l, err := w.AIPerf(inputs, manifest.Manifest{}, manifest.Testcase{})
	if err != nil || len(l.Rows) != len(inputs) || l.Rows[0]["text"] != inputs[0].Question || l.Media[in.ContainerPath] != in.HostPath {
		t.Fatalf("AIPerf load %+v %v", l.Rows[0], err)
	}
	wav, err := os.ReadFile(in.HostPath)
	if err != nil {
		t.Fatal(err)
	}
	sha := task.AudioQuestionSHA256(in.AudioSHA, in.Question)
	req, err := w.Request(qaPair("r1", in.Question, wav, "0", "0", sha), inputs)
	if err != nil || req.Input != in.ID || req.Gold != in.Gold || req.Output != "0" ||
		req.Native["input"] != in.ContainerPath || req.Native["question"] != in.Question {
		t.Fatalf("request %+v %v", req, err)
	}
	if _, err := w.Request(qaPair("r2", in.Question, wav, "0", "1", sha), inputs); err == nil {
		t.Error("an HTTP answer differing from the server record was accepted")
	}
	if _, err := w.Request(qaPair("r3", in.Question, wav, "0", "0", strings.Repeat("0", 64)), inputs); err == nil {
		t.Error("an input the server did not record was accepted")
	}
	other := "Is the word forward spoken?"
	if _, err := w.Request(qaPair("r4", other, wav, "yes", "yes", task.AudioQuestionSHA256(in.AudioSHA, other)), inputs); err == nil {
		t.Error("a question that is not a pinned pair's was accepted")
	}
	if a, err := w.NativeOutput(`{"text":"4","question":"How many words are spoken?"}`); err != nil || a != "4" {
		t.Errorf("native output %q %v", a, err)
	}
	if _, err := w.NativeOutput(`{"answer":"go forward ten meters"}`); err == nil {
		t.Error("a native run without an answer was accepted")
	}
}

func TestAudioQAMeaningChecksTheAnswerType(t *testing.T) {
	w, _ := Get("audioqa")
	pairs := []join.Pair{
		qaPairNoAudio("a", "How many words are spoken?"),
		qaPairNoAudio("b", "Is the word ten spoken?"),
	}
	good := []evidence.Output{{RequestID: "a", HTTPOutput: "4", Gold: "4"}, {RequestID: "b", HTTPOutput: "yes", Gold: "no"}}
	m, err := w.Meaning(manifest.Thresholds{}, good, pairs)
	if err != nil || len(m.Failures) != 0 || m.Checks["typed_answers"] != 2 || m.Checks["gold_accuracy"] != 0.5 {
		t.Fatalf("meaning %+v %v", m, err)
	}
	bad := []evidence.Output{{RequestID: "a", HTTPOutput: "four", Gold: "4"}, {RequestID: "b", HTTPOutput: "", Gold: "no"}}
	if m, err := w.Meaning(manifest.Thresholds{}, bad, pairs); err != nil || len(m.Failures) != 2 || m.Checks["empty_answers"] != 1 {
		t.Fatalf("answers of the wrong type or empty passed: %+v %v", m, err)
	}
}

func mustMeaning(t *testing.T, w Workload, outs []evidence.Output, pairs []join.Pair) evidence.Meaning {
	m, err := w.Meaning(manifest.Thresholds{}, outs, pairs)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// qaPairNoAudio is a joined request whose payload carries a question and 10 ms of silence:
// the meaning check reads only the question from it.
func qaPairNoAudio(id, question string) join.Pair {
	return qaPair(id, question, audio.EncodePCM16(make([]int16, 160), 1, 16000), "", "", "")
}

func TestAudioQAProbeBody(t *testing.T) {
	pairs, err := dataset.ReadQAPairs(filepath.Join(repoRoot(), PairsPath))
	if err != nil {
		t.Fatal(err)
	}
	body, err := ProbeBody("sphinx-en-us", pairs[0], []byte("RIFF"))
	if err != nil || !strings.Contains(string(body), `"input_audio"`) || !strings.Contains(string(body), pairs[0].Question) {
		t.Errorf("probe body %s %v", body, err)
	}
}
