package verify

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
)

// uploadedCheck ties every served output's input_id to what AIPerf uploaded under its request id
// (checkUploaded).
func uploadedCheck(r *Run) []Problem {
	return r.eachRow(func(row *Row, report reporter) {
		if len(row.Pairs) > 0 && row.Result.AIPerf != nil {
			checkUploaded(r.Dir, row, report)
		}
	})
}

// checkUploaded ties an output's input_id to the bytes sent: AIPerf sent each request as a turn
// of the session named by the input's id (the raw export's conversation_id), the payload it sent
// is that session's payload in an inputs.json of the row (whose sessions the stage's own check
// ties to the pinned inputs), and a file the payload uploads is the stored input of that id
// (<row>/inputs/<id>.*, re-hashed against the pins by the inputs claim). The server's input_sha256
// (the inputs claim ties it to the payload) must then be one value per input id and differ between
// ids: an output relabelled to another input disagrees with one of these.
func checkUploaded(runDir string, row *Row, report reporter) {
	r := row.Result
	sessions, err := sessionPayloads(runDir, r.AIPerf.Dir)
	if err != nil {
		report(row.Where, "what AIPerf uploaded cannot be tied to the outputs: %v", err)
		return
	}
	pairs := map[string]int{}
	for i, p := range row.Pairs {
		pairs[p.ID] = i
	}
	inputOf, hashOf := map[string]string{}, map[string]string{}
	for _, o := range r.Outputs {
		i, ok := pairs[o.RequestID]
		if !ok {
			continue // servedCheck names an output without a joined request
		}
		p := row.Pairs[i]
		md := p.Client.Metadata
		if md.ConversationID != o.InputID {
			report(row.Where, "request %s: output input_id %q, but AIPerf sent it as a turn of session %q", o.RequestID, o.InputID, md.ConversationID)
			continue
		}
		sent := canonicalSHA(p.Client.Payload)
		if !sessions[sessionTurn{o.InputID, md.TurnIndex}][sent] {
			report(row.Where, "request %s: the payload AIPerf sent is not session %q's payload in the row's inputs.json", o.RequestID, o.InputID)
			continue
		}
		checkUploadedFile(runDir, row, o, p.Client.Payload, report)
		if h := p.Server.InputSHA256; h != "" {
			checkOneInputOneHash(row.Where, o, h, inputOf, hashOf, report)
		}
	}
}

// checkOneInputOneHash keeps input_sha256 a one-to-one function of input_id over a row's outputs.
func checkOneInputOneHash(where string, o evidence.Output, h string, inputOf, hashOf map[string]string, report reporter) {
	if prev, ok := hashOf[o.InputID]; ok && prev != h {
		report(where, "request %s: input %q reached the server as input_sha256 %s, an earlier request of it as %s", o.RequestID, o.InputID, h, prev)
	}
	if prev, ok := inputOf[h]; ok && prev != o.InputID {
		report(where, "request %s: outputs of inputs %q and %q reached the server as one input_sha256 %s", o.RequestID, prev, o.InputID, h)
	}
	hashOf[o.InputID], inputOf[h] = h, o.InputID
}

// checkUploadedFile: a payload's uploaded file (AIPerf's multipart "file" part, base64) is the
// row's stored input of that id, byte for byte.
func checkUploadedFile(runDir string, row *Row, o evidence.Output, payload map[string]any, report reporter) {
	file, ok := payload["file"].(map[string]any)
	if !ok {
		return
	}
	b64, _ := file["b64_data"].(string)
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		report(row.Where, "request %s: the uploaded file is not base64: %v", o.RequestID, err)
		return
	}
	stored, _ := filepath.Glob(filepath.Join(runDir, filepath.FromSlash(path.Dir(row.Result.Records)), "inputs", o.InputID+".*"))
	if len(stored) != 1 {
		report(row.Where, "request %s: input %q has %d stored files beside %s, want 1", o.RequestID, o.InputID, len(stored), row.Result.Records)
		return
	}
	want, err := runfile.ReadFile(stored[0])
	if err != nil {
		report(row.Where, "stored input %s: %v", relTo(runDir, stored[0]), err)
		return
	}
	if sha256.Sum256(data) != sha256.Sum256(want) {
		report(row.Where, "request %s: output input_id %q, but the file AIPerf uploaded is not the stored %s", o.RequestID, o.InputID, relTo(runDir, stored[0]))
	}
}

type sessionTurn struct {
	id   string
	turn int
}

// sessionPayloads are the canonical hashes of every payload of every session in the row's AIPerf
// inputs.json files (the artifact directory's and each profile run's), by session and turn.
func sessionPayloads(runDir, aiperfDir string) (map[sessionTurn]map[string]bool, error) {
	dir := filepath.Join(runDir, filepath.FromSlash(aiperfDir))
	files, _ := filepath.Glob(filepath.Join(dir, "inputs.json"))
	runs, _ := filepath.Glob(filepath.Join(dir, "profile_runs", "*", "inputs.json"))
	files = append(files, runs...)
	if len(files) == 0 {
		return nil, fmt.Errorf("no AIPerf inputs.json under %s", aiperfDir)
	}
	out := map[sessionTurn]map[string]bool{}
	for _, f := range files {
		data, err := runfile.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var in struct {
			Data []struct {
				ID       string           `json:"session_id"`
				Payloads []map[string]any `json:"payloads"`
			} `json:"data"`
		}
		if err := json.Unmarshal(data, &in); err != nil {
			return nil, fmt.Errorf("%s: %w", relTo(runDir, f), err)
		}
		for _, s := range in.Data {
			for turn, p := range s.Payloads {
				k := sessionTurn{s.ID, turn}
				if out[k] == nil {
					out[k] = map[string]bool{}
				}
				out[k][canonicalSHA(p)] = true
			}
		}
	}
	return out, nil
}

// canonicalSHA is the sha256 of a decoded JSON value re-encoded (object keys sorted).
func canonicalSHA(v any) string {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
