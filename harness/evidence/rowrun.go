package evidence

// The suite changes an inventory row after the scan in exactly these ways; the verifier
// rebuilds the row from the pinned manifests and applies the same functions, so a recorded row
// can differ from the scan only as a run could have made it differ.

// RowAsRun is the inventory row as the suite leaves it once the stage's results are in: a row
// with a result takes that result's status and, when the built bundle declared them, the Task's
// controls (the manifests cannot state them); a row a whole run gives a result that this run
// did not run is "not selected". Every other field is the scan's.
func RowAsRun(row InventoryRow, results []Result) InventoryRow {
	ran := false
	for _, r := range results {
		if r.Profile == row.Profile {
			applyResult(&row, r)
			ran = true
		}
	}
	if !ran && Resulting(row) {
		row.Status = StatusNotSelected
	}
	return row
}

// applyResult moves a row up the ladder to its result.
func applyResult(row *InventoryRow, r Result) {
	row.Status = r.Status
	if len(r.Controls) > 0 {
		row.Controls = r.Controls
	}
}

// RunsWhole says whether the suite runs a row's whole qualification (served, measured, native),
// and so whether the row can reach aiperf-qualified: a counted full row. A reduced or variant
// row is built and gated only.
func RunsWhole(row InventoryRow) bool { return row.Kind == KindFull && row.Counted }

// CheckpointStatus is the status a checkpoint's steps settle its row to: aiperf-qualified only
// when every step of a whole qualification passed; a row built and gated only stops at
// family-validated by design; a step not passed fails the row.
func CheckpointStatus(whole, passed bool) Status {
	switch {
	case passed && whole:
		return StatusQualified
	case passed:
		return StatusFamilyValidated
	}
	return StatusFailed
}

// ResultStatuses are the statuses a run can record for a row's result. A row that no run gives a
// result (excluded, a gap) has none. A row this machine cannot run is recorded planned: a
// distributed profile (more than one GPU) always, and every row when the target's stack is
// missing here (cannotRun: plan.PlannedReason, never for the reference target). Any other row is
// what its checkpoint settles to, passed or not.
func ResultStatuses(row InventoryRow, cannotRun bool) []Status {
	switch {
	case !Resulting(row):
		return nil
	case cannotRun || row.GPUs > 1:
		return []Status{StatusPlanned}
	}
	whole := RunsWhole(row)
	return []Status{CheckpointStatus(whole, true), CheckpointStatus(whole, false)}
}
