package workload

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// What harness/claim derives of a row through its stage, the suite on the files it has just
// written and `qual verify` on the published ones, is in the Workload (every stage must say it: a
// gate's figures, its stored inputs, its records' input identities) or, where only some stages
// have it, an optional interface (the clips admitted by limits: Admitter). Each takes plain
// values (paths, the recorded row, the pinned testcase and thresholds) and returns what differs
// as Findings, so neither the suite nor verify asks a stage's name. Everything here reads files
// only: no model runs.

// Finding is one thing a derivation found wrong: where (a row, a file) and what.
type Finding struct {
	Where string
	What  string
}

// findings collects Findings through the reporter the derivations call.
type findings []Finding

func (f *findings) add(where, format string, args ...any) {
	*f = append(*f, Finding{Where: where, What: fmt.Sprintf(format, args...)})
}

// reporter is how a derivation says what differs.
type reporter func(where, format string, args ...any)

// GateInputs is what a row's gate is recomputed from.
type GateInputs struct {
	Root       string              // the repository root, where the pinned inputs are
	Where      string              // the row, as findings name it
	Testcase   manifest.Testcase   // the gate's testcase in the row's pinned manifest
	Thresholds manifest.Thresholds // the pinned thresholds (verify checks them against their pin)
	Result     evidence.Result     // the recorded row (its Gate is not nil)
	Pairs      []join.Pair         // the row's joined requests; nil when it served nothing
}

// ThresholdsReader reads the thresholds a row's testcase declares.
type ThresholdsReader func() (manifest.Thresholds, error)

// DeclaredThresholds reads the thresholds testcase declares beside the manifest at manifestPath
// (none declared: no bounds, which the meaning rule records as such).
func DeclaredThresholds(manifestPath, testcase string) ThresholdsReader {
	return func() (manifest.Thresholds, error) {
		return manifest.ReadDeclaredThresholds(manifest.ThresholdsPath(manifest.Manifest{Path: manifestPath}, testcase))
	}
}

// InputSource is what a row's stored inputs are checked against: its pinned dataset file (the
// path in the repository, re-hashed by verify), or the one clip a TRTMC testcase carries itself
// (test_input_audio), sent under the testcase's name, with the sha256 the evidence records for
// it, or the one prompt a TRTMC testcase carries itself (test_prompt or prompt), read from its
// manifest in the checkout.
type InputSource struct {
	DatasetPath string
	OwnClip     *dataset.ASRClip
	OwnPrompt   *dataset.Prompt
}

// StoredInputs is a row's stored inputs and what they must be.
type StoredInputs struct {
	RunDir string // the run directory; every recorded path is inside it
	Root   string // the repository root, where the pinned inputs are
	Where  string // the row, as findings name it
	Source InputSource
	Result evidence.Result
}

// Admission is a row's inputs with the clip limits that applied to it.
type Admission struct {
	StoredInputs
	Dir    string               // where the run stores the row's inputs (beside its server records)
	Family string               // the row's family, which names the limit as the run's reason does
	Limits evidence.InputLimits // the limits of the row's manifest
}

// StoredClip is one pinned clip of a row and where the run stores it.
type StoredClip struct {
	ID   string
	Path string
}

// Admitter is a workload whose inputs are admitted by clip limits (nothing is dropped silently):
// harness/claim's admission claim applies the limits to each of the row's stored clips, and
// the row's skipped inputs are the clips that break one.
type Admitter interface {
	Workload
	// StoredClips are the row's pinned clips, in pinned order, each where the run stores it.
	StoredClips(in Admission) ([]StoredClip, error)
}

// StoredInputsDir is where the run stores a row's inputs: the inputs/ directory beside its
// server records, else (a row that served nothing yet) stageDir/<profile>/inputs.
func StoredInputsDir(runDir, stageDir string, r evidence.Result) string {
	if r.Records != "" {
		if recordsPath, err := InsideDir(runDir, "records", r.Records); err == nil {
			return filepath.Join(filepath.Dir(recordsPath), "inputs")
		}
	}
	return filepath.Join(runDir, stageDir, r.Profile, "inputs")
}

// ImageDefaults loads the request defaults of the family that served a row (read from its
// stored bundle), for a workload whose payloads leave settings to the family.
type ImageDefaults func() (task.ImageSpec, error)

// InsideDir joins a path taken from the evidence to dir (the run directory or the repository),
// refusing anything that would leave it (absolute paths, "..", empty): the evidence is the
// forger's, the directory is the bound. field names the evidence field in the error.
func InsideDir(dir, field, rel string) (string, error) {
	if rel == "" || filepath.IsAbs(rel) || !filepath.IsLocal(filepath.FromSlash(rel)) {
		return "", fmt.Errorf("%s %q is not a path inside the run directory", field, rel)
	}
	return filepath.Join(dir, filepath.FromSlash(rel)), nil
}

// asr is the source's clips: the pinned dataset's, or the testcase's own clip alone.
func (s InputSource) asr() (dataset.ASRSet, error) {
	if s.OwnClip != nil {
		return dataset.ASRSet{Clips: []dataset.ASRClip{*s.OwnClip}}, nil
	}
	if s.OwnPrompt != nil {
		return dataset.ASRSet{}, fmt.Errorf("the row's input is its testcase's prompt %s, not audio clips", s.OwnPrompt.ID)
	}
	return dataset.ReadASR(s.DatasetPath)
}

// prompts is the source's text-to-image prompts: the pinned dataset's, or the testcase's own.
func (s InputSource) prompts() ([]dataset.Prompt, error) {
	if s.OwnPrompt != nil {
		return []dataset.Prompt{*s.OwnPrompt}, nil
	}
	if s.OwnClip != nil {
		return nil, fmt.Errorf("the row's input is its testcase's clip %s, not prompts", s.OwnClip.ID)
	}
	return dataset.ReadPrompts(s.DatasetPath)
}

// qaPairs is the source's audio questions: the pinned QA pairs file's (a testcase carries none).
func (s InputSource) qaPairs() ([]dataset.QAPair, error) {
	if s.OwnClip != nil || s.OwnPrompt != nil {
		return nil, fmt.Errorf("the row's input is its testcase's own, not a pinned QA pairs file")
	}
	return dataset.ReadQAPairs(s.DatasetPath)
}

// readUpstream reads the upstream transcripts by clip id (the sphinx family's
// upstream transcripts file; read here rather than through the family, which needs cgo).
func readUpstream(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("pinned upstream transcripts: %w", err)
	}
	var upstream struct {
		Transcripts []struct {
			ID   string `json:"id"`
			Text string `json:"text"`
		} `json:"transcripts"`
	}
	if err := json.Unmarshal(data, &upstream); err != nil {
		return nil, fmt.Errorf("pinned upstream transcripts %s: %w", path, err)
	}
	out := map[string]string{}
	for _, t := range upstream.Transcripts {
		out[t.ID] = t.Text
	}
	return out, nil
}

// derivedFigures are the recorded figures with each derived one in place of its recorded value,
// a recorded value within rounding of the derived one kept as recorded.
func derivedFigures(rec, got map[string]float64) map[string]float64 {
	out := maps.Clone(rec)
	if out == nil {
		out = map[string]float64{}
	}
	for name, v := range got {
		if r, ok := rec[name]; !ok || !closeTo(r, v) {
			out[name] = v
		}
	}
	return out
}

func closeTo(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// pinnedAndStored reads a row's pinned inputs (read) and finds the directory its stored inputs
// are in; ok is false (reported) when either fails.
func pinnedAndStored[T any](runDir, where string, r evidence.Result, read func() (T, error), report reporter) (pinned T, dir string, ok bool) {
	pinned, err := read()
	if err != nil {
		report(r.Dataset.Path, "%v", err)
		return pinned, "", false
	}
	dir, ok = storedInputsDir(runDir, where, r, report)
	return pinned, dir, ok
}

// storedInputsDir is the row's inputs/ directory beside its server records, where the run keeps
// the inputs it sent; false (reported) when the records path is not inside the run.
func storedInputsDir(runDir, where string, r evidence.Result, report reporter) (string, bool) {
	recordsPath, err := InsideDir(runDir, "records", r.Records)
	if err != nil {
		report(where, "%v", err)
		return "", false
	}
	return filepath.Join(filepath.Dir(recordsPath), "inputs"), true
}

func sortedNames(m map[string]float64) []string { return slices.Sorted(maps.Keys(m)) }
