package verify

import (
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// targetKindCheck: the run's target_kind is the kind of the target file it names.
func targetKindCheck(r *Run) []Problem {
	return problemsFrom(func(report reporter) { checkTargetKind(r.Pins, r.Evidence, report) })
}

// checkTargetKind ties the run's target_kind to the target file it names when that file is in
// the repository (suites/targets/*.yaml): a run of reference.yaml cannot call itself trtmc to
// have its gates read from JUnit reports, nor the reverse. A target file outside the repository
// cannot be checked here. Every stage names the run's target and kind. A kind no registry entry has (the run's or a stage's) is reported: its
// traits claim nothing, which would switch off every check a kind's trait turns on.
func checkTargetKind(p pins, e evidence.Evidence, report reporter) {
	if !target.Registered(e.TargetKind) {
		report("evidence.json", "target_kind %q is not one of %v", e.TargetKind, target.Kinds())
	}
	for _, s := range e.Stages {
		if !target.Registered(s.TargetKind) {
			report("evidence.json", "stage %s: target_kind %q is not one of %v", s.Stage, s.TargetKind, target.Kinds())
		}
		// One run is of one target (qual merge refuses shards of two): a stage naming another
		// target or kind than the run's, which is tied to its target file below, is tied to none.
		if s.Target != e.Target || s.TargetKind != e.TargetKind {
			report(s.Stage+"/stage.json", "target %s (%s), but the run's is %s (%s)", s.Target, s.TargetKind, e.Target, e.TargetKind)
		}
	}
	path, err := workload.InsideDir(p.Root, "target", e.Target)
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

// kindOf are the traits of the target kind a run or stage records (evidence keeps it as a
// string): verify asks them what differs by kind rather than comparing names.
func kindOf(recorded string) target.Traits { return target.TraitsOf(recorded) }
