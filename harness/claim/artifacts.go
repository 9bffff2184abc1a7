package claim

import (
	"fmt"

	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
)

// Given are the values a row's claims are derived from that are not its files: what the stage
// and the pins say.
type Given struct {
	// Route is the stage's inference route: the join matches the server records of it only.
	Route string
	// Groups are the speaker/recording groups the pinned dataset declares (accuracy's clusters;
	// nil when it declares none).
	Groups map[string]string
	// ClipSeconds is the length of the clip a request uploaded, for a stage whose figures need
	// it where a record states none (nil for any other stage).
	ClipSeconds func(join.Pair) (float64, error)
}

// Artifacts are a row's stored files, loaded once from the run directory, and the join computed
// once from them: every claim reads them from here, so no claim depends on another having run.
type Artifacts struct {
	// Row is the row as stored: where its files are, and what it records as given rather than
	// derived (the gate's items and thresholds, the no-caching requests it sent and their outputs).
	Row   evidence.Result
	Given Given
	// Runs are the AIPerf runs' exports (one per run), Records the server records, Join their join
	// (its pairs with the clip length filled in where a record states none).
	Runs    []aiperfexport.Exports
	Records []contract.Record
	Join    join.Report
	// NoCacheRecords are the no-caching check's kept server records, read from NoCacheFile.
	NoCacheRecords []contract.Record
	NoCacheFile    string

	servedErr  error // why the AIPerf exports or server records could not be loaded
	clipErr    error // why a request's clip length could not be read
	noCacheErr error // why the no-caching records could not be loaded
}

// Load reads a row's files from runDir (every read through harness/runfile, a path outside
// the run refused) and joins them. A file that cannot be read is not an error of Load: the
// claims that need it say so when derived.
func Load(runDir string, row evidence.Result, given Given) *Artifacts {
	a := &Artifacts{Row: row, Given: given}
	if row.AIPerf != nil {
		a.servedErr = a.loadServed(runDir)
	}
	if row.NoCache != nil {
		a.NoCacheFile = row.NoCache.Records
		a.NoCacheRecords, a.noCacheErr = readRecords(runDir, "no_caching.records", a.NoCacheFile)
	}
	return a
}

// ServedErr says why the served artifacts (AIPerf exports, server records) could not be
// loaded; nil when they were, or the row has none.
func (a *Artifacts) ServedErr() error { return a.servedErr }

// Served says whether the row served AIPerf's requests and its files loaded.
func (a *Artifacts) Served() bool { return a.Row.AIPerf != nil && a.servedErr == nil }

func (a *Artifacts) loadServed(runDir string) error {
	dir, err := runfile.Inside(runDir, a.Row.AIPerf.Dir)
	if err != nil {
		return fmt.Errorf("aiperf.dir: %w", err)
	}
	if a.Runs, err = aiperfexport.ReadRuns(dir); err != nil {
		return fmt.Errorf("AIPerf exports: %w", err)
	}
	if a.Records, err = readRecords(runDir, "records", a.Row.Records); err != nil {
		return err
	}
	a.Join = join.Join(aiperfexport.Merge(a.Row.AIPerf.Dir, a.Runs).Raw, a.Records, a.Given.Route)
	a.clipErr = a.fillClipSeconds()
	return nil
}

// fillClipSeconds gives every joined request whose record states no clip length the length of
// the clip it uploaded, where the stage's figures need it (the records themselves are kept as
// stored).
func (a *Artifacts) fillClipSeconds() error {
	if a.Given.ClipSeconds == nil {
		return nil
	}
	for i, p := range a.Join.Pairs {
		if p.Server.Output == nil || p.Server.Output.AudioSeconds > 0 {
			continue
		}
		s, err := a.Given.ClipSeconds(p)
		if err != nil {
			return fmt.Errorf("request %s: its record states no clip length and the uploaded clip gives none: %w", p.ID, err)
		}
		out := *p.Server.Output
		out.AudioSeconds = s
		a.Join.Pairs[i].Server.Output = &out
	}
	return nil
}

// readRecords reads and parses a JSONL file of server records the row names in field.
func readRecords(runDir, field, rel string) ([]contract.Record, error) {
	if rel == "" {
		return nil, fmt.Errorf("%s: no file named", field)
	}
	data, err := runfile.ReadIn(runDir, rel)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", field, err)
	}
	recs, err := contract.ParseRecords(data)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", field, rel, err)
	}
	return recs, nil
}
