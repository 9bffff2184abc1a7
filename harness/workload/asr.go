package workload

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/metrics"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
	"github.com/trtmc-qual/trtmc-qual/native/audio"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// asr reads clips `make deps` fetched from cache ("" = the default cache; WithCache).
type asr struct{ cache string }

// WithCache implements CacheReader.
func (asr) WithCache(dir string) Workload { return asr{cache: dir} }

func (asr) Stage() stage.Name    { return stage.ASR }
func (asr) Route() string        { return "/v1/audio/transcriptions" }
func (asr) EndpointType() string { return "audio_transcription" }
func (asr) Figures() []string    { return []string{"audio_seconds_per_second", "rtf", "rtfx"} }
func (asr) IdentityRule() string {
	return "transcript text exactly equal (HTTP == server record == trtmc-native)"
}

// Inputs materializes the pinned clips, or the one clip a TRTMC testcase carries itself
// (test_input_audio, in the checkout, with no gold text); each is copied into the server
// container under /data for the native runs.
func (a asr) Inputs(root string, m manifest.Manifest, tc manifest.Testcase, dir string) ([]Input, error) {
	if wav, ok, err := m.InputAudioPath(tc); ok || err != nil {
		if err != nil {
			return nil, err
		}
		in, err := ownClip(tc.Name, wav, filepath.Join(dir, "inputs"))
		return []Input{in}, err
	}
	datasetPath, err := datasetPath(m, tc)
	if err != nil {
		return nil, err
	}
	set, err := dataset.ReadASR(filepath.Join(root, datasetPath))
	if err != nil {
		return nil, err
	}
	set.Cache = a.cache
	clips, err := set.Materialize(root, filepath.Join(dir, "inputs"))
	if err != nil {
		return nil, err
	}
	out := make([]Input, 0, len(clips))
	for _, cl := range clips {
		in, err := clipInput(cl.ID, cl.Path)
		if err != nil {
			return nil, err
		}
		in.Gold = cl.Gold
		out = append(out, in)
	}
	return out, nil
}

// ownClip copies a testcase's own clip beside the run's other inputs (dir/<id>.wav, as a
// dataset's clips are materialized) and decodes it.
func ownClip(id, wav, dir string) (Input, error) {
	data, err := os.ReadFile(wav)
	if err != nil {
		return Input{}, fmt.Errorf("test_input_audio: %w", err)
	}
	path := filepath.Join(dir, id+".wav")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Input{}, err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return Input{}, fmt.Errorf("write clip: %w", err)
	}
	return clipInput(id, path)
}

// clipInput decodes one clip; Seconds and SampleRate are the decoded clip's: what the family's
// limits are applied to.
func clipInput(id, path string) (Input, error) {
	a, err := fileAudio(path)
	if err != nil {
		return Input{}, err
	}
	return Input{ID: id, HostPath: path, ContainerPath: "/data/" + id + ".wav",
		Seconds: a.Seconds(), SampleRate: a.SampleRate, AudioSHA: a.SHA256()}, nil
}

// fileAudio decodes a clip; its SHA256 is the clip's identity, as the server records it in
// input_sha256.
func fileAudio(path string) (task.Audio, error) {
	data, err := runfile.ReadFile(path)
	if err != nil {
		return task.Audio{}, err
	}
	a, err := audio.DecodeWAV(data)
	if err != nil {
		return task.Audio{}, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// ClipOf decodes a stored clip's length and sample rate (the admission claim applies the
// manifest's limits to them).
func ClipOf(path string) (seconds float64, sampleRate int, err error) {
	a, err := fileAudio(path)
	return a.Seconds(), a.SampleRate, err
}

func (asr) AIPerf(inputs []Input, _ manifest.Manifest, _ manifest.Testcase) (Load, error) {
	l := Load{Media: map[string]string{}}
	for _, in := range inputs {
		l.Rows = append(l.Rows, map[string]any{"session_id": in.ID, "audio": in.ContainerPath})
		l.Media[in.ContainerPath] = in.HostPath
	}
	return l, nil
}

// Request identifies the clip by the audio AIPerf sent (its decoded sha256 must equal what the
// server decoded) and reads the HTTP transcript.
func (w asr) Request(p join.Pair, inputs []Input) (Request, error) {
	sha, err := UploadedClipSHA(p.Client.Payload)
	if err != nil {
		return Request{}, err
	}
	// TRTMC's serving records carry no input hash (its app writes request_id, timing and
	// observation only): the clip is then identified by the audio sent alone. (trtmc hook)
	if p.Server.InputSHA256 != "" && sha != p.Server.InputSHA256 {
		return Request{}, fmt.Errorf("audio sent (sha %s) != audio the server decoded (%s)", sha, p.Server.InputSHA256)
	}
	text, err := w.HTTPOutput(p)
	if err != nil {
		return Request{}, err
	}
	for _, in := range inputs {
		if in.AudioSHA == sha {
			return Request{Key: in.ID, Input: in.ID, Gold: in.Gold, Output: text, Native: clipNative(in)}, nil
		}
	}
	return Request{}, fmt.Errorf("request audio (sha %s) is not one of the pinned clips", sha)
}

// UploadedClipSHA is a transcription payload's input identity as AIPerf sent it: the identity
// (task.Audio.SHA256) of its file part, decoded; verify re-derives records' input_sha256 with it.
func UploadedClipSHA(payload map[string]any) (string, error) {
	a, err := uploadedClip(payload)
	if err != nil {
		return "", err
	}
	return a.SHA256(), nil
}

// ClipSeconds is the length of the clip the request uploaded (ClipTimed: the timing claim fills
// a record without one from it, the inputs claim compares a record's audio_seconds with it); an
// error when the payload has no decodable clip.
func (asr) ClipSeconds(p join.Pair) (float64, error) {
	a, err := uploadedClip(p.Client.Payload)
	if err != nil {
		return 0, err
	}
	return a.Seconds(), nil
}

// uploadedClip decodes a transcription payload's file part as AIPerf sent it.
func uploadedClip(payload map[string]any) (task.Audio, error) {
	file, _ := payload["file"].(map[string]any)
	b64, _ := file["b64_data"].(string)
	wav, err := base64.StdEncoding.DecodeString(b64)
	if err == nil && len(wav) == 0 {
		err = errors.New("no file.b64_data")
	}
	if err != nil {
		return task.Audio{}, fmt.Errorf("raw payload audio: %w", err)
	}
	a, err := audio.DecodeWAV(wav)
	if err != nil {
		return task.Audio{}, fmt.Errorf("raw payload audio: %w", err)
	}
	return a, nil
}

func (asr) HTTPOutput(p join.Pair) (string, error) {
	var resp contract.TRTMCTranscription // {"text"}: ours and TRTMC's
	if err := json.Unmarshal([]byte(p.Client.ResponseBody()), &resp); err != nil || resp.Text == nil {
		return "", fmt.Errorf("HTTP response has no text: %q", Tail(p.Client.ResponseBody()))
	}
	if err := checkRecord(p); err != nil {
		return "", err
	}
	if p.Server.Output.Text != *resp.Text {
		return "", fmt.Errorf("HTTP text %q != server record %q", *resp.Text, p.Server.Output.Text)
	}
	return *resp.Text, nil
}

func (asr) NativeOutput(stdout string) (string, error) { return nativeText(stdout) }

// Meaning: every transcript non-empty and the corpus WER to the human gold text within the
// family's gold_wer bound. Inputs without a gold text (a TRTMC testcase's own clip: TRTMC gives
// none) claim no gold WER: only non-empty is checked, and the rule says so.
func (asr) Meaning(th manifest.Thresholds, outputs []evidence.Output, _ []join.Pair) (evidence.Meaning, error) {
	m := evidence.Meaning{Checks: map[string]float64{}}
	if noGold(outputs) {
		m.Rule = "every transcript non-empty; " + NoGold
		m.Checks["empty_transcripts"] = float64(emptyTexts(outputs))
		if n := emptyTexts(outputs); n > 0 {
			m.Failures = append(m.Failures, fmt.Sprintf("%d empty transcripts", n))
		}
		return m, nil
	}
	bound, err := th.Limit("gold_wer")
	if err != nil {
		return m, err
	}
	m.Rule = fmt.Sprintf("every transcript non-empty; corpus WER to gold (gold-wer-v1, unit costs) over all requests <= %v (the family's gold_wer)", bound)
	wer, empty, err := metrics.GoldCorpusWER(GoldPairs(outputs))
	if err != nil {
		return m, err
	}
	m.Checks["gold_wer"], m.Checks["empty_transcripts"], m.Checks["gold_wer_bound"] = wer, float64(empty), bound
	if empty > 0 {
		m.Failures = append(m.Failures, fmt.Sprintf("%d empty transcripts", empty))
	}
	if wer > bound {
		m.Failures = append(m.Failures, fmt.Sprintf("gold WER %.4f > %v", wer, bound))
	}
	return m, nil
}

// GoldPairs are the stored transcripts with their gold text, for metrics.GoldCorpusWER.
func GoldPairs(outputs []evidence.Output) []metrics.Pair {
	pairs := make([]metrics.Pair, 0, len(outputs))
	for _, o := range outputs {
		pairs = append(pairs, metrics.Pair{ID: o.RequestID, Expected: o.Gold, Hyp: o.HTTPOutput})
	}
	return pairs
}

// noGold: there are outputs and none carries a gold text. A mix is not this case: the gold WER
// then fails on the missing gold texts, as it should.
func noGold(outputs []evidence.Output) bool {
	for _, o := range outputs {
		if o.Gold != "" {
			return false
		}
	}
	return len(outputs) > 0
}

func emptyTexts(outputs []evidence.Output) int {
	n := 0
	for _, o := range outputs {
		if strings.TrimSpace(o.HTTPOutput) == "" {
			n++
		}
	}
	return n
}
