package evidence

import (
	"slices"
	"sort"
	"time"
)

// Merge combines the stage evidence of shards: each stage's results, in profile order, with
// the inventory as they leave it (RowAsRun), settled by the same rule as a single run; the stage
// ran from its first shard's start to its last shard's finish, in whatever order they are added.
type Merge struct {
	stages map[string]*Stage
}

// NewMerge starts an empty merge.
func NewMerge() *Merge { return &Merge{stages: map[string]*Stage{}} }

// Add merges one shard's stage.
func (m *Merge) Add(s Stage) {
	merged, ok := m.stages[s.Stage]
	if !ok {
		first := s
		first.Results = nil
		first.Started, first.Finished = time.Time{}, time.Time{}
		m.stages[s.Stage] = &first
		merged = &first
	}
	if merged.Selection != nil && s.Selection != nil && merged.Selection.Label != s.Selection.Label {
		sel := *merged.Selection
		sel.Label = "merged shards" // the rows still missing are the target's, whichever shard left them out
		merged.Selection = &sel
	}
	merged.Results = append(merged.Results, s.Results...)
	if ran(s) { // a shard that selected none of the stage's rows stamped times where nothing ran
		merged.Started, merged.Finished = earliest(merged.Started, s.Started), latest(merged.Finished, s.Finished)
	}
	if merged.Probe == nil { // the refusal probe and the audit are one shard's (shard 1), whichever is added first
		merged.Probe = s.Probe
	}
	if len(merged.Audit) == 0 {
		merged.Audit = s.Audit
	}
	for _, row := range s.Inventory { // each shard lists only its own rows
		if !slices.ContainsFunc(merged.Inventory, func(r InventoryRow) bool { return r.Profile == row.Profile }) {
			merged.Inventory = append(merged.Inventory, row)
		}
	}
	if s.Status == StatusBlocked {
		merged.Status, merged.Reason, merged.Audit, merged.Probe = s.Status, s.Reason, s.Audit, s.Probe
	}
}

// earliest is the earlier of two times, a zero time (not recorded) giving way to the other.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

// latest is the later of two times.
func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// Stages are the merged stages by name, each settled.
func (m *Merge) Stages() map[string]Stage {
	out := make(map[string]Stage, len(m.stages))
	for name, s := range m.stages {
		sort.Slice(s.Results, func(i, j int) bool { return s.Results[i].Profile < s.Results[j].Profile })
		if s.Status != StatusBlocked {
			s.Status = ""
		}
		Settle(s)
		settleInventory(s)
		out[name] = *s
	}
	return out
}
