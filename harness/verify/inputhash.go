package verify

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/families/procdiff"
	"github.com/trtmc-qual/trtmc-qual/native/family"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// deriveSHA is a request's input identity (the server's input_sha256) from its payload.
type deriveSHA func(payload map[string]any) (string, error)

// fromPayload is a row's derivation when the payload alone says it (a clip, a clip and question).
func fromPayload(derive deriveSHA) func(string, evidence.Result) (deriveSHA, error) {
	return func(string, evidence.Result) (deriveSHA, error) { return derive, nil }
}

// checkInputHashes ties each server record to the request AIPerf sent under its id: the record's
// input_sha256 must be the identity the stage's recheck derives from the payload (as workload's
// Request checks it in the run). TRTMC's records carry no input hash: a trtmc stage's record
// without one is identified by the payload alone; a reference record must carry it. A refused
// request (status not 2xx, on a failed row) served no input and is not checked. The derivation
// is prepared once a record needs it (T2I loads the stored bundle for the family's defaults);
// published says the run was published without its bundles, and one that is absent is skipped.
func checkInputHashes(runDir string, s evidence.Stage, r evidence.Result, pairs []join.Pair, published bool, report reporter) {
	prepare := rechecks[workload.Stage(s.Stage)].inputSHA
	if prepare == nil {
		return
	}
	var derive deriveSHA
	for _, p := range pairs {
		if (p.Server.InputSHA256 == "" && kindOf(s.TargetKind).RecordsOmitInputFields()) || p.Server.Status < 200 || p.Server.Status > 299 {
			continue
		}
		if derive == nil {
			var err error
			if derive, err = prepare(runDir, r); published && errors.Is(err, fs.ErrNotExist) {
				return // a run published without its bundles: listed as taken as recorded
			} else if err != nil {
				report(r.Records, "the records' input_sha256 cannot be re-derived: %v", err)
				return
			}
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

// imageInputSHA derives an image request's identity as the server did: its payload completed
// with the defaults of the family that served it, read from the row's stored bundle (the
// served one: checkBundle ties it to the evidence). Only procdiff, the reference target's image
// family, is known here; another family's records are reported, not passed.
func imageInputSHA(runDir string, r evidence.Result) (deriveSHA, error) {
	path, err := local(runDir, "bundle.path", r.Bundle.Path)
	if err != nil {
		return nil, err
	}
	b, err := bundle.Open(path)
	if err != nil {
		return nil, err
	}
	if b.Header.Family != procdiff.Name {
		return nil, fmt.Errorf("bundle %s is of family %q: verify knows the image defaults of %s only", filepath.Base(path), b.Header.Family, procdiff.Name)
	}
	mdl, err := procdiff.Family{}.Load(b, family.LoadOptions{Lanes: 1})
	if err != nil {
		return nil, err
	}
	defer mdl.Close()
	gen, err := task.Lookup[task.ImageGenerator](mdl, b.Header.Family, task.TextToImage)
	if err != nil {
		return nil, err
	}
	spec := gen.ImageSpec()
	return func(payload map[string]any) (string, error) { return workload.ImagePayloadSHA(payload, spec) }, nil
}
