package verify

// What AIPerf was given, for the stages whose inputs are not clip-admitted (stage 3 has
// checkSent, skipped.go): every AIPerf inputs.json of a T2I or audio-QA row must hold exactly
// the pinned inputs the evidence names (dataset.path, re-hashed by storedSource), each as its
// session id, and each session's payloads must carry that input (a prompt's text and seed, a QA
// pair's question and clip). An audio-QA row's stored clips, the WAVs it sent, are re-hashed
// against the ASR dataset pins its QA pairs name, as a stage-3 row's are (checkASRInputs).

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
	"github.com/trtmc-qual/trtmc-qual/native/audio"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
)

// payloadCheck says what in one payload AIPerf sent differs from the pinned input of its
// session ("" when nothing does).
type payloadCheck func(payload map[string]any) string

// aiperfSession is one session of AIPerf's inputs.json: its id and the request payloads.
type aiperfSession struct {
	ID       string           `json:"session_id"`
	Payloads []map[string]any `json:"payloads"`
}

// aiperfInputsFiles are the row's AIPerf inputs.json files: the artifact directory's (aiperf.dir)
// and each profile run's. None is reported, naming what then cannot be checked.
func aiperfInputsFiles(runDir, where string, r evidence.Result, what string, report reporter) []string {
	dir, err := local(runDir, "aiperf.dir", r.AIPerf.Dir)
	if err != nil {
		report(where, "%v", err)
		return nil
	}
	files, _ := filepath.Glob(filepath.Join(dir, "inputs.json"))
	runs, _ := filepath.Glob(filepath.Join(dir, "profile_runs", "*", "inputs.json"))
	files = append(files, runs...)
	if len(files) == 0 {
		report(where, "no AIPerf inputs.json under %s: which %s were sent cannot be checked", r.AIPerf.Dir, what)
	}
	return files
}

// readSessions reads AIPerf's inputs.json ({"data": [{"session_id": ..., "payloads": [...]}]}),
// numbers kept as written.
func readSessions(path string) ([]aiperfSession, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var in struct {
		Data []aiperfSession `json:"data"`
	}
	if err := dec.Decode(&in); err != nil {
		return nil, fmt.Errorf("AIPerf inputs: %w", err)
	}
	return in.Data, nil
}

// checkSessions requires every AIPerf inputs.json of the row to hold each pinned input (want, by
// id) and nothing else, and every payload of a session to pass its input's check. what names
// one input ("prompt", "QA pair").
func checkSessions(runDir, where string, r evidence.Result, want map[string]payloadCheck, what string, report reporter) {
	for _, f := range aiperfInputsFiles(runDir, where, r, "inputs", report) {
		rel := relSlash(runDir, f)
		sessions, err := readSessions(f)
		if err != nil {
			report(rel, "%v", err)
			continue
		}
		seen := map[string]bool{}
		var extra []string
		for _, s := range sessions {
			check, pinned := want[s.ID]
			if !pinned {
				extra = append(extra, s.ID)
				continue
			}
			seen[s.ID] = true
			checkPayloads(rel, s, check, report)
		}
		for _, id := range slices.Sorted(maps.Keys(want)) {
			if !seen[id] {
				report(rel, "%s %s of the pinned %s was not given to AIPerf", what, id, r.Dataset.Path)
			}
		}
		if len(extra) > 0 {
			slices.Sort(extra)
			report(rel, "AIPerf was given inputs %v that are not %ss of the pinned %s", extra, what, r.Dataset.Path)
		}
	}
}

func checkPayloads(rel string, s aiperfSession, check payloadCheck, report reporter) {
	if len(s.Payloads) == 0 {
		report(rel, "session %s holds no payload", s.ID)
	}
	for i, p := range s.Payloads {
		if diff := check(p); diff != "" {
			report(rel, "session %s: payload %d %s", s.ID, i+1, diff)
		}
	}
}

// checkT2ISent ties a T2I row's AIPerf inputs.json to its prompts: the pinned prompts file's, or
// the one its TRTMC testcase carries.
func checkT2ISent(runDir string, _ pins, src inputSource, where string, r evidence.Result, report reporter) {
	prompts, err := src.prompts()
	if err != nil {
		report(r.Dataset.Path, "%v", err)
		return
	}
	want := map[string]payloadCheck{}
	for _, p := range prompts {
		want[p.ID] = promptPayload(p)
	}
	checkSessions(runDir, where, r, want, "prompt", report)
}

// promptPayload: an images request carries its prompt's text, seed and negative prompt (none when
// the prompt has none), as workload's t2i AIPerf rows give them.
func promptPayload(p dataset.Prompt) payloadCheck {
	return func(payload map[string]any) string {
		var diffs []string
		if got := payloadText(payload["prompt"]); got != p.Prompt {
			diffs = append(diffs, fmt.Sprintf("prompt %q, pinned %q", got, p.Prompt))
		}
		if got := payloadText(payload["seed"]); got != strconv.FormatInt(p.Seed, 10) {
			diffs = append(diffs, fmt.Sprintf("seed %s, pinned %d", orNoValue(got), p.Seed))
		}
		if got := payloadText(payload["negative_prompt"]); got != p.NegativePrompt {
			diffs = append(diffs, fmt.Sprintf("negative_prompt %q, pinned %q", got, p.NegativePrompt))
		}
		return strings.Join(diffs, "; ")
	}
}

// payloadText is a payload value as written ("" when absent).
func payloadText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case json.Number:
		return v.String()
	}
	return fmt.Sprint(v)
}

func orNoValue(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// storedClip is the stored copy of a pinned clip a QA pair sends.
type storedClip struct {
	path string // where the run stored it
	set  string // the ASR dataset pin holding it, repository-relative
	clip dataset.ASRClip
}

// checkAudioQAInputs re-hashes the clips an audio-QA row sent (stored beside its server records)
// against the ASR dataset pins its QA pairs name, and ties its AIPerf inputs.json to those pairs.
func checkAudioQAInputs(runDir string, p pins, src inputSource, where string, r evidence.Result, report reporter) {
	pairs, err := src.qaPairs()
	if err != nil {
		report(r.Dataset.Path, "%v", err)
		return
	}
	dir, ok := storedInputsDir(runDir, where, r, report)
	if !ok {
		return
	}
	clips, err := qaClips(p.root, dir, pairs)
	if err != nil {
		report(r.Dataset.Path, "%v", err)
		return
	}
	heard := rehashClips(runDir, clips, report)
	want := map[string]payloadCheck{}
	for _, pr := range pairs {
		want[pr.ID] = qaPayload(pr, clips[pr.ID], heard[clips[pr.ID].path])
	}
	checkSessions(runDir, where, r, want, "QA pair", report)
}

// qaClips is where the run stored each pair's clip: workload's audio-QA Inputs materializes each
// ASR dataset the pairs name once, in pair order, under inputs/<clips materialized before it>.
func qaClips(root, dir string, pairs []dataset.QAPair) (map[string]storedClip, error) {
	out := map[string]storedClip{}
	sets := map[string]map[string]storedClip{}
	n := 0
	for _, pr := range pairs {
		set, ok := sets[pr.Dataset]
		if !ok {
			var err error
			if set, err = storedSet(root, pr.Dataset, filepath.Join(dir, strconv.Itoa(n))); err != nil {
				return nil, fmt.Errorf("QA pair %s: %w", pr.ID, err)
			}
			sets[pr.Dataset], n = set, n+len(set)
		}
		c, ok := set[pr.Clip]
		if !ok {
			return nil, fmt.Errorf("QA pair %s names clip %s, not in %s", pr.ID, pr.Clip, pr.Dataset)
		}
		out[pr.ID] = c
	}
	return out, nil
}

// storedSet is an ASR dataset pin's clips as stored under dir.
func storedSet(root, setPath, dir string) (map[string]storedClip, error) {
	path, err := local(root, "dataset", setPath)
	if err != nil {
		return nil, err
	}
	set, err := dataset.ReadASR(path)
	if err != nil {
		return nil, err
	}
	out := map[string]storedClip{}
	for _, c := range set.Clips {
		out[c.ID] = storedClip{path: filepath.Join(dir, c.ID+".wav"), set: setPath, clip: c}
	}
	return out, nil
}

// rehashClips re-hashes each stored clip (once) against its pin, and returns by path the decoded
// audio's identity (task.Audio.SHA256, what the server hashes) of each that matches.
func rehashClips(runDir string, clips map[string]storedClip, report reporter) map[string]string {
	heard := map[string]string{}
	for _, id := range slices.Sorted(maps.Keys(clips)) {
		c := clips[id]
		if _, done := heard[c.path]; done {
			continue
		}
		heard[c.path] = ""
		data, err := os.ReadFile(c.path)
		if err != nil {
			report(relSlash(runDir, c.path), "stored input pinned in %s cannot be read: %v", c.set, err)
			continue
		}
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != c.clip.SHA256 {
			report(relSlash(runDir, c.path), "stored input sha256 %s, pinned %s in %s", got, c.clip.SHA256, c.set)
			continue
		}
		if a, err := audio.DecodeWAV(data); err == nil {
			heard[c.path] = a.SHA256()
		}
	}
	return heard
}

// qaPayload: a chat request carries its pair's question and, as its one input_audio part, its
// pair's clip (heard: the stored clip's decoded identity; "" when the stored clip is not the pin,
// reported by rehashClips).
func qaPayload(pr dataset.QAPair, c storedClip, heard string) payloadCheck {
	return func(payload map[string]any) string {
		question, sent, err := workload.ChatInput(payload)
		if err != nil {
			return err.Error()
		}
		var diffs []string
		if question != strings.TrimSpace(pr.Question) {
			diffs = append(diffs, fmt.Sprintf("question %q, pinned %q", question, pr.Question))
		}
		if heard != "" && sent != heard {
			diffs = append(diffs, fmt.Sprintf("clip (decoded %s) is not clip %s of %s (decoded %s)", sent, c.clip.ID, c.set, heard))
		}
		return strings.Join(diffs, "; ")
	}
}

// relSlash is path relative to the run directory, as a slash path (where problems name files).
func relSlash(runDir, path string) string {
	rel, _ := filepath.Rel(runDir, path)
	return filepath.ToSlash(rel)
}
