package verify

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/verify/pinned"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
)

// aiperfRunDirs are where sentRun writes AIPerf's inputs.json, under the row's aiperf.dir: the
// artifact directory and each of two profile runs.
var aiperfRunDirs = []string{"", "profile_runs/run_0001/", "profile_runs/run_0002/"}

// payloadOf formats one AIPerf single_turn row as the request payload AIPerf sends for it.
type payloadOf func(t *testing.T, m manifest.Manifest, l workload.Load, row map[string]any) map[string]any

// imagePayload is an image_generation request: the row's text as the prompt, the fixed
// --extra-inputs and the row's own extra (seed, negative prompt).
func imagePayload(_ *testing.T, m manifest.Manifest, l workload.Load, row map[string]any) map[string]any {
	p := map[string]any{"model": m.Name, "prompt": row["text"]}
	maps.Copy(p, l.ExtraInputs)
	if extra, ok := row["extra"].(map[string]any); ok {
		maps.Copy(p, extra)
	}
	return p
}

// chatPayload is a chat request: the row's text part, then its audio file as an input_audio part
// (workload.ProbeBody builds that shape).
func chatPayload(t *testing.T, m manifest.Manifest, l workload.Load, row map[string]any) map[string]any {
	wav, err := os.ReadFile(l.Media[row["audio"].(string)])
	if err != nil {
		t.Fatal(err)
	}
	body, err := workload.ProbeBody(m.Name, dataset.QAPair{Question: row["text"].(string)}, wav)
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// sentRun lays out one row of a reference profile as a run stores it, with the workload's own
// code: its pinned inputs (workload Inputs writes the clips a run sends under <row>/inputs) and
// AIPerf's inputs.json, one session per pinned input holding the payload AIPerf formats from the
// workload's single_turn row, in the artifact directory and two profile runs.
func sentRun(t *testing.T, stage, profile string, format payloadOf) (string, evidence.Stage, evidence.Result) {
	t.Helper()
	root := repoRootForTest(t)
	rel, ok, err := pins{Root: root, TRTMCRoot: envOptions().TRTMCRoot}.Manifest(profile)
	if err != nil || !ok {
		t.Fatalf("profile %s has no pinned manifest (%v)", profile, err)
	}
	m, err := manifest.Read(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	tc := m.Testcases[0]
	w, err := workload.Get(stage)
	if err != nil {
		t.Fatal(err)
	}
	runDir, row := t.TempDir(), stage+"/"+profile+"/"
	inputs, err := w.Inputs(root, m, tc, filepath.Join(runDir, row))
	if err != nil {
		t.Fatalf("pinned inputs not installed (run make deps; make test needs them): %v", err)
	}
	l, err := w.AIPerf(inputs, m, tc)
	if err != nil {
		t.Fatal(err)
	}
	var data []map[string]any
	for _, r := range l.Rows {
		data = append(data, map[string]any{"session_id": r["session_id"], "payloads": []any{format(t, m, l, r)}})
	}
	raw, _ := json.Marshal(map[string]any{"data": data})
	run := writer(runDir)
	run(row+"server-records.jsonl", "")
	for _, dir := range aiperfRunDirs {
		run(row+"aiperf/artifacts/"+dir+"inputs.json", string(raw))
	}
	ds, err := workload.DatasetOf(root, root, m, tc)
	if err != nil {
		t.Fatal(err)
	}
	ds.Items = len(inputs)
	s := evidence.Stage{Stage: stage, TargetKind: "reference", Inventory: []evidence.InventoryRow{{Profile: profile, Family: m.Family, Manifest: rel}}}
	r := evidence.Result{Profile: profile, Status: evidence.StatusQualified, Gate: &evidence.GateResult{Testcase: tc.Name}, Dataset: ds,
		Records: row + "server-records.jsonl", AIPerf: &evidence.AIPerfRun{Dir: row + "aiperf/artifacts"}}
	return runDir, s, r
}

// editSessions rewrites the sessions of one stored inputs.json (relative to the run directory).
func editSessions(t *testing.T, runDir, rel string, fn func(sessions []map[string]any) []map[string]any) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(runDir, rel))
	if err != nil {
		t.Fatal(err)
	}
	var in struct {
		Data []map[string]any `json:"data"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(map[string]any{"data": fn(in.Data)})
	writer(runDir)(rel, string(out))
}

// firstPayload is a session's (only) payload.
func firstPayload(s map[string]any) map[string]any {
	return s["payloads"].([]any)[0].(map[string]any)
}

// sentCase is one edit of an honest row's stored inputs and the refusal it must draw.
type sentCase struct {
	name string
	edit func(t *testing.T, runDir string, r *evidence.Result)
	want []string // one problem must contain all of these
}

// sentRefusals checks that the honest row verifies clean and that each edit is refused.
func sentRefusals(t *testing.T, stage, profile string, format payloadOf, cases []sentCase) {
	t.Helper()
	runDir, s, r := sentRun(t, stage, profile, format)
	if got := rowInputProblems(t, runDir, s, r); len(got) != 0 {
		t.Fatalf("the honest %s row is refused: %v", stage, got)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			runDir, s, r := sentRun(t, stage, profile, format)
			c.edit(t, runDir, &r)
			if got := rowInputProblems(t, runDir, s, r); !containsAll(got, c.want...) {
				t.Errorf("got %v, want one containing %q", got, c.want)
			}
		})
	}
}

// TestT2IRowsSentPromptsAreThePinnedOnes: every AIPerf inputs.json of a T2I row holds exactly the
// pinned prompts, as session ids, each payload carrying its prompt's text and seed; a prompt
// dropped, added or changed in any of them is refused naming the file and what differs.
func TestT2IRowsSentPromptsAreThePinnedOnes(t *testing.T) {
	const row = "t2i/procdiff-small-l0/aiperf/artifacts/"
	run2 := row + "profile_runs/run_0002/inputs.json"
	sentRefusals(t, "t2i", "procdiff-small-l0", imagePayload, []sentCase{
		{"a pinned prompt not given to AIPerf in one run", func(t *testing.T, runDir string, r *evidence.Result) {
			editSessions(t, runDir, run2, func(s []map[string]any) []map[string]any { return s[1:] })
		}, []string{run2 + ": prompt p01-lighthouse of the pinned golden/t2i/prompts.jsonl was not given to AIPerf"}},
		{"a prompt given to AIPerf that is not pinned", func(t *testing.T, runDir string, r *evidence.Result) {
			editSessions(t, runDir, row+"inputs.json", func(s []map[string]any) []map[string]any {
				return append(s, map[string]any{"session_id": "p99-forged", "payloads": []any{map[string]any{"prompt": "a cat", "seed": 1}}})
			})
		}, []string{row + "inputs.json: AIPerf was given inputs [p99-forged] that are not prompts of the pinned golden/t2i/prompts.jsonl"}},
		{"a prompt's text changed", func(t *testing.T, runDir string, r *evidence.Result) {
			editSessions(t, runDir, run2, func(s []map[string]any) []map[string]any {
				firstPayload(s[1])["prompt"] = "a plain grey square"
				return s
			})
		}, []string{run2 + `: session p02-forest: payload 1 prompt "a plain grey square", pinned "a misty pine forest in the morning"`}},
		{"a prompt's seed changed", func(t *testing.T, runDir string, r *evidence.Result) {
			editSessions(t, runDir, row+"inputs.json", func(s []map[string]any) []map[string]any {
				firstPayload(s[0])["seed"] = 12
				return s
			})
		}, []string{row + "inputs.json: session p01-lighthouse: payload 1 seed 12, pinned 11"}},
		{"a session with no payload", func(t *testing.T, runDir string, r *evidence.Result) {
			editSessions(t, runDir, row+"inputs.json", func(s []map[string]any) []map[string]any {
				delete(s[0], "payloads")
				return s
			})
		}, []string{row + "inputs.json: session p01-lighthouse holds no payload"}},
		{"no inputs.json kept", func(t *testing.T, runDir string, r *evidence.Result) {
			for _, dir := range aiperfRunDirs {
				os.Remove(filepath.Join(runDir, row+dir+"inputs.json"))
			}
		}, []string{"t2i/procdiff-small-l0: no AIPerf inputs.json under " + row[:len(row)-1] + ": which inputs were sent cannot be checked"}},
	})
}

// TestInlinePromptRowsSentPromptIsTheTestcases: a T2I row whose input is its TRTMC testcase's own
// test_prompt must have given AIPerf that prompt, under the testcase's name, and nothing else.
func TestInlinePromptRowsSentPromptIsTheTestcases(t *testing.T) {
	trtmc, runDir := t.TempDir(), t.TempDir()
	rel := "families/flux/tests/manifests/flux-schnell.json"
	sum := writer(trtmc)(rel, `{"name":"flux-schnell","testcases":[{"name":"flux-schnell","test_prompt":"A photo of a cat","seed":42}]}`)
	t.Setenv("QUAL_TRTMC_ROOT", trtmc)
	const row = "t2i/flux-schnell/"
	stage := evidence.Stage{Stage: "t2i", TargetKind: "trtmc", Inventory: []evidence.InventoryRow{{Profile: "flux-schnell", Manifest: rel}}}
	r := evidence.Result{Profile: "flux-schnell", Gate: &evidence.GateResult{Testcase: "flux-schnell"}, Records: row + "server-records.jsonl",
		Dataset: evidence.Dataset{Path: rel + "#testcases/flux-schnell/test_prompt", SHA256: sum, Items: 1}, AIPerf: &evidence.AIPerfRun{Dir: row + "aiperf/artifacts"}}
	sent := func(prompt string) {
		writer(runDir)(row+"aiperf/artifacts/inputs.json", fmt.Sprintf(`{"data":[{"session_id":"flux-schnell","payloads":[{"prompt":%q,"seed":42,"size":"1024x1024"}]}]}`, prompt))
	}
	sent("A photo of a cat")
	if got := rowInputProblems(t, runDir, stage, r); len(got) != 0 {
		t.Fatalf("the testcase's own prompt, sent, is refused: %v", got)
	}
	sent("A photo of a dog")
	want := row + `aiperf/artifacts/inputs.json: session flux-schnell: payload 1 prompt "A photo of a dog", pinned "A photo of a cat"`
	if got := rowInputProblems(t, runDir, stage, r); !containsAll(got, want) {
		t.Errorf("another prompt sent: got %v, want one containing %q", got, want)
	}
}

// TestAudioQARowsStoredClipsAndSentPairsAreChecked: an audio-QA row's stored clips (the WAVs the
// run sent, <row>/inputs/<n>/<clip>.wav) must hash to the clips its pinned QA pairs name in their
// ASR dataset pins, and every AIPerf inputs.json must hold exactly the pinned pairs, each payload
// carrying its pair's question and its clip; each forgery is refused naming the file.
func TestAudioQARowsStoredClipsAndSentPairsAreChecked(t *testing.T) {
	const row = "audioqa/sphinxqa-an4-l0/"
	art, stored := row+"aiperf/artifacts/", row+"inputs/0/cards-001.wav"
	run1 := art + "profile_runs/run_0001/inputs.json"
	root := repoRootForTest(t)
	other := filepath.Join(root, "golden", "asr", "sphinx-tidigits", "clips", "synth-1.wav")
	otherWAV, err := os.ReadFile(other)
	if err != nil {
		t.Fatal(err)
	}
	otherSum, _ := pinned.FileSHA256(other)
	set, err := dataset.ReadASR(filepath.Join(root, "golden", "asr", "sphinx-an4-l0", "dataset.json"))
	if err != nil {
		t.Fatal(err)
	}
	pin := set.Clips[0].SHA256
	sentRefusals(t, "audioqa", "sphinxqa-an4-l0", chatPayload, []sentCase{
		{"a stored clip replaced by another valid WAV", func(t *testing.T, runDir string, r *evidence.Result) {
			writer(runDir)(stored, string(otherWAV))
		}, []string{stored + ": stored input sha256 " + otherSum + ", pinned " + pin + " in golden/asr/sphinx-an4-l0/dataset.json"}},
		{"a stored clip removed", func(t *testing.T, runDir string, r *evidence.Result) {
			os.Remove(filepath.Join(runDir, stored))
		}, []string{stored + ": stored input pinned in golden/asr/sphinx-an4-l0/dataset.json cannot be read", "no such file"}},
		{"a pinned pair not given to AIPerf", func(t *testing.T, runDir string, r *evidence.Result) {
			editSessions(t, runDir, run1, func(s []map[string]any) []map[string]any { return s[1:] })
		}, []string{run1 + ": QA pair cards-001-word_count of the pinned golden/audioqa/sphinxqa-an4-l0.jsonl was not given to AIPerf"}},
		{"a pair given to AIPerf that is not pinned", func(t *testing.T, runDir string, r *evidence.Result) {
			editSessions(t, runDir, art+"inputs.json", func(s []map[string]any) []map[string]any {
				return append(s, map[string]any{"session_id": "forged", "payloads": s[0]["payloads"]})
			})
		}, []string{art + "inputs.json: AIPerf was given inputs [forged] that are not QA pairs of the pinned golden/audioqa/sphinxqa-an4-l0.jsonl"}},
		{"a question changed", func(t *testing.T, runDir string, r *evidence.Result) {
			editSessions(t, runDir, run1, func(s []map[string]any) []map[string]any {
				part := firstPayload(s[0])["messages"].([]any)[0].(map[string]any)["content"].([]any)[0].(map[string]any)
				part["text"] = "What is the last word?"
				return s
			})
		}, []string{run1 + `: session cards-001-word_count: payload 1 question "What is the last word?", pinned "How many words are spoken?"`}},
		{"another clip sent for a pair", func(t *testing.T, runDir string, r *evidence.Result) {
			editSessions(t, runDir, art+"inputs.json", func(s []map[string]any) []map[string]any {
				p := chatPayload(t, manifest.Manifest{Name: "sphinxqa-an4-l0"}, workload.Load{Media: map[string]string{"x": other}},
					map[string]any{"text": "How many words are spoken?", "audio": "x"})
				s[0]["payloads"] = []any{p}
				return s
			})
		}, []string{art + "inputs.json: session cards-001-word_count: payload 1 clip", "is not clip cards-001 of golden/asr/sphinx-an4-l0/dataset.json"}},
	})
}
