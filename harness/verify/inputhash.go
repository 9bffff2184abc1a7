package verify

import (
	"errors"
	"io/fs"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/verify/pinned"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// inputHashCheck: each server record's input_sha256 is the identity of the payload sent.
func inputHashCheck(r *Run) []Problem {
	return r.eachRow(func(row *Row, report reporter) {
		checkInputHashes(r.Dir, row.Stage, row.Result, row.Pairs, row.Published, report)
	})
}

// checkInputHashes ties each server record to the request AIPerf sent under its id: the record's
// input_sha256 must be the identity the stage's recheck derives from the payload (as workload's
// Request checks it in the run). TRTMC's records carry no input hash: a trtmc stage's record
// without one is identified by the payload alone; a reference record must carry it. A refused
// request (status not 2xx, on a failed row) served no input and is not checked. The derivation
// is prepared once a record needs it (T2I loads the stored bundle for the family's defaults);
// published says the run was published without its bundles, and one that is absent is skipped.
func checkInputHashes(runDir string, s evidence.Stage, r evidence.Result, pairs []join.Pair, published bool, report reporter) {
	hasher, err := workload.Get(s.Stage)
	if err != nil {
		return
	}
	defaults := pinned.ImageDefaults(runDir, r)
	var derive func(payload map[string]any) (string, error)
	for _, p := range pairs {
		if (p.Server.InputSHA256 == "" && kindOf(s.TargetKind).RecordsOmitInputFields()) || p.Server.Status < 200 || p.Server.Status > 299 {
			continue
		}
		if derive == nil {
			var err error
			if derive, err = hasher.InputSHA(defaults); published && errors.Is(err, fs.ErrNotExist) {
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
			report(r.Records, "request %s: the server recorded input_sha256 %s, the payload AIPerf sent is %s", p.ID, recordedSHA(p.Server.InputSHA256), sent)
		}
	}
}

// recordedSHA is a recorded input_sha256 as messages show it.
func recordedSHA(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
