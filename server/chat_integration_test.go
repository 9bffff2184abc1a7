package server_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/native/audio"
	"github.com/trtmc-qual/trtmc-qual/native/families/sphinxqa/reader"
	"github.com/trtmc-qual/trtmc-qual/native/task"
	st "github.com/trtmc-qual/trtmc-qual/server/servertest"
)

// qaBundle is the cascade audio-QA reduced profile (PocketSphinx AN4 cards + templated reader),
// built once into the shared fixture directory.
func qaBundle(t testing.TB) string {
	t.Helper()
	path := filepath.Join(sharedDir(t), "sphinxqa-an4-l0.bundle")
	if _, err := os.Stat(path); err != nil {
		st.BuildBundle(t, "sphinxqa", "sphinxqa-an4-l0", sharedDir(t))
	}
	return path
}

// chatBody is a chat request to model with the given content parts (JSON fragments).
func chatBody(model string, parts ...string) string {
	return `{"model":"` + model + `","messages":[{"role":"user","content":[` + strings.Join(parts, ",") + `]}]}`
}

func textPart(q string) string {
	b, _ := json.Marshal(map[string]string{"type": "text", "text": q})
	return string(b)
}

func audioPart(wav []byte) string {
	return `{"type":"input_audio","input_audio":{"data":"` + base64.StdEncoding.EncodeToString(wav) + `","format":"wav"}}`
}

// chatErrorCases are the audio-QA rows of the server's bad-input table: chat requests to the
// cascade model (served as sphinxqa-an4-l0) that must each get their coded 4xx.
func chatErrorCases(t *testing.T) []errorCase {
	clip := cardsClip(t, "004")
	js := func(body string) func(*testing.T, string) *http.Request {
		return func(t *testing.T, url string) *http.Request { return st.JSONPost(t, url+"/v1/chat/completions", body) }
	}
	const qa, q = "sphinxqa-an4-l0", "How many words are spoken?"
	long := audio.EncodePCM16(make([]int16, 31*16000), 1, 16000)
	rate8k := audio.EncodePCM16(make([]int16, 8000), 1, 8000)
	return []errorCase{
		{"qa audio too long", js(chatBody(qa, textPart(q), audioPart(long))), 400, "audio_too_long"},
		{"qa wrong rate", js(chatBody(qa, textPart(q), audioPart(rate8k))), 400, "unsupported_sample_rate"},
		{"qa not wav", js(chatBody(qa, textPart(q), audioPart([]byte("ID3 not audio")))), 400, audio.CodeInvalidAudio},
		{"qa not base64", js(chatBody(qa, textPart(q), `{"type":"input_audio","input_audio":{"data":"@@@","format":"wav"}}`)), 400, audio.CodeInvalidAudio},
		{"qa mp3 format", js(chatBody(qa, textPart(q), `{"type":"input_audio","input_audio":{"data":"AAAA","format":"mp3"}}`)), 400, audio.CodeUnsupportedAudio},
		{"qa two audio parts", js(chatBody(qa, textPart(q), audioPart(clip), audioPart(clip))), 400, contract.CodeInvalidValue},
		{"qa no text part", js(chatBody(qa, audioPart(clip))), 400, contract.CodeMissingField},
		{"qa text only", js(`{"model":"` + qa + `","messages":[{"role":"user","content":"` + q + `"}]}`), 400, contract.CodeUnsupportedCapability},
		{"qa unknown question form", js(chatBody(qa, textPart("Which rank is named twice?"), audioPart(clip))), 400, reader.CodeUnsupportedQuestion},
		{"qa empty question", js(chatBody(qa, textPart("   "), audioPart(clip))), 400, reader.CodeEmptyQuestion},
		{"qa stream", js(`{"model":"` + qa + `","stream":true,"messages":[{"role":"user","content":[` + textPart(q) + `,` + audioPart(clip) + `]}]}`), 400, contract.CodeUnsupportedOption},
	}
}

// TestChatAnswersAnAudioQuestionLikeTheNativeCLI: the cascade model answers over HTTP, the
// server record holds the same answer and input hash, and `trtmc-native answer` on the same
// bundle, clip and question prints the same answer and hash.
func TestChatAnswersAnAudioQuestionLikeTheNativeCLI(t *testing.T) {
	f := setup(t)
	bundlePath := qaBundle(t)
	p := st.Start(t, f.server, []string{bundlePath})
	clip := cardsClip(t, "005")
	const question = "Which digits are spoken?"
	req := st.JSONPost(t, p.URL+"/v1/chat/completions", chatBody("sphinxqa-an4-l0", textPart(question), audioPart(clip)))
	req.Header.Set("X-Request-ID", "qa-1")
	r := st.Do(t, req)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	var resp struct {
		Choices []struct {
			Message struct{ Role, Content string }
		}
	}
	json.Unmarshal(r.Body, &resp)
	if len(resp.Choices) != 1 || resp.Choices[0].Message.Role != "assistant" {
		t.Fatalf("response %s", r.Body)
	}
	httpAnswer := resp.Choices[0].Message.Content
	path := filepath.Join(t.TempDir(), "005.wav")
	os.WriteFile(path, clip, 0o644)
	out, err := exec.Command(f.native, "answer", bundlePath, "--input", path, "--question", question, "--json").Output()
	if err != nil {
		t.Fatalf("trtmc-native answer: %v", err)
	}
	var native struct {
		Answer      string `json:"text"`
		InputSHA256 string `json:"input_sha256"`
	}
	json.Unmarshal(out, &native)
	decoded, _ := audio.DecodeWAV(clip)
	if httpAnswer != native.Answer || httpAnswer == "" || native.InputSHA256 != task.AudioQuestionSHA256(decoded.SHA256(), question) {
		t.Fatalf("HTTP answer %q, native %s", httpAnswer, out)
	}
	if err := reader.CheckType(question, httpAnswer); err != nil {
		t.Error(err)
	}
	if err := p.Stop(t); err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, rec := range readRecords(t, p) {
		if rec.RequestID == "qa-1" {
			found = rec.Output != nil && rec.Output.Text == httpAnswer && rec.InputSHA256 == native.InputSHA256 && rec.Status == 200
		}
	}
	if !found {
		t.Fatalf("no record of qa-1 with the answer %q and input hash %s", httpAnswer, native.InputSHA256)
	}
	t.Logf("cards-005 %q → %q", question, httpAnswer)
}
