// Package qualify declares the specs that qualify a stage's checkpoints: one ordered Describe
// per inventory row, one It per claim, in the order of DESIGN.md's "What one checkpoint's
// qualification proves". The stage suites (asr, t2i) call Checkpoints with their plan.
package qualify

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/trtmc-qual/trtmc-qual/harness/checkpoint"
	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
	"github.com/trtmc-qual/trtmc-qual/harness/plan"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/task"
	"github.com/trtmc-qual/trtmc-qual/suites/junit"
	"github.com/trtmc-qual/trtmc-qual/suites/labels"
)

// Suite holds what the specs of one stage share. NewSuite does no I/O; Run reads the
// configuration and the plan before the spec tree is built, and BeforeSuite fills Env and
// Stage.
type Suite struct {
	stage workload.Stage
	Plan  *plan.Plan
	Env   *checkpoint.Env
	Stage *evidence.StageRun
}

// NewSuite is a stage's suite; call Lifecycle from init and Run from the Test function.
func NewSuite(stage workload.Stage) *Suite { return &Suite{stage: stage} }

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
	p, err := plan.FromEnv(string(s.stage))
	if err != nil {
		t.Fatalf("stage %s: %v", s.stage, err)
	}
	s.Plan = p
	suiteConfig.FailOnEmpty = suiteConfig.FailOnEmpty || (suiteConfig.LabelFilter == "" && p.Shards == 1)
	RegisterFailHandler(Fail)
	RunSpecs(t, description, suiteConfig, reporterConfig)
}

// Lifecycle registers BeforeSuite (images, run directory) and AfterSuite (stage.json, written
// whatever the specs' outcome).
func (s *Suite) Lifecycle() {
	BeforeSuite(func(ctx SpecContext) {
		env, err := s.Plan.Setup(ctx, GinkgoWriter)
		Expect(err).NotTo(HaveOccurred(), "images and run directory")
		env.Log = GinkgoWriter
		s.Env, s.Stage = env, s.Plan.NewStageRun()
	}, NodeTimeout(30*time.Minute))
	AfterSuite(func(ctx SpecContext) {
		if s.Stage != nil {
			Expect(plan.WriteStage(ctx, s.Env, s.Stage)).To(Succeed())
			GinkgoWriter.Printf("stage evidence: %s/%s/stage.json (%s)\n", s.Env.RunDir, s.Plan.Stage, s.Stage.Evidence.Status)
		}
	})
	ReportAfterSuite("JUnit for CI viewers", func(r Report) {
		if s.Env == nil {
			return // BeforeSuite failed before the run directory existed; Ginkgo reports why
		}
		path := filepath.Join(s.Env.RunDir, "junit", s.Plan.Stage+".xml")
		Expect(junit.Write(path, r, junit.Options{ModuleRoot: s.Plan.Root, StageLabels: stageLabels(), Properties: s.runProperties()})).To(Succeed())
	})
}

// runProperties identify the run in each JUnit file: run id, target, versions, hardware.
func (s *Suite) runProperties() map[string]string {
	e := s.Stage.Evidence
	props := map[string]string{"run_id": filepath.Base(s.Env.RunDir), "stage": s.Plan.Stage, "target": e.Target,
		"target_kind": string(e.TargetKind), "shard": fmt.Sprintf("%d/%d", s.Plan.Shard, s.Plan.Shards),
		"hardware.cpu": e.Hardware.CPU, "hardware.cores": fmt.Sprint(e.Hardware.Cores), "hardware.gpu": e.Hardware.GPU}
	for k, v := range e.Versions {
		props["version."+k] = v
	}
	return props
}

func stageLabels() []string {
	var out []string
	for _, st := range workload.Stages() {
		out = append(out, string(st))
	}
	return out
}

// Checkpoints declares a Describe per inventory row.
func (s *Suite) Checkpoints() {
	if reason := s.Plan.PlannedReason; reason != "" {
		for _, row := range s.Plan.Rows {
			switch {
			case row.Kind == inventory.KindExcluded || row.Kind == inventory.KindGap:
				s.excluded(row)
			case row.GPUs > 1:
				s.planned(row, row.Reason)
			default:
				s.planned(row, reason)
			}
		}
		return
	}
	for _, row := range s.Plan.Rows {
		switch {
		case row.GPUs > 1: // distributed (TP/CP > 1): planned with "needs N GPUs", never attempted here
			s.planned(row, row.Reason)
		case row.Kind == inventory.KindFull: // the inventory counts exactly one full profile per checkpoint
			s.full(row)
		case row.Kind == inventory.KindReduced || row.Kind == inventory.KindVariant:
			s.recorded(row)
		default:
			s.excluded(row)
		}
	}
}

func (s *Suite) describe(row inventory.Row, what string) string {
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
func (s *Suite) NewCheckpoint(row inventory.Row) *checkpoint.Checkpoint {
	c := new(checkpoint.Checkpoint)
	BeforeAll(func() {
		prepared, err := checkpoint.New(s.Env, row)
		Expect(err).NotTo(HaveOccurred())
		*c = *prepared
		DeferCleanup(func() { s.Stage.Add(c.Finish(row.Kind == inventory.KindFull && row.Counted)) })
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

// full is a counted checkpoint's whole qualification.
func (s *Suite) full(row inventory.Row) {
	load := s.Plan.Target.StageLoad(s.Plan.Stage)
	Describe(s.describe(row, "full model, counted"), Ordered, Label(s.Plan.Stage, labels.Containers, labels.Slow), func() {
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
			}, NodeTimeout(10*time.Minute))
			It("serves that same bundle: /v1/serving/info reports its sha256", func(ctx SpecContext) {
				Expect(c.CheckServed(ctx)).To(Succeed())
				AddReportEntry("bundle_served", c.Result.Bundle, ReportEntryVisibilityFailureOrVerbose)
			})
			It(fmt.Sprintf("runs aiperf==0.13.0: %d warmup + %d measured requests", load.Warmup, load.Requests), func(ctx SpecContext) {
				// Clips beyond the family's declared limits were not given to AIPerf (issue #12):
				// their count is a JUnit property, each clip with its reason in the case's output.
				AddReportEntry("inputs_skipped", float64(len(c.Result.Skipped)))
				for _, sk := range c.Result.Skipped {
					AddReportEntry("skipped_input", sk)
				}
				Expect(c.RunAIPerf(ctx)).To(Succeed())
				AddReportEntry("aiperf", c.Result.AIPerf, ReportEntryVisibilityFailureOrVerbose)
			}, NodeTimeout(60*time.Minute))
			It("joins every request, warmup included, to one server record by X-Request-ID", func() {
				rep, err := c.Join()
				Expect(err).NotTo(HaveOccurred())
				AddReportEntry("join", rep.String())
			})
			It("gives the native Task's output over HTTP for every request", func(ctx SpecContext) {
				Expect(c.Identity(ctx)).To(Succeed())
				AddReportEntry("identity", c.Result.Identity, ReportEntryVisibilityFailureOrVerbose)
			}, NodeTimeout(30*time.Minute))
			It("gives meaningful outputs, within the family's contract", func() {
				Expect(c.Meaning()).To(Succeed())
				AddReportEntry("meaning", c.Result.Meaning, ReportEntryVisibilityFailureOrVerbose)
			})
			It("keeps client latency apart from the Task call's wall time", func() {
				sum, err := c.Timing()
				Expect(err).NotTo(HaveOccurred())
				for _, f := range sum.Figures { // numbers, units in the names; formulas are in the report
					AddReportEntry(junit.FigureName(f.Name, f.Unit), f.Value)
				}
			})
			// Last of the served claims: an Ordered container skips what follows a failure, and the
			// meaning and timing evidence must stand whatever this check finds.
			It("serves one input repeated no faster than its first occurrence or the native Task: no cached results", func(ctx SpecContext) {
				err := c.NoCaching(ctx)
				AddReportEntry("no_caching", c.Result.NoCache, ReportEntryVisibilityFailureOrVerbose)
				Expect(err).NotTo(HaveOccurred())
			}, NodeTimeout(15*time.Minute))
		})
		It("leaves the served bundle byte-identical to the gated one", func() {
			Expect(c.Unchanged()).To(Succeed())
		})
	})
}

// buildAndGate declares the specs every row that is built shares.
func (s *Suite) buildAndGate(c *checkpoint.Checkpoint) {
	It("builds the bundle from the family manifest and records its sha256", func(ctx SpecContext) {
		Expect(c.Build(ctx)).To(Succeed())
		AddReportEntry("bundle", c.Result.Bundle, ReportEntryVisibilityFailureOrVerbose)
	}, NodeTimeout(20*time.Minute))
	It(fmt.Sprintf("implements %s, by capability rather than by name or declared mode", s.Plan.W.Capability()), func(ctx SpecContext) {
		Expect(c.Capability(ctx)).To(Succeed())
	})
	It("passes the family's unchanged gate on that exact bundle, with pinned thresholds", func(ctx SpecContext) {
		Expect(c.Gate(ctx)).To(Succeed())
		AddReportEntry("gate", c.Result.Gate, ReportEntryVisibilityFailureOrVerbose)
		for name, v := range c.Result.Gate.Figures {
			AddReportEntry("gate_"+name, v)
		}
	}, NodeTimeout(30*time.Minute))
}

// recorded is a reduced or variant row: built and gated, recorded, never counted.
func (s *Suite) recorded(row inventory.Row) {
	Describe(s.describe(row, row.Kind+": recorded, not counted"), Ordered, Label(s.Plan.Stage), func() {
		c := s.NewCheckpoint(row)
		s.buildAndGate(c)
		It(fmt.Sprintf("is listed as a %s row and never counted as the checkpoint's model", row.Kind), func() {
			Expect(row.Counted).To(BeFalse())
			Expect(row.Markings).NotTo(BeEmpty(), "the markings that make it %s", row.Kind)
		})
	})
}

// planned records a row this machine cannot run and reports its spec skipped with the reason:
// no result is claimed, and a skipped spec never counts as passed.
func (s *Suite) planned(row inventory.Row, reason string) {
	Describe(s.describe(row, "planned"), Label(s.Plan.Stage, labels.GPU), func() {
		It("is recorded as planned, with the reason, and claims no result", func() {
			s.Stage.Planned(row, reason)
			Skip(reason)
		})
	})
}

// excluded is a row that shares the stage's task string but not its workload.
func (s *Suite) excluded(row inventory.Row) {
	Describe(s.describe(row, "excluded"), Label(s.Plan.Stage), func() {
		It("is excluded from the group with its reason recorded", func() {
			Expect(row.Reason).NotTo(BeEmpty())
			Expect(row.Counted).To(BeFalse())
		})
	})
}

// AudioQA declares stage 9: the capability audit, and with no capable profile the blocked
// report and the refusal probe; capable profiles get the full qualification.
func (s *Suite) AudioQA() {
	want := s.Plan.W.Capability()
	var capable []inventory.Row
	for _, r := range s.Plan.Rows {
		if r.NativeTask == string(want) {
			capable = append(capable, r)
		}
	}
	if s.Plan.Shard != 1 && len(capable) == 0 {
		return
	}
	It("audits every profile of the target for an audio_text_to_text capability", func() {
		audit, err := inventory.Audit(s.Plan.Paths, want, s.Plan.Caps)
		Expect(err).NotTo(HaveOccurred())
		Expect(audit).NotTo(BeEmpty(), "the target has no profiles to audit")
		s.Stage.Evidence.Audit = audit
		AddReportEntry("audit", audit, ReportEntryVisibilityFailureOrVerbose)
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
	s.refusalProbe()
}

// blocked reports stage 9 blocked with its audit when no profile implements the capability.
func (s *Suite) blocked(want task.Name) {
	It("is reported blocked, visibly, because no profile implements audio_text_to_text", func() {
		Expect(s.Stage.Evidence.Audit).NotTo(BeEmpty(), "a blocked stage needs its audit")
		reason := fmt.Sprintf("blocked: none of the %d profiles of target %s implements %s (audit below)", len(s.Stage.Evidence.Audit), s.Plan.Target.Name, want)
		s.Stage.Block(reason, s.Stage.Evidence.Audit)
		for _, a := range s.Stage.Evidence.Audit {
			Expect(a.Has).To(BeFalse(), a.Profile)
		}
		// Blocked is not passed: the audit above is asserted, and the claim is reported skipped
		// with its reason, so that no viewer shows a blocked stage green.
		Skip(reason)
	})
}

// refusalProbe proves the serving path refuses an audio question to a transcription-only model.
func (s *Suite) refusalProbe() {
	if reason := s.Plan.PlannedReason; reason != "" {
		It("records the refusal probe as planned: this machine cannot serve the target", func() {
			s.Stage.SetProbe(&evidence.Probe{Route: s.Plan.W.Route(), Planned: reason})
			Skip(reason)
		})
		return
	}
	Describe("the serving path refuses audio questions it cannot answer", Ordered, Label(labels.Containers), func() {
		// The refusal is the one the target's server documents (contract.RefusalOf): the reference
		// server's 400 unsupported_capability with a record, TRTMC's app's 404 route_not_served with none.
		It("refuses an input_audio part to a transcription-only model as the target documents: "+contract.RefusalOf(s.Plan.Target.Kind).Code+", the request id echoed", func(ctx SpecContext) {
			asr, err := plan.FromEnv(string(workload.ASR))
			Expect(err).NotTo(HaveOccurred())
			counted := inventory.Counted(asr.Rows)
			Expect(counted).NotTo(BeEmpty(), "no transcription model to probe with")
			pairs, err := dataset.ReadQAPairs(filepath.Join(s.Plan.Root, workload.PairsPath))
			Expect(err).NotTo(HaveOccurred())
			Expect(pairs).NotTo(BeEmpty())
			probe, cleanups, err := checkpoint.ProbeAudioRefusal(ctx, s.Env, counted[0], pairs[0])
			for _, c := range cleanups {
				DeferCleanup(func(ctx SpecContext) error { return c(ctx) })
			}
			Expect(err).NotTo(HaveOccurred())
			s.Stage.SetProbe(probe)
			AddReportEntry("probe", probe, ReportEntryVisibilityFailureOrVerbose)
			Expect(probe.Passed).To(BeTrue(), "probe answer: %+v", probe)
		}, NodeTimeout(15*time.Minute))
	})
}
