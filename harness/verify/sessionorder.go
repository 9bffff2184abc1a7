package verify

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
)

// sessionOrderCheck: AIPerf 0.13.0 numbers each phase's requests 0…n−1 (session_num) and, for a
// custom single_turn dataset, takes its sessions from the run's inputs.json in order (its
// default sequential sampler): the warmup's k-th request sends session k, the profiling phase's
// k-th session W+k, wrapping around the dataset. A request deleted from every file leaves a
// number missing, and renumbering the rest sends them other sessions than they carry.
func sessionOrderCheck(r *Run) []Problem {
	return r.eachRow(func(row *Row, report reporter) {
		a := row.Result.AIPerf
		if a == nil || a.Dir == "" || row.Result.Status != evidence.StatusQualified || !sequentialSingleTurn(a.Command) {
			return
		}
		for _, dir := range artifactRunDirs(r.Dir, a.Dir) {
			exports, err := aiperfexport.Read(dir)
			if err != nil {
				continue // servedCheck reports unreadable exports
			}
			sessions, err := inputSessions(dir)
			if err != nil || len(sessions) == 0 {
				continue // uploadedCheck names a row's missing or unreadable inputs.json
			}
			for _, p := range sessionProblems(exports.Raw, sessions) {
				report(relTo(r.Dir, filepath.Join(dir, "profile_export_raw.jsonl")), "%s", p)
			}
		}
	})
}

// sequentialSingleTurn says whether AIPerf ran a custom single_turn dataset with its default
// (sequential) sampling, the order sessionOrderCheck re-derives.
func sequentialSingleTurn(command []string) bool {
	flag := func(name string) string {
		if i := slices.Index(command, name); i >= 0 && i+1 < len(command) {
			return command[i+1]
		}
		return ""
	}
	s := flag("--dataset-sampling-strategy")
	return flag("--custom-dataset-type") == "single_turn" && (s == "" || s == "sequential")
}

// inputSessions are the session ids of a run's inputs.json, in order.
func inputSessions(dir string) ([]string, error) {
	data, err := runfile.ReadFile(filepath.Join(dir, "inputs.json"))
	if err != nil {
		return nil, err
	}
	var in struct {
		Data []struct {
			SessionID string `json:"session_id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, err
	}
	out := make([]string, len(in.Data))
	for i, d := range in.Data {
		out[i] = d.SessionID
	}
	return out, nil
}

// sessionProblems compares a run's requests with the order AIPerf sends sessions in: each
// phase's session numbers are 0…n−1, each once, and request k of a phase carries the session
// at its offset (0 for the warmup, the warmup's count for the profiling phase) plus k.
func sessionProblems(raw []aiperfexport.RawRecord, sessions []string) []string {
	byPhase := map[string]map[int]string{}
	var out []string
	for _, rec := range raw {
		md := rec.Metadata
		if byPhase[md.Phase] == nil {
			byPhase[md.Phase] = map[int]string{}
		}
		if _, dup := byPhase[md.Phase][md.SessionNum]; dup {
			out = append(out, fmt.Sprintf("two %s requests are session_num %d (request %s)", md.Phase, md.SessionNum, md.XRequestID))
		}
		byPhase[md.Phase][md.SessionNum] = md.ConversationID
	}
	offset := map[string]int{aiperfexport.PhaseProfiling: len(byPhase["warmup"])}
	for _, phase := range slices.Sorted(maps.Keys(byPhase)) {
		got := byPhase[phase]
		for k := range len(got) {
			conv, ok := got[k]
			if !ok {
				out = append(out, fmt.Sprintf("the %s phase's %d requests skip session_num %d: AIPerf numbers a phase's requests 0…%d, so one was removed", phase, len(got), k, len(got)-1))
				continue
			}
			if want := sessions[(offset[phase]+k)%len(sessions)]; conv != want {
				out = append(out, fmt.Sprintf("the %s phase's session_num %d carries session %q; AIPerf sends inputs.json's sessions in order, so it sent %q", phase, k, conv, want))
			}
		}
	}
	return out
}
