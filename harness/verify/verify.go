// Package verify re-checks a published evidence directory offline, without running anything,
// like MLPerf's submission checker: it recomputes every join from the stored AIPerf exports and
// server records, the timing figures from the raw exports, the gold WER from the stored
// transcripts, the image hashes from the stored responses, and the report from the evidence,
// and fails on any difference.
package verify

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/harness/claim"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/report"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
)

// Problem is one mismatch.
type Problem struct {
	Where string
	What  string
}

func (p Problem) String() string { return p.Where + ": " + p.What }

// Report is what Check found: the problems (none means the evidence holds), where the pins came
// from, notes that are said but fail nothing, and per row what was taken as recorded.
type Report struct {
	Problems []Problem
	Pins     PinSource
	Notes    []string
	Recorded []Recorded // per row, what verify took as recorded (recorded.go)
}

// Problems verifies runDir and returns every problem found (none means the evidence holds).
func Problems(runDir string, opts Options) ([]Problem, error) {
	rep, err := Check(runDir, opts)
	return rep.Problems, err
}

// Run is one verification under way: the run directory, its evidence, the pins it is checked
// against and its result rows, as every check sees them.
type Run struct {
	Dir      string
	Evidence evidence.Evidence
	Pins     pins
	Rows     []*Row
	// Pictures are the measured rows' picture data, derived from the rows' loaded files: what
	// the reports' pictures are drawn from again (markdown.go, reporthtml.go).
	Pictures report.Pictures
}

// Row is one result row of the run.
type Row struct {
	Where  string // "<stage>/<profile>", as problems name the row
	Stage  evidence.Stage
	Result evidence.Result
	// Stored is the row as its files are: without its bundle when the run was published without
	// it (Options.WithoutBundles), Published then true.
	Stored    evidence.Result
	Published bool
	// Artifacts are the row's files, loaded and joined once before any check runs (harness/claim);
	// Pairs are their joined requests when the row served AIPerf's requests and joined them.
	Artifacts *claim.Artifacts
	Pairs     []join.Pair
	// Scrapes are the server's /metrics as AIPerf scraped them, by AIPerf run directory, read once
	// with the artifacts (serverscrape.go).
	Scrapes map[string]serverScrape
}

// checks are verify's checks, in the order they report: each is one file's job, with one
// signature; none depends on another having run (the join they read is loaded with the row).
func checks() []func(*Run) []Problem {
	return []func(*Run) []Problem{
		canonicalCheck,       // evidence.json and stage.json byte for byte (canonical.go)
		markdownCheck,        // qualification.md re-rendered (markdown.go)
		htmlCheck,            // report.html re-rendered (reporthtml.go)
		summaryCheck,         // summary.json re-derived (summary.go)
		targetKindCheck,      // target_kind is the target file's (targetkind.go)
		lanesCheck,           // each row's server lanes are the target file's (lanes.go)
		inventoryCheck,       // rebuilt from the pinned manifests (inventorycheck.go)
		selectionCheck,       // the selection against the target's whole inventory (selection.go)
		reducedLoadCheck,     // each stage's stated reduced load against what its rows ran (reducedload.go)
		stageFilesCheck,      // each stage.json is its stage (junit.go)
		junitCheck,           // the JUnit reports agree with the rows (junit.go)
		specRowsCheck,        // every checkpoint's spec has its row (junitrows.go)
		junitPropertiesCheck, // the reports' copies of figures, hardware, versions (junitprops.go)
		stageStatusCheck,     // each stage's status settles from its rows (stagestatus.go)
		probeCheck,           // stage 9's refusal, by the target's documented rule (probe.go)
		bundleCheck,          // one bundle built, gated, served (bundle.go)
		servedInfoCheck,      // a TRTMC server's info and the one configuration (servedinfo.go)
		bundlePathCheck,      // a built or gated bundle is named in the run (bundlepath.go)
		bundleHeaderCheck,    // the stored bundle is the row's (bundleheader.go)
		backingCheck,         // each status is backed by what it claims (complete.go)
		inlineDatasetCheck,   // a TRTMC testcase's own prompt or clip (inline.go)
		scratchCheck,         // kept artifacts only where the target keeps them (scratch.go)
		servedCheck,          // outputs, meaning and copies of each request recomputed (served.go)
		claimsCheck,          // every claim (harness/claim.All) derived again (claims.go)
		scrapeCheck,          // the server's /metrics Task times against the records (scrape.go)
		exportsAgreeCheck,    // both exports' timestamps and AIPerf's benchmark_duration (exportsagree.go)
		hardwareScrapeCheck,  // hardware and Go version against the server's own /metrics (hardwarescrape.go)
		duplicateRunsCheck,   // no AIPerf run is a copy of another under fresh ids (duplicateruns.go)
		phaseWindowCheck,     // each run's phase windows and counts, the records' spans inside (phasewindow.go)
		phaseSummaryCheck,    // the run's AIPerf summary is its profiling phase's (phasesummary.go)
		sessionOrderCheck,    // each phase's requests numbered 0…n−1, sessions in inputs.json's order (sessionorder.go)
		copiedRecordsCheck,   // no two requests' server times agree to the nanosecond (copiedrecords.go)
		recordTimesCheck,     // each record's queue and Task inside its handler, inside its span (recordtimes.go)
		serverLogBundleCheck, // the served bundle is the one the server logged loading (serverlogbundle.go)
		uploadedCheck,        // each output's input_id is what AIPerf uploaded (uploaded.go)
		gateCheck,            // each gate produced the target's way: derived (a claim) or re-read (gateof.go)
		identicalGateCheck,   // a gate said identical holds the golden images (identicalgate.go)
	}
}

// Check verifies runDir (a link to a run is the run it points to) against the pins opts name
// (findPins).
func Check(runDir string, opts Options) (Report, error) {
	runDir = resolvedDir(runDir)
	var rep Report
	if err := runfile.CheckTree(runDir); err != nil {
		return rep, err
	}
	e, err := evidence.Read(runDir)
	if err != nil {
		return rep, err
	}
	p, src, err := findPins(runDir, opts)
	rep.Pins = src
	if err != nil {
		return rep, err
	}
	rep.Notes = pinNotes(src, e.Versions["trtmc-qual"], e.RunID, runDir)
	rep.Recorded = notRederived(e)
	run := &Run{Dir: runDir, Evidence: e, Pins: p}
	for _, s := range e.Stages {
		for _, r := range s.Results {
			row := &Row{Where: s.Stage + "/" + r.Profile, Stage: s, Result: r, Stored: r}
			if opts.WithoutBundles && bundleAbsent(runDir, r) { // without its bundle when published so
				row.Stored.Bundle.Path, row.Published = "", true
				rep.Recorded = append(rep.Recorded, Recorded{Row: row.Where, What: "the bundle, published without it: its sha256 and header, and an image request's family defaults behind input_sha256"})
			}
			row.Artifacts = loadArtifacts(runDir, p, e.TargetKind, s, r, row.Published)
			if row.Artifacts.Served() && r.Join != nil {
				row.Pairs = row.Artifacts.Join.Pairs
			}
			if r.AIPerf != nil && r.AIPerf.Dir != "" {
				row.Scrapes = loadScrapes(runDir, r.AIPerf.Dir)
			}
			run.Rows = append(run.Rows, row)
		}
	}
	run.Pictures = report.PicturesOf(e, run.artifactsOf)
	for _, check := range checks() {
		for _, p := range check(run) {
			rep.Problems = append(rep.Problems, p.bounded())
		}
	}
	return rep, nil
}

// maxProblemBytes bounds what one problem says: a message can quote the run's own data (a
// 5-million-digit number in an export), and a report must stay readable and small.
const maxProblemBytes = 2000

// bounded is the problem with its message cut to maxProblemBytes, saying how much was left out.
func (p Problem) bounded() Problem {
	if len(p.What) > maxProblemBytes {
		cut := maxProblemBytes
		for cut > 0 && !utf8.RuneStart(p.What[cut]) {
			cut--
		}
		p.What = fmt.Sprintf("%s… (%d more bytes)", p.What[:cut], len(p.What)-cut)
	}
	if len(p.Where) > maxProblemBytes {
		p.Where = p.Where[:maxProblemBytes] + "…"
	}
	return p
}

// artifactsOf are a row's loaded files (the first row of that stage and profile).
func (r *Run) artifactsOf(s evidence.Stage, res evidence.Result) *claim.Artifacts {
	for _, row := range r.Rows {
		if row.Stage.Stage == s.Stage && row.Result.Profile == res.Profile {
			return row.Artifacts
		}
	}
	return claim.Load(r.Dir, res, claim.Given{}) // not reached: every row is loaded above
}

// problemsFrom collects what a check function reports.
func problemsFrom(check func(report reporter)) []Problem {
	var out []Problem
	check(func(where, format string, args ...any) {
		out = append(out, Problem{where, fmt.Sprintf(format, args...)})
	})
	return out
}

// eachRow collects what a row check reports over every row.
func (r *Run) eachRow(check func(row *Row, report reporter)) []Problem {
	return problemsFrom(func(report reporter) {
		for _, row := range r.Rows {
			check(row, report)
		}
	})
}

// bundleAbsent says whether a row names a stored bundle that is not in the run directory.
func bundleAbsent(runDir string, r evidence.Result) bool {
	if r.Bundle.Path == "" {
		return false
	}
	_, err := os.Stat(filepath.Join(runDir, filepath.FromSlash(r.Bundle.Path)))
	return errors.Is(err, fs.ErrNotExist)
}

// exportsIn are the exports of the row's AIPerf run in dir (one of artifactRunDirs): the ones
// loaded with the row's artifacts (claim.Load reads every run once), else read from dir when the
// artifacts could not be loaded, so a check still sees each run it can read.
func (row *Row) exportsIn(dir string) (aiperfexport.Exports, error) {
	if row.Artifacts != nil && row.Artifacts.Served() {
		for _, e := range row.Artifacts.Runs {
			if filepath.Clean(e.Dir) == filepath.Clean(dir) {
				return e, nil
			}
		}
	}
	return aiperfexport.Read(dir)
}
