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
	"math"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/report"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
	"github.com/trtmc-qual/trtmc-qual/harness/timing"
	"github.com/trtmc-qual/trtmc-qual/harness/verify/pinned"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
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

// Run verifies runDir and returns every problem found (none means the evidence holds).
func Run(runDir string, opts Options) ([]Problem, error) {
	rep, err := Check(runDir, opts)
	return rep.Problems, err
}

// Check verifies runDir (a link to a run is the run it points to) against the pins opts name
// (findPins).
func Check(runDir string, opts Options) (Report, error) {
	runDir = resolvedDir(runDir)
	var rep Report
	e, err := evidence.Read(runDir)
	if err != nil {
		return rep, err
	}
	rendered := report.Markdown(e)
	report := func(where, format string, args ...any) {
		rep.Problems = append(rep.Problems, Problem{where, fmt.Sprintf(format, args...)})
	}
	p, src, err := findPins(runDir, opts)
	rep.Pins = src
	if err != nil {
		return rep, err
	}
	rep.Notes = pinNotes(src, e.Versions["trtmc-qual"], e.RunID, runDir)
	rep.Recorded = notRederived(e)
	checkCanonical(runDir, e, report) // byte for byte what the project writes (canonical.go)
	md, err := os.ReadFile(filepath.Join(runDir, "qualification.md"))
	if err != nil || string(md) != rendered {
		report("qualification.md", "does not match evidence.json (regenerated report differs)")
	}
	checkHTML(runDir, e, report) // report.html re-rendered (reporthtml.go)
	checkTargetKind(p, e, report)
	checkInventory(p, e, report) // rebuilt from the pinned manifests (inventorycheck.go)
	checkStageFiles(runDir, e, report)
	checkJUnit(runDir, e, report)
	checkSpecRows(runDir, p, e, report)     // every checkpoint's spec has its row (junitrows.go)
	checkJUnitProperties(runDir, e, report) // the reports' copies of figures, hardware, versions (junitprops.go)
	for _, s := range e.Stages {
		checkStageStatus(s, report)
		checkProbe(e.TargetKind, s, report) // stage 9's refusal, by the target's documented rule (probe.go)
		for _, r := range s.Results {
			where := s.Stage + "/" + r.Profile
			checkBundle(where, r, report)
			stored, published := r, opts.WithoutBundles && bundleAbsent(runDir, r) // without its bundle when published so
			if published {
				stored.Bundle.Path = ""
				rep.Recorded = append(rep.Recorded, Recorded{Row: where, What: "the bundle, published without it: its sha256 and header, and an image request's family defaults behind input_sha256"})
			}
			checkBundleHeader(runDir, where, s, stored, report) // the stored bundle is the row's (bundleheader.go)
			checkBacking(where, s, r, report)
			checkStored(runDir, p, where, s, stored, report)
			p.CheckInlineDataset(where, s, r, report) // a TRTMC testcase's own prompt (inline.go)
			checkAccuracy(p, s, where, r, report)     // #19 statistics (repeated.go)
			checkScratch(e.TargetKind, s, r, report)
			var pairs []join.Pair
			if r.AIPerf != nil && r.Join != nil {
				pairs = checkServed(runDir, where, s.Stage, s.TargetKind, r, report)
			}
			checkInputHashes(runDir, s, r, pairs, published, report) // each record's input_sha256 is the payload's (inputhash.go)
			checkGateOf(runDir, p, where, e.TargetKind, s, r, pairs, report)
		}
	}
	return rep, nil
}

func checkStageStatus(s evidence.Stage, report func(string, string, ...any)) {
	settled := s
	if s.Status != evidence.StatusBlocked {
		settled.Status = ""
	}
	evidence.Settle(&settled)
	if settled.Status != s.Status {
		report(s.Stage, "stage says %s; its results settle to %s (%s)", s.Status, settled.Status, settled.Reason)
	}
	if s.Status == evidence.StatusBlocked && (s.Probe == nil || (!s.Probe.Passed && s.Probe.Planned == "") || len(s.Audit) == 0) {
		report(s.Stage, "stage says blocked without an audit and a passed (or planned) probe")
	}
}

func checkBundle(where string, r evidence.Result, report func(string, string, ...any)) {
	b := r.Bundle
	if r.Status == evidence.StatusQualified && (b.SHA256Built == "" || b.SHA256Gated != b.SHA256Built || b.SHA256Served != b.SHA256Built || b.SHA256After != b.SHA256Built) {
		report(where, "bundle sha256 differs between build %s, gate %s, serving %s and after %s", b.SHA256Built, b.SHA256Gated, b.SHA256Served, b.SHA256After)
	}
}

// checkServed recomputes the join, timing, outputs and gold WER from the stored artifacts, and
// returns the joined pairs for the gate's recomputation.
func checkServed(runDir, where, stage, kind string, r evidence.Result, report func(string, string, ...any)) []join.Pair {
	w, err := workload.Get(stage)
	if err != nil {
		report(where, "%v", err)
		return nil
	}
	if r.Scratch != nil { // TRTMC answers images as file:// URLs: read the artifacts the run kept
		dir, err := local(runDir, "scratch.dir", r.Scratch.Dir)
		if err != nil {
			report(where, "%v", err)
			return nil
		}
		w = workload.WithArtifacts(w, workload.ScratchReader(r.Scratch.Container, dir))
	}
	aiperfDir, err := local(runDir, "aiperf.dir", r.AIPerf.Dir)
	if err != nil {
		report(where, "%v", err)
		return nil
	}
	recordsPath, err := local(runDir, "records", r.Records)
	if err != nil {
		report(where, "%v", err)
		return nil
	}
	runs, err := aiperfexport.ReadRuns(aiperfDir)
	if err != nil {
		report(where, "AIPerf exports: %v", err)
		return nil
	}
	exports := aiperfexport.Merge(r.AIPerf.Dir, runs)
	data, err := os.ReadFile(recordsPath)
	if err != nil {
		report(where, "server records: %v", err)
		return nil
	}
	records, err := contract.ParseRecords(data)
	if err != nil {
		report(where, "%v", err)
		return nil
	}
	checkRequests(where, r, exports, records, report)
	checkAggregate(runDir, where, r, report)
	rep := join.Join(exports.Raw, records, r.Join.Route)
	checkCopies(runDir, where, kind, r, runs, rep, report) // every copy of a request's data agrees (copies.go)
	if rep.Matched != r.Join.Matched || len(rep.UnmatchedClient) != len(r.Join.UnmatchedClient) || len(rep.UnmatchedServer) != len(r.Join.UnmatchedServer) ||
		len(rep.DuplicateClient) != len(r.Join.DuplicateClient) || len(rep.DuplicateServer) != len(r.Join.DuplicateServer) {
		report(where, "join recomputed as %s; evidence says %s", rep, *r.Join)
	}
	if r.Timing != nil {
		samples, _, _, err := timing.Samples(rep.Pairs, exports.Metrics)
		if err == nil {
			var sum timing.Summary
			if sum, err = timing.Summarize(samples); err == nil {
				compareFigures(where, sum, *r.Timing, report)
			}
		}
		if err != nil {
			report(where, "timing not recomputable: %v", err)
		}
	}
	checkRepeated(where, r, rep.Pairs, runs, report) // #19 statistics (repeated.go)
	byID := map[string]join.Pair{}
	for _, p := range rep.Pairs {
		byID[p.ID] = p
	}
	for _, o := range r.Outputs {
		p, ok := byID[o.RequestID]
		if !ok {
			report(where, "stored output for %s has no joined request", o.RequestID)
			continue
		}
		got, err := w.HTTPOutput(p)
		if err != nil || got != o.HTTPOutput || got != o.Native {
			report(where, "request %s: stored HTTP output %q / native %q, artifacts say %q (%v)", o.RequestID, o.HTTPOutput, o.Native, got, err)
		}
	}
	if r.Meaning != nil {
		for _, problem := range w.RecheckMeaning(r.Outputs, *r.Meaning) {
			report(where, "%s", problem)
		}
	}
	return rep.Pairs
}

// checkScratch keeps the reference target's image check as it is: its server answers images
// inline with their pixel hash in the record, so a reference row that claims kept artifacts
// (TRTMC's file:// form, checked by thumbnail) is refused.
func checkScratch(runKind string, s evidence.Stage, r evidence.Result, report reporter) {
	if r.Scratch != nil && (kindOf(runKind).Embedded() || kindOf(s.TargetKind).Embedded()) {
		report(s.Stage+"/"+r.Profile, "a reference row with kept artifacts (scratch %s): the reference server answers images inline", r.Scratch.Dir)
	}
}

func compareFigures(where string, got, want timing.Summary, report func(string, string, ...any)) {
	if got.Requests != want.Requests || len(got.Figures) != len(want.Figures) {
		report(where, "timing over %d requests (%d figures) recomputed, evidence has %d (%d)", got.Requests, len(got.Figures), want.Requests, len(want.Figures))
		return
	}
	for i, f := range got.Figures {
		w := want.Figures[i]
		if f.Name != w.Name || math.Abs(f.Value-w.Value) > 1e-9*math.Max(1, math.Abs(w.Value)) {
			report(where, "figure %s recomputed %v, evidence says %s = %v", f.Name, f.Value, w.Name, w.Value)
		}
	}
}

// checkGateOf re-checks a row's gate the way its target produced it. A reference row (the run or
// the stage says reference, or the row's manifest is the reference target's, under native/families)
// is recomputed, and must say reference throughout: a trtmc target_kind does not turn its gate
// into a JUnit report to trust. A TRTMC row's gate is its stored JUnit report (a TRTMC profile may
// share a reference profile's name: its manifest is TRTMC's, families/..., not native/families);
// another target's gate is its own family test, pinned in its checkout.
func checkGateOf(runDir string, p pins, where, runKind string, s evidence.Stage, r evidence.Result, pairs []join.Pair, report reporter) {
	rel, isPinned, err := p.Manifest(r.Profile)
	if err != nil {
		report(where, "%v", err)
		return
	}
	row, inInventory := pinned.InventoryRow(s, r.Profile)
	if !inInventory {
		row = inventory.Row{Profile: r.Profile, Manifest: rel}
	}
	manifestIsReference := strings.HasPrefix(path.Clean(filepath.ToSlash(row.Manifest)), "native/families/")
	reference := kindOf(runKind).Embedded() || kindOf(s.TargetKind).Embedded() || manifestIsReference
	switch {
	case reference:
		if !kindOf(runKind).Embedded() || !kindOf(s.TargetKind).Embedded() {
			report(where, "target_kind %q (stage %q) for profile %s, whose manifest %s is the reference target's: a reference row, its gate is recomputed", runKind, s.TargetKind, r.Profile, row.Manifest)
		}
		if inInventory || isPinned {
			checkGate(p, where, s.Stage, row, r, pairs, report)
		}
	case kindOf(s.TargetKind).InCheckout(): // the family's own pytest gate: its stored JUnit is the evidence (trtmc hook)
		checkJUnitGate(runDir, where, s.Stage, r, report)
	}
}

// checkTargetKind ties the run's target_kind to the target file it names when that file is in
// the repository (suites/targets/*.yaml): a run of reference.yaml cannot call itself trtmc to
// have its gates read from JUnit reports, nor the reverse. A target file outside the repository
// cannot be checked here.
func checkTargetKind(p pins, e evidence.Evidence, report reporter) {
	path, err := local(p.Root, "target", e.Target)
	if err != nil {
		if kindOf(e.TargetKind).Embedded() {
			report("evidence.json", "target_kind reference, but %v", err)
		}
		return
	}
	t, err := target.Read(path, p.Root)
	if err != nil {
		if kindOf(e.TargetKind).Embedded() {
			report("evidence.json", "target_kind reference, but target %s is not a readable target file in the repository: %v", e.Target, err)
		}
		return
	}
	if string(t.Kind) != e.TargetKind {
		report("evidence.json", "target_kind %q, but the target file %s says kind %q", e.TargetKind, e.Target, t.Kind)
	}
}

// bundleAbsent says whether a row names a stored bundle that is not in the run directory.
func bundleAbsent(runDir string, r evidence.Result) bool {
	if r.Bundle.Path == "" {
		return false
	}
	_, err := os.Stat(filepath.Join(runDir, filepath.FromSlash(r.Bundle.Path)))
	return errors.Is(err, fs.ErrNotExist)
}
