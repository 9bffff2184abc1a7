package verify

import (
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// probeCheck re-judges each stage's refusal probe.
func probeCheck(r *Run) []Problem {
	return problemsFrom(func(report reporter) {
		for _, s := range r.Evidence.Stages {
			checkProbe(r.Evidence.TargetKind, s, report)
		}
	})
}

// checkProbe re-judges a run probe's recorded answer against the refusal the run's target kind
// documents (target.Traits.Refusal): the recorded rule must be that one, and passed must be what
// the rule says of the recorded status, code, message, echoed id and record.
func checkProbe(targetKind string, s evidence.Stage, report reporter) {
	p := s.Probe
	if p == nil || p.Planned != "" {
		return
	}
	where := s.Stage + "/probe"
	rule := kindOf(targetKind).Refusal()
	if p.Expected != rule.String() {
		report(where, "probe judged against %q; a %s target documents %q", p.Expected, targetKind, rule.String())
	}
	fails := rule.Judge(p.Status, p.ErrorCode, p.Message, p.SentID, p.RequestID, p.Recorded)
	if p.Passed != (len(fails) == 0) {
		report(where, "probe says passed=%v; its recorded answer against the documented refusal: %v", p.Passed, fails)
	}
}
