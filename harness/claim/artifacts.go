package claim

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// Given are the values a row's claims are derived from that are not its files: what the stage
// and the pins say.
type Given struct {
	// Route is the stage's inference route: the join matches the server records of it only.
	Route string
	// Groups reads the speaker/recording groups the pinned dataset declares (accuracy's clusters;
	// nil when it declares none); a nil Groups is no groups.
	Groups func() (map[string]string, error)
	// ClipSeconds is the length of the clip a request uploaded, for a stage whose figures need
	// it where a record states none (nil for any other stage).
	ClipSeconds func(join.Pair) (float64, error)
	// Stage is the row's stage, reading its responses (its HTTP output) and holding its meaning
	// rule; nil for a stage no workload is registered for.
	Stage workload.Workload
	// Thresholds reads the thresholds the row's testcase declares, for the meaning rule.
	Thresholds workload.ThresholdsReader
	// GatePins reads what the row's gate is derived against (the repository root, the gate's
	// testcase in the row's pinned manifest, its pinned thresholds); nil for a gate not derived
	// here (a TRTMC family's own test).
	GatePins func() (workload.GateInputs, error)
	// InputPins reads what the row's stored inputs must be (where the pinned inputs are, the
	// clip limits of its manifest): ok false when the pins name nothing to check them against,
	// err what reading the pins found wrong; nil when the stored inputs are not derived here.
	InputPins func() (in workload.Admission, ok bool, err error)
	// Target is what the row's target kind tells the claims (nil: what the reference's records
	// carry is required).
	Target Target
	// Published says the run was published without its bundles: an input identity that needs the
	// absent bundle is not derived.
	Published bool
}

// Target is what a target kind tells the claims (harness/target's Traits): the claims decide
// what it switches, so that neither the suite nor verify branches on a kind.
type Target interface {
	// RecordsOmitInputFields says whether the server's records may lack the request's input
	// identity (input_sha256) and audio length (audio_seconds), and the model and bundle that
	// served it.
	RecordsOmitInputFields() bool
	// RecordsCarrySpans says whether the server records each request's own start and end.
	RecordsCarrySpans() bool
}

// omitsInputFields says whether the row's target may record no input fields.
func (g Given) omitsInputFields() bool { return g.Target != nil && g.Target.RecordsOmitInputFields() }

// carriesSpans says whether the row's target records each request's span (nil: the reference's
// records, which do).
func (g Given) carriesSpans() bool { return g.Target == nil || g.Target.RecordsCarrySpans() }

// StageGiven is what a stage gives every row's claims: its route, its clip lengths where its
// figures need them, its reading of responses and its meaning rule, within thresholds.
func StageGiven(w workload.Workload, thresholds workload.ThresholdsReader, groups func() (map[string]string, error)) Given {
	g := Given{Route: w.Route(), Stage: w, Thresholds: thresholds, Groups: groups}
	if ct, ok := w.(workload.ClipTimed); ok {
		g.ClipSeconds = ct.ClipSeconds
	}
	return g
}

// Artifacts are a row's stored files, loaded once from the run directory, and the join computed
// once from them: every claim reads them from here, so no claim depends on another having run.
type Artifacts struct {
	// Row is the row as stored: where its files are, and what it records as given rather than
	// derived (the gate's items and thresholds, the no-caching requests it sent and their outputs).
	Row   evidence.Result
	Given Given
	// runDir is the run directory the row's files were read from.
	runDir string
	// Runs are the AIPerf runs' exports (one per run), Records the server records, Join their join
	// (its pairs as stored).
	Runs    []aiperfexport.Exports
	Records []contract.Record
	Join    join.Report
	// NoCacheRecords are the no-caching check's kept server records, read from NoCacheFile.
	NoCacheRecords []contract.Record
	NoCacheFile    string

	// timed are the joined pairs the figures are derived from: a pair whose record states no clip
	// length has the length of the clip it uploaded, where the stage's figures need it.
	timed      []join.Pair
	servedErr  error // why the AIPerf exports or server records could not be loaded
	clipErr    error // why a request's clip length could not be read
	noCacheErr error // why the no-caching records could not be loaded
}

// Load reads a row's files from runDir (every read through harness/runfile, a path outside
// the run refused) and joins them. A file that cannot be read is not an error of Load: the
// claims that need it say so when derived.
func Load(runDir string, row evidence.Result, given Given) *Artifacts {
	a := &Artifacts{Row: row, Given: given, runDir: runDir}
	if row.AIPerf != nil {
		a.servedErr = a.loadServed(runDir)
	}
	if row.NoCache != nil {
		a.NoCacheFile = row.NoCache.Records
		var path string
		if path, a.noCacheErr = inside(runDir, "no_caching.records", a.NoCacheFile); a.noCacheErr == nil {
			a.NoCacheRecords, a.noCacheErr = readRecords(path, "no_caching.records")
		}
	}
	return a
}

// ServedErr says why the served artifacts (AIPerf exports, server records) could not be
// loaded; nil when they were, or the row has none.
func (a *Artifacts) ServedErr() error { return a.servedErr }

// Served says whether the row served AIPerf's requests and its files loaded.
func (a *Artifacts) Served() bool { return a.Row.AIPerf != nil && a.servedErr == nil }

func (a *Artifacts) loadServed(runDir string) error {
	if err := errors.Join(local("aiperf.dir", a.Row.AIPerf.Dir), local("records", a.Row.Records)); err != nil {
		return err
	}
	dir, err := inside(runDir, "aiperf.dir", a.Row.AIPerf.Dir)
	if err != nil {
		return err
	}
	records, err := inside(runDir, "records", a.Row.Records)
	if err != nil {
		return err
	}
	if a.Runs, err = aiperfexport.ReadRuns(dir); err != nil {
		return fmt.Errorf("AIPerf exports: %w", err)
	}
	if a.Records, err = readRecords(records, "records"); err != nil {
		return err
	}
	a.Join = join.Join(aiperfexport.Merge(a.Row.AIPerf.Dir, a.Runs).Raw, a.Records, a.Given.Route)
	a.timed, a.clipErr = a.withClipSeconds()
	return nil
}

// withClipSeconds are the joined pairs, each whose record states no clip length given the length
// of the clip it uploaded where the stage's figures need it (the join's pairs stay as stored).
func (a *Artifacts) withClipSeconds() ([]join.Pair, error) {
	timed := slices.Clone(a.Join.Pairs)
	if a.Given.ClipSeconds == nil {
		return timed, nil
	}
	for i, p := range timed {
		if p.Server.Output == nil || p.Server.Output.AudioSeconds > 0 {
			continue
		}
		s, err := a.Given.ClipSeconds(p)
		if err != nil {
			return nil, fmt.Errorf("request %s: its record states no clip length and the uploaded clip gives none: %w", p.ID, err)
		}
		out := *p.Server.Output
		out.AudioSeconds = s
		timed[i].Server.Output = &out
	}
	return timed, nil
}

// readRecords reads and parses a JSONL file of server records (the row's field names it).
func readRecords(path, field string) ([]contract.Record, error) {
	data, err := runfile.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", field, err)
	}
	recs, err := contract.ParseRecords(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", field, err)
	}
	return recs, nil
}

// inside is rel (the row's field) inside runDir, refused when it leaves it or passes through a
// link.
func inside(runDir, field, rel string) (string, error) {
	if err := local(field, rel); err != nil {
		return "", err
	}
	path, err := runfile.Inside(runDir, rel)
	if err != nil {
		return "", fmt.Errorf("%s: %w", field, err)
	}
	return path, nil
}

// local refuses a rel (the row's field) that names no path inside a directory.
func local(field, rel string) error {
	if rel == "" || filepath.IsAbs(rel) || !filepath.IsLocal(filepath.FromSlash(rel)) {
		return fmt.Errorf("%s %q is not a path inside the run directory", field, rel)
	}
	return nil
}
