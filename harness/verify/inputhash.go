package verify

import (
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// checkInputHashes ties each server record to the request AIPerf sent under its id: the record's
// input_sha256 must be the identity the stage's recheck derives from the payload (as workload's
// Request checks it in the run). TRTMC's records carry no input hash: a trtmc stage's record
// without one is identified by the payload alone; a reference record must carry it. A refused
// request (status not 2xx, on a failed row) served no input and is not checked. A stage
// without a derivation (T2I: the server hashes its request after filling the family's defaults)
// is not checked here.
func checkInputHashes(s evidence.Stage, r evidence.Result, pairs []join.Pair, report reporter) {
	derive := rechecks[workload.Stage(s.Stage)].inputSHA
	if derive == nil {
		return
	}
	for _, p := range pairs {
		if (p.Server.InputSHA256 == "" && s.TargetKind == "trtmc") || p.Server.Status < 200 || p.Server.Status > 299 {
			continue
		}
		sent, err := derive(p.Client.Payload)
		switch {
		case err != nil:
			report(r.Records, "request %s: the payload AIPerf sent has no input identity: %v", p.ID, err)
		case sent != p.Server.InputSHA256:
			report(r.Records, "request %s: the server recorded input_sha256 %s, the payload AIPerf sent is %s", p.ID, orNoValue(p.Server.InputSHA256), sent)
		}
	}
}

// qaInputSHA is an audio question's input identity: its clip, decoded, and its question.
func qaInputSHA(payload map[string]any) (string, error) {
	question, clipSHA, err := workload.ChatInput(payload)
	if err != nil {
		return "", err
	}
	return task.AudioQuestionSHA256(clipSHA, question), nil
}
