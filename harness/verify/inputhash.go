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

// checkInputHashes ties each server record to the request AIPerf sent under its id: the record's
// input_sha256 must be the identity the stage's recheck derives from the payload (as workload's
// Request checks it in the run). TRTMC's records carry no input hash: a trtmc stage's record
// without one is identified by the payload alone; a reference record must carry it. A refused
// request (status not 2xx, on a failed row) served no input and is not checked. The derivation
// is prepared once a record needs it (T2I loads the stored bundle for the family's defaults);
// published says the run was published without its bundles, and one that is absent is skipped.
func checkInputHashes(runDir string, s evidence.Stage, r evidence.Result, pairs []join.Pair, published bool, report reporter) {
	w, err := workload.Get(s.Stage)
	hasher, ok := w.(workload.InputHasher)
	if err != nil || !ok {
		return
	}
	defaults := func() (task.ImageSpec, error) { return imageDefaults(runDir, r) }
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

// imageDefaults are the request defaults of the family that served a row, read from its stored
// bundle (the served one: checkBundle ties it to the evidence), for a workload whose payloads
// leave settings to the family. Only procdiff, the reference target's image family, is known
// here; another family's records are reported, not passed.
func imageDefaults(runDir string, r evidence.Result) (task.ImageSpec, error) {
	path, err := local(runDir, "bundle.path", r.Bundle.Path)
	if err != nil {
		return task.ImageSpec{}, err
	}
	b, err := bundle.Open(path)
	if err != nil {
		return task.ImageSpec{}, err
	}
	if b.Header.Family != procdiff.Name {
		return task.ImageSpec{}, fmt.Errorf("bundle %s is of family %q: verify knows the image defaults of %s only", filepath.Base(path), b.Header.Family, procdiff.Name)
	}
	mdl, err := procdiff.Family{}.Load(b, family.LoadOptions{Lanes: 1})
	if err != nil {
		return task.ImageSpec{}, err
	}
	defer mdl.Close()
	gen, err := task.Lookup[task.ImageGenerator](mdl, b.Header.Family, task.TextToImage)
	if err != nil {
		return task.ImageSpec{}, err
	}
	return gen.ImageSpec(), nil
}

// recordedSHA is a recorded input_sha256 as messages show it.
func recordedSHA(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
