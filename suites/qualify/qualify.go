// Package qualify declares the specs that qualify a stage's checkpoints: one ordered Describe
// per inventory row, one It per claim, in the order a claim depends on the one before (bundle,
// capability, gate, serving, AIPerf, join, identity, meaning, timing, bundle unchanged), so a
// failed claim stops the row's later ones, never another row's. Each stage suite declares its
// container with Suite.Describe.
package qualify

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"
	tclog "github.com/testcontainers/testcontainers-go/log"

	"github.com/trtmc-qual/trtmc-qual/harness/checkpoint"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
	"github.com/trtmc-qual/trtmc-qual/harness/plan"
	"github.com/trtmc-qual/trtmc-qual/harness/plan/setup"
	"github.com/trtmc-qual/trtmc-qual/harness/report"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
	"github.com/trtmc-qual/trtmc-qual/native/task"
	"github.com/trtmc-qual/trtmc-qual/suites/junit"
	"github.com/trtmc-qual/trtmc-qual/suites/labels"
)

// Suite holds what the specs of one stage share. NewSuite does no I/O; Run reads the
// configuration and the plan before the spec tree is built, and BeforeSuite fills Env and
// Stage.
type Suite struct {
	stage stage.Name
	Plan  *plan.Plan
	Env   *checkpoint.Env
	Stage *evidence.StageRun
	// verbose: Ginkgo streams every spec's detail; otherwise the console is the lines a user
	// always sees, and consoleText adds failures in full.
	verbose bool
	// started counts the rows begun, for each row's "row i/n" line.
	started int
	// title is the stage container's text, which every spec's text (the one Ginkgo's focus and
	// skip match) starts with after the suite's description; filter says whether Ginkgo's
	// filters (a user's label filter, focus or skip, and the run's selection) select a row's specs.
	title  string
	filter func(row evidence.InventoryRow) bool
	// declared are the rows whose checkpoint specs the tree holds (a blocked stage declares none).
	declared map[string]bool
}

// NewSuite is a stage's suite; call Lifecycle from init and Run from the Test function.
func NewSuite(stage stage.Name) *Suite { return &Suite{stage: stage} }

// Run reads the configuration (every QUAL_* variable) and the stage's plan, checks the label
// filter against the label registry, and runs the specs. A wrong configuration or an unknown
// label stops here with one line, before any spec or container starts. A whole run (no label
// filter, one shard) fails when it selects no spec; a filtered run or one shard of several may
// legitimately hold none of this stage.
func Run(t *testing.T, s *Suite, description string) {
	t.Helper()
	suiteConfig, reporterConfig := GinkgoConfiguration()
	if unknown := labels.Unknown(suiteConfig.LabelFilter); len(unknown) > 0 {
		t.Fatalf("--label-filter %q names unknown label(s) %v (labels: %v)", suiteConfig.LabelFilter, unknown, labels.All())
	}
	p, err := plan.FromEnv(s.stage)
	if err != nil {
		t.Fatalf("stage %s: %v", s.stage, err)
	}
	s.Plan = p
	// The Makefile's --timeout is a backstop for the reference target; a TRTMC stage whose steps
	// each stay within the target's limits (a 12 h gate per row) must not be cut off by it.
	if budget := p.Target.Limits(p.Stage).Stage(len(p.Rows)); suiteConfig.Timeout < budget {
		suiteConfig.Timeout = budget
	}
	suiteConfig.FailOnEmpty = suiteConfig.FailOnEmpty || (suiteConfig.LabelFilter == "" && p.Shards == 1 && !p.Selection.Active)
	if suiteConfig.FocusStrings, err = focus(p.Selection, suiteConfig.FocusStrings); err != nil {
		t.Fatalf("stage %s: %v", s.stage, err)
	}
	if p.Selection.Active && len(p.Selection.Rows) == 0 {
		// No spec runs, so neither does BeforeSuite: the stage is recorded not selected here, so
		// that the run's scope counts its rows.
		if err := setup.WriteNotSelected(p, p.ScopeLabel(false)); err != nil {
			t.Fatalf("stage %s: %v", s.stage, err)
		}
		suiteConfig.SkipStrings = append(suiteConfig.SkipStrings, ".")
	}
	if s.filter, err = rowFilter(suiteConfig, func(row evidence.InventoryRow) (string, []string) {
		return description + " " + s.title + " " + s.describe(row, s.rowWords(row)), s.rowLabels(row)
	}); err != nil {
		t.Fatalf("stage %s: %v", s.stage, err)
	}
	reporterConfig = consoleReporter(reporterConfig, p.Config.Verbose)
	s.verbose = reporterConfig.Verbosity().GTE(types.VerbosityLevelVerbose)
	if !s.verbose { // the containers' own lines are detail too; they are not the spec's log
		tclog.SetDefault(tclog.NewNoopLogger())
	}
	RegisterFailHandler(Fail)
	RunSpecs(t, description, suiteConfig, reporterConfig)
}

// focus is the Ginkgo focus of a run: a selection (QUAL_STAGE, QUAL_ROWS, QUAL_RERUN) runs the
// selected rows' specs alone. Ginkgo ORs its focus strings, so a selection beside a user's own
// --focus would run the rows of either: that combination is refused.
func focus(sel plan.Selection, user []string) ([]string, error) {
	if !sel.Active {
		return user, nil
	}
	if len(user) > 0 {
		return nil, fmt.Errorf("ginkgo --focus %q beside a selection (QUAL_STAGE, QUAL_ROWS, QUAL_RERUN; make STAGE=, ROWS=, RERUN=): Ginkgo would run the rows of either; use one of the two", user)
	}
	return []string{sel.Focus()}, nil
}

// Lifecycle registers BeforeSuite (images, run directory) and AfterSuite (stage.json, written
// whatever the specs' outcome).
func (s *Suite) Lifecycle() {
	// Lifecycle runs at init, before Run reads the plan: the node's timeout is a backstop and the
	// target's setup limit bounds the work itself.
	BeforeSuite(func(sctx SpecContext) {
		ctx, cancel := context.WithTimeout(sctx, s.Plan.Target.Limits(s.Plan.Stage).Setup)
		defer cancel()
		start := time.Now()
		stop := checkpoint.Heartbeat(ctx, "["+string(s.Plan.Stage)+"] images", s.sayf)
		env, err := setup.Prepare(ctx, s.Plan, GinkgoWriter)
		stop()
		Expect(err).NotTo(HaveOccurred(), "images and run directory")
		s.sayf("[%s] images ready in %s", s.Plan.Stage, time.Since(start).Round(100*time.Millisecond))
		env.Log, env.Console = GinkgoWriter, s.console()
		suiteConfig, _ := GinkgoConfiguration()
		s.Env, s.Stage = env, s.Plan.NewStageRun(s.Plan.ScopeLabel(len(suiteConfig.FocusStrings) > 0))
	}, NodeTimeout(24*time.Hour))
	AfterSuite(func(ctx SpecContext) {
		if s.Stage != nil {
			s.recordUnfinished()
			Expect(setup.WriteStage(ctx, s.Env, s.Stage)).To(Succeed())
			// One stage's suite knows its own selection, not the run's: the stage's scope words its
			// status (a smoke or reduced-load stage never reads a bare QUALIFIED here either).
			ev := s.Stage.Evidence
			fmt.Fprintf(s.console(), "stage evidence: %s/%s/stage.json (%s)\n", s.Env.RunDir, s.Plan.Stage, evidence.StageWord(ev.Status, evidence.StageScope(ev)))
		}
	})
	ReportAfterEach(func(r SpecReport) {
		if !s.verbose {
			writeConsole(os.Stdout, r)
		}
	})
	ReportAfterSuite("failures of the suite's own nodes on the console", func(r Report) {
		if !s.verbose {
			writeConsole(os.Stdout, r.SpecReports.WithLeafNodeType(types.NodeTypesForSuiteLevelNodes).WithState(types.SpecStateFailureStates)...)
		}
	})
	ReportAfterSuite("JUnit for CI viewers", func(r Report) {
		if s.Env == nil {
			return // BeforeSuite failed before the run directory existed; Ginkgo reports why
		}
		path := filepath.Join(s.Env.RunDir, "junit", string(s.Plan.Stage)+".xml")
		Expect(junit.Write(path, r, junit.Options{ModuleRoot: s.Plan.Root, StageLabels: stageLabels(), Properties: s.runProperties(), NotSelected: s.notSelected()})).To(Succeed())
	})
}

// console is where the lines a user always sees go: streamed with the detail when verbose; else
// straight to the terminal, and into the spec's log as well, so that a JUnit case holds the same
// output either way.
func (s *Suite) console() io.Writer {
	if s.verbose {
		return GinkgoWriter
	}
	return io.MultiWriter(os.Stdout, GinkgoWriter)
}

// sayf prints a suite-level progress line on the default console only: verbose, Ginkgo streams
// the setup's own lines, and the spec's log stays as it was.
func (s *Suite) sayf(format string, args ...any) {
	if !s.verbose {
		fmt.Fprintf(os.Stdout, format+"\n", args...)
	}
}

// runProperties identify the run in each JUnit file: run id, target, versions, hardware.
func (s *Suite) runProperties() map[string]string {
	props := report.JUnitStageProperties(s.Stage.Evidence)
	props["run_id"], props["stage"], props["shard"] = filepath.Base(s.Env.RunDir), string(s.Plan.Stage), fmt.Sprintf("%d/%d", s.Plan.Shard, s.Plan.Shards)
	return props
}

// addFigures adds to the running spec's case the row's figures its claim's case carries, as
// harness/report renders them from the row (`qual verify` renders them again from the published row).
func addFigures(r evidence.Result, of report.JUnitClaim) {
	for _, f := range report.JUnitFigures(r) {
		if f.Of == of {
			AddReportEntry(f.Name, f.Value)
		}
	}
}

func stageLabels() []string {
	var out []string
	for _, st := range stage.Names() {
		out = append(out, string(st))
	}
	return out
}

// Checkpoints declares a Describe per inventory row, by its treatment (evidence.TreatmentOf,
// the definition the verifier checks recorded statuses against).
func (s *Suite) Checkpoints() {
	for _, row := range s.Plan.Rows {
		switch evidence.TreatmentOf(row, s.Plan.PlannedReason != "") {
		case evidence.Listed:
			s.excluded(row)
		case evidence.PlannedHere:
			s.planned(row, s.plannedReason(row))
		case evidence.Whole:
			s.full(row)
		case evidence.BuiltAndGated:
			s.recorded(row)
		}
	}
}

// plannedReason is why a row this machine cannot run is planned: a distributed profile's own
// reason ("needs N GPUs"), else the target's.
func (s *Suite) plannedReason(row evidence.InventoryRow) string {
	if row.GPUs > 1 {
		return row.Reason
	}
	return s.Plan.PlannedReason
}

func (s *Suite) describe(row evidence.InventoryRow, what string) string {
	checkpoint := row.Checkpoint
	if row.Revision != "" { // a TRTMC manifest names no revision: no trailing "@"
		checkpoint += "@" + row.Revision
	}
	return fmt.Sprintf("%s (checkpoint %s, %s)", row.Profile, checkpoint, what)
}

// NewCheckpoint declares, in the enclosing Ordered container, the BeforeAll that prepares the
// row's checkpoint, and returns the pointer the container's specs use: stable from the start,
// filled before the first spec runs. When the container is done the row's result is recorded
// (aiperf-qualified only for a counted full row whose every claim passed).
func (s *Suite) NewCheckpoint(row evidence.InventoryRow) *checkpoint.Checkpoint {
	if s.declared == nil {
		s.declared = map[string]bool{}
	}
	s.declared[row.Profile] = true
	c := new(checkpoint.Checkpoint)
	BeforeAll(func() {
		prepared, err := checkpoint.New(s.Env, row)
		if err != nil {
			s.Stage.Add(checkpoint.NotRun(s.Env, row, "its checkpoint could not be prepared: "+err.Error()))
		}
		Expect(err).NotTo(HaveOccurred())
		*c = *prepared
		c.Announce(s.nextPosition(row))
		DeferCleanup(func() { s.Stage.Add(c.Finish(evidence.RunsWhole(row))) })
	})
	// A failed claim's JUnit case says how to run the row again and where its files are.
	AfterEach(func() {
		if CurrentSpecReport().Failed() && c.Dir != "" {
			AddReportEntry("reproduce", c.Result.Reproduce, ReportEntryVisibilityFailureOrVerbose)
			AddReportEntry("row_folder", c.Dir, ReportEntryVisibilityFailureOrVerbose)
		}
	})
	return c
}

// unfinishedWhy is the failure a selected row records when the suite ends with no result for
// it: none of the row's own specs can record it once the suite has stopped.
const unfinishedWhy = "the suite ended before its checkpoint left a result (interrupted or timed out); its JUnit cases say which"

// recordUnfinished gives a result to every row this run selected, runs and declared specs for:
// a row whose specs never got as far as recording one failed, never "not selected" (a stopped
// run would otherwise read as a narrower one). A row Ginkgo's own filters left out (a user's --label-filter, --focus,
// --skip) was not selected, and keeps that word.
func (s *Suite) recordUnfinished() {
	for _, row := range s.Stage.Unfinished(s.Plan.Runs()) {
		if s.declared[row.Profile] && (s.filter == nil || s.filter(row)) {
			s.Stage.Add(checkpoint.NotRun(s.Env, row, unfinishedWhy))
		}
	}
}

// rowWords are the words a run row's Describe gives its kind.
func (s *Suite) rowWords(row evidence.InventoryRow) string {
	if row.Kind == evidence.KindFull {
		return "full model, counted"
	}
	return string(row.Kind) + ": recorded, not counted"
}

// rowLabels are the labels a run row's Describe carries (its specs carry none of their own).
func (s *Suite) rowLabels(row evidence.InventoryRow) []string {
	if row.Kind == evidence.KindFull {
		return []string{labels.Stage(s.Plan.Stage), labels.Containers, labels.Slow}
	}
	return []string{labels.Stage(s.Plan.Stage)}
}

// notSelected is the reason JUnit gives a spec this run's filter skipped.
func (s *Suite) notSelected() string {
	if l := s.Plan.Selection.Label; l != "" {
		return "not selected by this run (" + l + "): nothing is claimed for it"
	}
	return ""
}

// nextPosition is the place of a row starting now: i counts the rows started so far (Ginkgo runs
// the rows' containers in a random order, so an inventory index would read "row 3/6" first), of
// the n rows this run runs.
func (s *Suite) nextPosition(row evidence.InventoryRow) (int, int) {
	_, n := s.position(row)
	s.started++
	return s.started, n
}

// position is the row's place among the rows this run runs of the stage (of this shard): i of n.
func (s *Suite) position(row evidence.InventoryRow) (int, int) {
	runs := s.Plan.Runs()
	for i, r := range runs {
		if r.Profile == row.Profile {
			return i + 1, len(runs)
		}
	}
	return 0, len(runs)
}

// full is a counted checkpoint's whole qualification. The served claims run while the server is
// up; the server then stops, and the native twins run in a container of its image (a serving
// worker and a native run of one model must not hold it in GPU memory together). Every step is
// bounded by the target's timeouts (TRTMC's own limits by default).
func (s *Suite) full(row evidence.InventoryRow) {
	load := s.Plan.Target.StageLoad(s.Plan.Stage)
	limits := s.Plan.Target.Limits(s.Plan.Stage)
	Describe(s.describe(row, s.rowWords(row)), Ordered, Label(s.rowLabels(row)...), func() {
		c := s.NewCheckpoint(row)
		s.buildAndGate(c)
		Context("served in a container and measured by a real AIPerf", Ordered, func() {
			BeforeAll(func(ctx SpecContext) {
				stopNetwork, err := c.StartNetwork(ctx)
				Expect(err).NotTo(HaveOccurred())
				DeferCleanup(func(ctx SpecContext) error { return stopNetwork(ctx) })
				stopServer, err := c.StartServer(ctx)
				if stopServer != nil {
					DeferCleanup(func(ctx SpecContext) error { return stopServer(ctx) })
				}
				Expect(err).NotTo(HaveOccurred())
			}, NodeTimeout(limits.Serve))
			It("serves that same bundle: /v1/serving/info reports its sha256", func(ctx SpecContext) {
				Expect(c.CheckServed(ctx)).To(Succeed())
				AddReportEntry("bundle_served", junit.Record{Value: c.Result.Bundle}, ReportEntryVisibilityFailureOrVerbose)
			})
			It(fmt.Sprintf("runs aiperf==0.13.0: %d warmup + %d measured requests", load.Warmup, load.Requests), func(ctx SpecContext) {
				// Clips beyond the family's declared limits were not given to AIPerf (a family must not be judged on input it cannot take):
				// their count is a JUnit property, each clip with its reason in the case's output.
				addFigures(c.Result, report.JUnitAIPerf)
				for _, sk := range c.Result.Skipped {
					AddReportEntry("skipped_input", junit.Record{Value: sk})
				}
				Expect(c.RunAIPerf(ctx)).To(Succeed())
				AddReportEntry("aiperf", junit.Record{Value: c.Result.AIPerf}, ReportEntryVisibilityFailureOrVerbose)
			}, NodeTimeout(limits.AIPerf))
			It("joins every request, warmup included, to one server record by X-Request-ID", func() {
				rep, err := c.Join()
				Expect(err).NotTo(HaveOccurred())
				AddReportEntry("join", rep.String())
			})
			It("sends repeats of one input and fresh inputs of equal cost, each joined to a server record", func(ctx SpecContext) {
				Expect(c.SendNoCacheProbe(ctx)).To(Succeed())
			}, NodeTimeout(limits.NoCache))
		})
		Context("run natively in a container of the serving image, after the server stopped", Ordered, func() {
			BeforeAll(func(ctx SpecContext) {
				stopNative, err := c.StartNative(ctx)
				if stopNative != nil {
					DeferCleanup(func(ctx SpecContext) error { return stopNative(ctx) })
				}
				Expect(err).NotTo(HaveOccurred())
			}, NodeTimeout(limits.Serve))
			It("gives the native Task's output over HTTP for every request", func(ctx SpecContext) {
				Expect(c.Identity(ctx)).To(Succeed())
				AddReportEntry("identity", junit.Record{Value: c.Result.Identity}, ReportEntryVisibilityFailureOrVerbose)
			}, NodeTimeout(limits.Identity))
			It("gives meaningful outputs, within the family's contract", func() {
				Expect(c.Meaning()).To(Succeed())
				AddReportEntry("meaning", junit.Record{Value: c.Result.Meaning}, ReportEntryVisibilityFailureOrVerbose)
			})
			It("keeps client latency apart from the Task call's wall time", func() {
				Expect(c.Timing()).To(Succeed())
				addFigures(c.Result, report.JUnitTiming) // numbers, units in the names; formulas are in the report
			})
			// Last: an Ordered container skips what follows a failure, and the meaning and timing
			// evidence must stand whatever this check finds.
			It("serves repeats of one input no faster than fresh inputs of equal cost: no cached results", func(ctx SpecContext) {
				err := c.NoCaching(ctx)
				AddReportEntry("no_caching", junit.Record{Value: c.Result.NoCache}, ReportEntryVisibilityFailureOrVerbose)
				Expect(err).NotTo(HaveOccurred())
			}, NodeTimeout(limits.Identity))
		})
		It("leaves the served bundle byte-identical to the gated one", func() {
			Expect(c.Unchanged()).To(Succeed())
		})
	})
}

// buildAndGate declares the specs every row that is built shares. A target whose family gate
// builds the bundle (build_output: family-gate) runs the gate in the build spec: the row's one
// engine build; the capability is then that file's, and the gate spec reads the same run's report.
func (s *Suite) buildAndGate(c *checkpoint.Checkpoint) {
	limits := s.Plan.Target.Limits(s.Plan.Stage)
	It("builds the bundle from the family manifest and records its sha256", func(ctx SpecContext) {
		Expect(c.Build(ctx)).To(Succeed())
		AddReportEntry("bundle", junit.Record{Value: c.Result.Bundle}, ReportEntryVisibilityFailureOrVerbose)
	}, NodeTimeout(limits.Build))
	It(fmt.Sprintf("implements %s, by capability rather than by name or declared mode", s.Plan.W.Stage().Capability()), func(ctx SpecContext) {
		Expect(c.Capability(ctx)).To(Succeed())
	})
	It("passes the family's unchanged gate on that exact bundle, with pinned thresholds", func(ctx SpecContext) {
		Expect(c.Gate(ctx)).To(Succeed())
		AddReportEntry("gate", junit.Record{Value: c.Result.Gate}, ReportEntryVisibilityFailureOrVerbose)
		addFigures(c.Result, report.JUnitGate)
	}, NodeTimeout(limits.Gate))
}

// recorded is a reduced or variant row: built and gated, recorded, never counted (the
// inventory marks it so; its result row carries the kind and Counted false into the report).
func (s *Suite) recorded(row evidence.InventoryRow) {
	Describe(s.describe(row, s.rowWords(row)), Ordered, Label(s.rowLabels(row)...), func() {
		c := s.NewCheckpoint(row)
		s.buildAndGate(c)
	})
}

// planned records a row this machine cannot run and reports its spec skipped with the reason:
// no result is claimed, and a skipped spec never counts as passed.
func (s *Suite) planned(row evidence.InventoryRow, reason string) {
	Describe(s.describe(row, "planned"), Label(labels.Stage(s.Plan.Stage), labels.GPU), func() {
		It("is recorded as planned, with the reason, and claims no result", func() {
			s.Stage.Planned(row, reason)
			Skip(reason)
		})
	})
}

// excluded is a row that shares the stage's task string but not its workload (or a checkpoint
// with no full-model profile, a gap): nothing is claimed for it, so its one case is skipped with
// the inventory's reason, visible in JUnit and never green. It is named by the words the reports
// give it (its kind and status), and its reason already says which it is.
func (s *Suite) excluded(row evidence.InventoryRow) {
	Describe(s.describe(row, listedWords(row)), Label(labels.Stage(s.Plan.Stage)), func() {
		It("is listed, not qualified: nothing is claimed for it", func() {
			reason := row.Reason
			if reason == "" {
				reason = listedWords(row) + ": nothing is claimed for it"
			}
			Skip(reason)
		})
	})
}

// listedWords are a listed row's words in the reports: its kind, then its status.
func listedWords(row evidence.InventoryRow) string {
	return string(row.Kind) + ", " + string(row.Status)
}

// Describe declares the stage's container, with Declare's specs: never Ordered. Each row's own
// Describe is Ordered, so a failed claim stops that row's later claims; an Ordered stage would
// also skip every later row and the refusal probe, and those rows would record no result.
func (s *Suite) Describe(title string) bool {
	s.title = title
	return Describe(title, Label(labels.Stage(s.stage)), s.Declare)
}

// Declare declares the stage's specs. A stage every target must implement gets one Describe
// per inventory row (Checkpoints). A Blockable workload's stage first audits every profile for
// its capability: capable rows are qualified like any stage's, and with none the stage is
// reported blocked. A RefusalProber's stage also checks that the serving path refuses its
// request to a checkpoint without the capability.
func (s *Suite) Declare() {
	_, prober := s.Plan.W.(workload.RefusalProber)
	if _, blockable := s.Plan.W.(workload.Blockable); !blockable {
		s.Checkpoints()
		if prober && s.Plan.Shard == 1 {
			s.refusalProbe()
		}
		return
	}
	want := s.Plan.W.Stage().Capability()
	var capable []evidence.InventoryRow
	for _, r := range s.Plan.Rows {
		if r.NativeTask == string(want) {
			capable = append(capable, r)
		}
	}
	if s.Plan.Shard != 1 && len(capable) == 0 {
		return
	}
	It(fmt.Sprintf("audits every profile of the target for the %s capability", want), func() {
		audit := s.audit(want)
		AddReportEntry("audit", junit.Record{Value: audit}, ReportEntryVisibilityFailureOrVerbose)
	})
	if len(capable) > 0 {
		// Capable rows are qualified like any stage's: full rows end to end, reduced and
		// variant rows built and gated, gaps listed. The refusal probe below still runs.
		s.Checkpoints()
	}
	if s.Plan.Shard != 1 {
		return // the blocked report and the probe belong to shard 1
	}
	if len(capable) == 0 {
		s.blocked(want)
	}
	if prober {
		s.refusalProbe()
	}
}

// audit is the stage's capability audit of every profile of the target, taken once: the audit
// claim and the blocked report read the same one, whichever of them runs first.
func (s *Suite) audit(want task.Name) []evidence.AuditRow {
	if audit := s.Stage.Snapshot().Audit; len(audit) > 0 {
		return audit
	}
	audit, err := inventory.Audit(s.Plan.Paths, want, s.Plan.Caps)
	Expect(err).NotTo(HaveOccurred())
	Expect(audit).NotTo(BeEmpty(), "the target has no profiles to audit")
	s.Stage.SetAudit(audit)
	return audit
}

// blocked reports a Blockable stage blocked with its audit when no profile implements the
// capability.
func (s *Suite) blocked(want task.Name) {
	It(fmt.Sprintf("is reported blocked, visibly, because no profile implements %s", want), func() {
		audit := s.audit(want)
		reason := fmt.Sprintf("blocked: none of the %d profiles of target %s implements %s (audit below)", len(audit), s.Plan.Target.Name, want)
		s.Stage.Block(reason, audit)
		for _, a := range audit {
			Expect(a.Has).To(BeFalse(), a.Profile)
		}
		// Blocked is not passed: the audit above is asserted, and the claim is reported skipped
		// with its reason, so that no viewer shows a blocked stage green.
		Skip(reason)
	})
}

// refusalProbe proves the serving path refuses the workload's request to a checkpoint of the
// probe stage, which lacks the capability.
func (s *Suite) refusalProbe() {
	w := s.Plan.W.(workload.RefusalProber)
	if reason := s.Plan.PlannedReason; reason != "" {
		It("records the refusal probe as planned: this machine cannot serve the target", func() {
			s.Stage.SetProbe(&evidence.Probe{Route: s.Plan.W.Route(), Planned: reason})
			Skip(reason)
		})
		return
	}
	Describe(fmt.Sprintf("the serving path refuses %s requests it cannot answer", w.Stage()), Ordered, Label(labels.Containers), func() {
		// The refusal is the one the target's server documents (target.Traits.Refusal): the reference
		// server's 400 unsupported_capability with a record, TRTMC's app's 404 route_not_served with none.
		It(fmt.Sprintf("refuses it to a checkpoint of stage %s, without %s, as the target documents: %s, the request id echoed", w.ProbeStage(), w.Stage().Capability(), s.Plan.Target.Traits().Refusal().Code), func(ctx SpecContext) {
			other, err := plan.FromEnv(w.ProbeStage())
			Expect(err).NotTo(HaveOccurred())
			counted := inventory.Counted(other.Rows)
			Expect(counted).NotTo(BeEmpty(), "no %s model to probe with", w.ProbeStage())
			refusal, cleanups, err := checkpoint.ProbeRefusal(ctx, s.Env, counted[0], w)
			for _, c := range cleanups {
				DeferCleanup(func(ctx SpecContext) error { return c(ctx) })
			}
			Expect(err).NotTo(HaveOccurred())
			s.Stage.SetProbe(refusal)
			AddReportEntry("probe", junit.Record{Value: refusal}, ReportEntryVisibilityFailureOrVerbose)
			Expect(refusal.Passed).To(BeTrue(), "probe answer: %+v", refusal)
		}, NodeTimeout(15*time.Minute))
	})
}
