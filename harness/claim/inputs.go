package claim

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// Inputs is what the row served and sent: its stored bundle, hashed again, is the one it records
// built (the record: its bundle, sha256_built derived); its stored inputs are the pinned ones
// (the stage's CheckStoredInputs, against what the pins give: which of them were sent is the
// admission claim's); each server record's input_sha256 is the identity the stage derives
// (InputSHA) from the payload AIPerf sent under its id. Given, not derived: the bundle's other
// fields (its header, tied to the row by verify; the hashes the server and the gate reported,
// tied to this one by verify's bundle check), and where the pinned inputs are.
func Inputs() Claim {
	return Claim{
		Name:    "inputs",
		Claimed: func(evidence.Result) bool { return true },
		derive:  func(a *Artifacts) (any, error) { return deriveInputs(a) },
		stored:  func(r *evidence.Result) any { return StoredBundle{SHA256Built: r.Bundle.SHA256Built} },
		store:   func(r *evidence.Result, v any) { r.Bundle.SHA256Built = v.(StoredBundle).SHA256Built },
	}
}

// StoredBundle is what the inputs claim derives of the row's bundle (evidence's bundle fields of
// the same names).
type StoredBundle struct {
	SHA256Built string `json:"sha256_built"`
}

func deriveInputs(a *Artifacts) (StoredBundle, error) {
	b := StoredBundle{SHA256Built: a.Row.Bundle.SHA256Built}
	var errs []error
	// A stored bundle is re-hashed whatever sha256 the row records (the suite records both at
	// once): a row whose sha256_built was emptied names its stored bundle no less. Published
	// without it: taken as recorded.
	if path := a.Row.Bundle.Path; path != "" && !a.Given.Published {
		got, err := a.storedSHA256(path)
		if err != nil {
			errs = append(errs, fmt.Errorf("stored bundle %s: %w", path, err))
		} else {
			b.SHA256Built = got
		}
	}
	errs = append(errs, a.storedInputs()...)
	errs = append(errs, a.inputFields()...)
	return b, errors.Join(errs...)
}

// storedSHA256 is the sha256 of the stored file rel (a row's field) inside the run directory.
func (a *Artifacts) storedSHA256(rel string) (string, error) {
	path, err := workload.InsideDir(a.runDir, "bundle.path", rel)
	if err != nil {
		return "", err
	}
	f, err := runfile.Open(path, runfile.Bundle)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// storedInputs are what the stage finds against the pinned inputs in the row's stored ones. A
// row AIPerf sent inputs for names its dataset (the suite records it before anything is sent):
// one that names none would have its stored inputs, and what was sent, tied to no pins.
func (a *Artifacts) storedInputs() []error {
	if a.Given.InputPins == nil {
		return nil
	}
	if a.Row.Dataset.Path == "" {
		if a.Row.AIPerf != nil {
			return []error{errors.New("AIPerf sent the row's inputs, but the row names no dataset (dataset.path): its stored inputs would be tied to no pins")}
		}
		return nil
	}
	in, ok, err := a.Given.InputPins()
	errs := each(err)
	if !ok || a.Given.Stage == nil {
		return errs
	}
	if a.Row.AIPerf == nil {
		return errs
	}
	for _, f := range a.Given.Stage.CheckStoredInputs(in.StoredInputs) {
		errs = append(errs, fmt.Errorf("%s: %s", f.Where, f.What))
	}
	return errs
}

// inputFields ties each served record to the request AIPerf sent under its id: its input_sha256
// is the identity the stage derives from the payload, and, where the stage's figures need it,
// its audio_seconds the length of the clip uploaded (the server takes it from the decoded clip,
// server/transcriptions.go; TRTMC's worker reports it as observation.input_audio_seconds,
// benchmark_worker.cpp @ca938e40 run_transcribe). A record of a target whose records may carry
// no input fields is identified by the payload alone when it carries none; a refused request
// (status not 2xx) served no input. The derivation is prepared once a record needs it (an image
// stage reads the stored bundle for the family's defaults); a run published without its
// bundles, one absent, is not derived here.
func (a *Artifacts) inputFields() []error {
	if !a.Served() || a.Given.Stage == nil {
		return nil // the join claim says why the served files are not loaded
	}
	var derive func(map[string]any) (string, error)
	var errs []error
	for _, p := range a.Join.Pairs {
		if p.Server.Status < 200 || p.Server.Status > 299 {
			continue
		}
		errs = append(errs, a.audioSeconds(p)...)
		if p.Server.InputSHA256 == "" && a.Given.omitsInputFields() {
			continue
		}
		if derive == nil {
			var err error
			if derive, err = a.Given.Stage.InputSHA(workload.StoredImageDefaults(a.runDir, a.Row)); a.Given.Published && errors.Is(err, fs.ErrNotExist) {
				return errs
			} else if err != nil {
				return append(errs, fmt.Errorf("%s: the records' input_sha256 cannot be re-derived: %w", a.Row.Records, err))
			}
		}
		sent, err := derive(p.Client.Payload)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("%s: request %s: the payload AIPerf sent has no input identity: %w", a.Row.Records, p.ID, err))
		case sent != p.Server.InputSHA256:
			errs = append(errs, fmt.Errorf("%s: request %s: the server recorded input_sha256 %s, the payload AIPerf sent is %s", a.Row.Records, p.ID, recordedSHA(p.Server.InputSHA256), sent))
		}
	}
	return errs
}

// audioSeconds: a record's audio_seconds, where the stage's figures need it, is the length of the
// clip uploaded (a record without it of a target whose records may omit it: nothing to compare).
func (a *Artifacts) audioSeconds(p join.Pair) []error {
	if a.Given.ClipSeconds == nil || p.Server.Output == nil || p.Server.Output.AudioSeconds == 0 && a.Given.omitsInputFields() {
		return nil
	}
	seconds, err := a.Given.ClipSeconds(p)
	if err != nil {
		return nil // the input identity names the undecodable payload
	}
	if math.Abs(p.Server.Output.AudioSeconds-seconds) > 1e-6*math.Max(1, seconds) {
		return []error{fmt.Errorf("%s: request %s: audio_seconds %v, but the WAV AIPerf uploaded (profile_export_raw.jsonl) lasts %v s", a.Row.Records, p.ID, p.Server.Output.AudioSeconds, seconds)}
	}
	return nil
}

// recordedSHA is a recorded input_sha256 as messages show it.
func recordedSHA(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
