package evidence

import (
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// RunWindow is when a run's stages ran: the earliest start and the latest finish of the stages
// that ran (a stage the run did not select ran nowhere); ok is false when one of them recorded
// no time, or none ran.
func RunWindow(e Evidence) (start, end time.Time, ok bool) {
	for _, s := range e.Stages {
		if !ran(s) {
			continue
		}
		if s.Started.IsZero() || s.Finished.IsZero() {
			return time.Time{}, time.Time{}, false
		}
		if start.IsZero() || s.Started.Before(start) {
			start = s.Started
		}
		if s.Finished.After(end) {
			end = s.Finished
		}
	}
	return start, end, !start.IsZero()
}

// StageRun collects one stage's results, as its checkpoints finish (concurrently safe), into
// the stage.json the suite writes at the end.
type StageRun struct {
	mu       sync.Mutex
	Evidence Stage
}

// NewStageRun starts a stage's evidence, noting when it started unless s says.
func NewStageRun(s Stage) *StageRun {
	if s.Started.IsZero() {
		s.Started = time.Now().UTC()
	}
	return &StageRun{Evidence: s}
}

// Add records one checkpoint's result and moves its inventory row up the ladder.
func (s *StageRun) Add(r Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Evidence.Results = append(s.Evidence.Results, r)
	for i := range s.Evidence.Inventory {
		if s.Evidence.Inventory[i].Profile == r.Profile {
			applyResult(&s.Evidence.Inventory[i], r)
		}
	}
}

// Result returns the recorded result of a profile.
func (s *StageRun) Result(profile string) (Result, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.Evidence.Results {
		if r.Profile == profile {
			return r, true
		}
	}
	return Result{}, false
}

// Planned records a row the machine cannot run, with the reason.
func (s *StageRun) Planned(row InventoryRow, reason string) {
	s.Add(Result{Profile: row.Profile, Checkpoint: row.Checkpoint, Revision: row.Revision, Kind: Kind(row.Kind),
		Counted: row.Counted, Status: StatusPlanned, Statement: reason})
}

// NotRunResult is the result of a row the run selected whose checkpoint ended before it left
// one (it could not be prepared, or the suite stopped first): the row failed, with why. Without
// it the row would read as one the run did not select, and the run's scope would shrink instead
// of its verdict failing.
func NotRunResult(row InventoryRow, why string) Result {
	return Result{Profile: row.Profile, Checkpoint: row.Checkpoint, Revision: row.Revision, Kind: Kind(row.Kind),
		Counted: row.Counted, Status: CheckpointStatus(RunsWhole(row), false), Statement: row.Statement,
		Failures: []string{NotRunStep + ": " + why}}
}

// NotRunStep names the failure of a selected row that left no result, as a failed step is named
// ("gate: …"), so that the reports give it its own hint.
const NotRunStep = "not run"

// Unfinished are the rows of rows that have no result yet, in their order.
func (s *StageRun) Unfinished(rows []InventoryRow) []InventoryRow {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []InventoryRow
	for _, row := range rows {
		if !slices.ContainsFunc(s.Evidence.Results, func(r Result) bool { return r.Profile == row.Profile }) {
			out = append(out, row)
		}
	}
	return out
}

// SetAudit records the stage's capability audit.
func (s *StageRun) SetAudit(audit []AuditRow) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Evidence.Audit = audit
}

// Block marks the stage blocked with its reason and audit.
func (s *StageRun) Block(reason string, audit []AuditRow) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Evidence.Status, s.Evidence.Reason, s.Evidence.Audit = StatusBlocked, reason, audit
}

// SetProbe records the refusal probe.
func (s *StageRun) SetProbe(p *Probe) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Evidence.Probe = p
}

// Snapshot is a copy of the stage's evidence so far.
func (s *StageRun) Snapshot() Stage {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.Evidence
	out.Results = append([]Result(nil), s.Evidence.Results...)
	return out
}

// Write settles the stage's status by the one rule and writes runDir/<stage>/stage.json with
// the run's versions and hardware.
func (s *StageRun) Write(runDir string, versions map[string]string, hw Hardware) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := &s.Evidence
	e.Versions, e.Hardware = versions, hw
	e.Finished = time.Now().UTC()
	Settle(e)
	settleInventory(e)
	return WriteJSON(filepath.Join(runDir, e.Stage, "stage.json"), e)
}
