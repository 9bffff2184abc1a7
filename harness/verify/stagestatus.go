package verify

import "github.com/trtmc-qual/trtmc-qual/harness/evidence"

// stageStatusCheck: each stage's status is what its rows settle to (a blocked stage: with its
// audit and probe).
func stageStatusCheck(r *Run) []Problem {
	return problemsFrom(func(report reporter) {
		for _, s := range r.Evidence.Stages {
			checkStageStatus(s, report)
		}
	})
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
