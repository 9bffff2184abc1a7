package workload

// What AIPerf was given, for the stages whose inputs are not clip-admitted (stage 3 has
// checkSent, asr_claims.go): every AIPerf inputs.json of a T2I or audio-QA row must hold exactly
// the pinned inputs the evidence names (dataset.path, re-hashed by verify), each as its session
// id, and each session's payloads must carry that input (a prompt's text and seed, a QA pair's
// question and clip). An audio-QA row's stored clips, the WAVs it sent, are re-hashed against the
// ASR dataset pins its QA pairs name, as a stage-3 row's are (checkASRInputs).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
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
	dir, err := InsideDir(runDir, "aiperf.dir", r.AIPerf.Dir)
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
	data, err := runfile.ReadFile(path)
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

// relSlash is path relative to the run directory, as a slash path (where problems name files).
func relSlash(runDir, path string) string {
	rel, _ := filepath.Rel(runDir, path)
	return filepath.ToSlash(rel)
}
