package verify

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
	"github.com/trtmc-qual/trtmc-qual/native/audio"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// clipAndIdentity reads a pinned clip and its decoded identity (task.Audio.SHA256, what the
// server records as an ASR request's input_sha256).
func clipAndIdentity(t *testing.T, name string) ([]byte, string) {
	t.Helper()
	wav, err := os.ReadFile(filepath.Join(repoRootForTest(t), "golden", "asr", "sphinx-tidigits", "clips", name))
	if err != nil {
		t.Fatal(err)
	}
	a, err := audio.DecodeWAV(wav)
	if err != nil {
		t.Fatal(err)
	}
	return wav, a.SHA256()
}

// pairOf is one joined request: the payload AIPerf sent and the server's recorded input hash.
func pairOf(id string, payload map[string]any, recorded string) join.Pair {
	return join.Pair{ID: id, Client: aiperfexport.RawRecord{Payload: payload}, Server: contract.Record{RequestID: id, InputSHA256: recorded, Status: 200}}
}

// TestRecordsInputHashIsThePayloadSent: every server record's input_sha256 must be the identity
// of the payload AIPerf sent under that request id (an ASR clip's decoded audio; an audio-QA
// request's clip and question); a record naming another input is refused naming the records
// file and the request, and so is a reference record without one (TRTMC's records carry none).
func TestRecordsInputHashIsThePayloadSent(t *testing.T) {
	wav, heard := clipAndIdentity(t, "dhd.2934z.wav")
	_, otherHeard := clipAndIdentity(t, "synth-1.wav")
	asrPayload := map[string]any{"file": map[string]any{"b64_data": base64.StdEncoding.EncodeToString(wav)}, "model": "m"}
	body, err := workload.ProbeBody("m", dataset.QAPair{Question: "How many words are spoken?"}, wav)
	if err != nil {
		t.Fatal(err)
	}
	var chat map[string]any
	if err := json.Unmarshal(body, &chat); err != nil {
		t.Fatal(err)
	}
	qa := task.AudioQuestionSHA256(heard, "How many words are spoken?")
	const records = "x/p/server-records.jsonl"
	cases := []struct {
		name, stage, kind string
		pair              join.Pair
		want              string // "" : no problem
	}{
		{"asr, the clip sent", "asr", "reference", pairOf("r1", asrPayload, heard), ""},
		{"asr, another clip recorded", "asr", "reference", pairOf("r1", asrPayload, otherHeard),
			records + ": request r1: the server recorded input_sha256 " + otherHeard + ", the payload AIPerf sent is " + heard},
		{"asr, no hash on a reference record", "asr", "reference", pairOf("r1", asrPayload, ""),
			records + ": request r1: the server recorded input_sha256 (none), the payload AIPerf sent is " + heard},
		{"asr, no hash on a TRTMC record", "asr", "trtmc", pairOf("r1", asrPayload, ""), ""},
		{"asr, another clip recorded by a TRTMC server", "asr", "trtmc", pairOf("r1", asrPayload, otherHeard),
			records + ": request r1: the server recorded input_sha256 " + otherHeard + ", the payload AIPerf sent is " + heard},
		{"audioqa, the clip and question sent", "audioqa", "reference", pairOf("q1", chat, qa), ""},
		{"audioqa, another question recorded", "audioqa", "reference", pairOf("q1", chat, task.AudioQuestionSHA256(heard, "What is the first word?")),
			records + ": request q1: the server recorded input_sha256 " + task.AudioQuestionSHA256(heard, "What is the first word?") + ", the payload AIPerf sent is " + qa},
		{"audioqa, an unreadable payload", "audioqa", "reference", pairOf("q1", map[string]any{"messages": []any{}}, qa),
			records + ": request q1: the payload AIPerf sent has no input identity: chat payload holds 0 input_audio WAV parts, want 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			report, got := collect()
			checkInputHashes(t.TempDir(), evidence.Stage{Stage: c.stage, TargetKind: c.kind}, evidence.Result{Profile: "p", Records: records}, []join.Pair{c.pair}, false, report)
			switch {
			case c.want == "" && len(*got) != 0:
				t.Errorf("the honest request is refused: %v", *got)
			case c.want != "" && !containsAll(*got, c.want):
				t.Errorf("got %v, want one containing %q", *got, c.want)
			}
		})
	}
}
