package evidence

import "fmt"

// Status is a row's place on the ladder (planned → implemented → family-validated →
// aiperf-qualified, or unsupported / blocked / failed) or a stage's outcome (qualified,
// failed, blocked, planned). The values are the inventory's, spelled once here for evidence.
type Status string

// Row and stage statuses.
const (
	StatusPlanned         Status = "planned"
	StatusImplemented     Status = "implemented"
	StatusFamilyValidated Status = "family-validated"
	StatusQualified       Status = "aiperf-qualified" // a row
	StatusUnsupported     Status = "unsupported"
	StatusBlocked         Status = "blocked"
	StatusFailed          Status = "failed"
	StageQualified        Status = "qualified" // a stage whose every counted checkpoint is aiperf-qualified
)

// Kind is what a row is: the counted full model, a reduced or variant profile (recorded,
// never counted), or excluded from the group.
type Kind string

// Row kinds.
const (
	KindFull     Kind = "full"
	KindReduced  Kind = "reduced"
	KindVariant  Kind = "variant"
	KindExcluded Kind = "excluded"
	KindGap      Kind = "gap"
)

// Settle is the one stage-status rule, for a single run, a shard and a merged run alike:
//   - a blocked stage stays blocked (its audit and probe say why);
//   - a stage of which a narrowed run (its selection has a label) selected no row is not
//     selected: nothing is claimed for it;
//   - a stage whose every row is planned is planned (this machine could not run the target);
//   - any failed row — counted or not: a reduced profile failing its family gate is a defect
//     too — or a counted checkpoint short of aiperf-qualified fails the stage;
//   - a stage with no counted checkpoint fails (nothing qualified the group), unless a narrowed
//     run selected only its recorded rows (the run's verdict then says it is no qualification);
//   - a refusal probe that ran and failed fails the stage (the serving path answered what it
//     must refuse);
//   - otherwise the stage is qualified.
func Settle(s *Stage) {
	if s.Status == StatusBlocked {
		return
	}
	if sel := s.Selection; len(s.Results) == 0 && s.Probe == nil && len(s.Audit) == 0 && sel != nil && sel.Label != "" {
		s.Status, s.Reason = StatusNotSelected, fmt.Sprintf("not selected by this run (%s): none of the stage's %s ran; nothing is claimed for it", sel.Label, CountRows(len(sel.TargetRows)))
		return
	}
	if p := s.Probe; p != nil && p.Planned == "" && !p.Passed && !allPlanned(s.Results) {
		s.Status, s.Reason = StatusFailed, fmt.Sprintf("the refusal probe failed: %s answered HTTP %d %q, not the refusal the target documents (%s)", p.Route, p.Status, p.ErrorCode, p.Expected)
		return
	}
	qualified, counted, failed := StageCounts(*s)
	switch {
	case allPlanned(s.Results):
		s.Status, s.Reason = StatusPlanned, s.Results[0].Statement
	case failed > 0 || qualified < counted:
		s.Status = StatusFailed
		s.Reason = fmt.Sprintf("%d of %s aiperf-qualified; %s failed", qualified, countedOf(*s, counted), CountRows(failed))
	case counted == 0 && s.Selection != nil && s.Selection.Label != "":
		// A narrowed run that selected only recorded rows of the stage: they reached what their
		// kind can reach, and the run's verdict says it is not a qualification.
		s.Status, s.Reason = StageQualified, fmt.Sprintf("this run (%s) selected no counted checkpoint of the stage; every row it ran (%d) reached what its kind can reach", s.Selection.Label, len(s.Results))
	case counted == 0:
		s.Status, s.Reason = StatusFailed, "no full-model checkpoint in the group was qualified"
	default:
		every := "all "
		if counted == 1 {
			every = "the "
		}
		s.Status, s.Reason = StageQualified, every+countedOf(*s, counted)+" aiperf-qualified"
	}
}

// allPlanned says whether there are rows and every one is planned.
func allPlanned(results []Result) bool {
	for _, r := range results {
		if r.Status != StatusPlanned {
			return false
		}
	}
	return len(results) > 0
}

// Verdict is the run's one-word outcome, derived from the stage statuses (see the glossary). A
// test build (a binary built with a test-only tag such as qual_slowdown) is never QUALIFIED.
//
// A run that did not select every row of the target (a smoke run, a focus, one shard), or that
// measured at a load below the target's (make test-run), is never a qualification: its verdict
// names the narrowing, the rows it covered out of the target's and the load it lowered, then
// what its selected rows gave.
func Verdict(e Evidence) string {
	v := stagesVerdict(e)
	sc := ScopeOf(e)
	if sc.Narrowed() {
		v = scopeVerdict(sc, v)
	}
	if len(TestBuildTags(e.Versions)) > 0 {
		// Never a qualification, whatever the stages say; a scope still says which rows ran.
		if sc.Narrowed() {
			return "TEST BUILD — " + v
		}
		return "TEST BUILD"
	}
	return v
}

// stagesVerdict is the verdict of the stage statuses alone, over the stages the run selected.
func stagesVerdict(e Evidence) string {
	counts := map[Status]int{}
	n := 0
	for _, s := range e.Stages {
		if ran(s) {
			counts[s.Status]++
			n++
		}
	}
	switch {
	case n == 0:
		return "NO STAGES"
	case counts["failed"] > 0:
		return "FAILED"
	case counts["qualified"] == n:
		return "QUALIFIED"
	case counts["qualified"] == 0:
		return "NOT QUALIFIED"
	default:
		return "PARTIAL"
	}
}

// StageCounts is how many counted rows reached aiperf-qualified, how many rows are counted,
// and how many rows failed.
func StageCounts(s Stage) (qualified, counted, failed int) {
	for _, r := range s.Results {
		if r.Counted {
			counted++
			if r.Status == StatusQualified {
				qualified++
			}
		}
		if r.Status == StatusFailed {
			failed++
		}
	}
	return qualified, counted, failed
}

// countedOf names the counted checkpoints a stage ran against the target's: a narrowed run
// that ran fewer than the stage has says so ("1 of the stage's 3 counted checkpoints, the ones
// this run (smoke) selected").
func countedOf(s Stage, ran int) string {
	noun := "counted checkpoints"
	if ran == 1 {
		noun = "counted checkpoint"
	}
	if sel := s.Selection; sel != nil && sel.Counted > ran {
		return fmt.Sprintf("%d %s this run (%s) selected, of the stage's %d,", ran, noun, sel.Label, sel.Counted)
	}
	return fmt.Sprintf("%d %s", ran, noun)
}

// CountRows is "1 row" or "n rows".
func CountRows(n int) string { return CountOf(n, "row", "rows") }

// CountOf is n with its noun in the singular or the plural: "1 input", "3 inputs".
func CountOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
