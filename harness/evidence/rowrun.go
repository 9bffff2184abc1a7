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

// Treatment is what a run does with an inventory row: the one definition the suite declares a
// row's specs by and the verifier checks a recorded status against.
type Treatment int

// The treatments, from nothing run to a whole qualification.
const (
	// Listed: excluded, or a gap: no run gives it a result.
	Listed Treatment = iota
	// PlannedHere: this machine cannot run it, recorded planned with the reason: a distributed
	// profile (more than one GPU) always, and every row when the target's stack is missing here.
	PlannedHere
	// BuiltAndGated: a reduced or variant row, recorded and never counted.
	BuiltAndGated
	// Whole: a counted full row, served, measured and run natively (RunsWhole).
	Whole
)

// TreatmentOf is the row's treatment; cannotRun says this machine cannot run the target
// (plan.PlannedReason, never for the reference target).
func TreatmentOf(row InventoryRow, cannotRun bool) Treatment {
	switch {
	case !Resulting(row):
		return Listed
	case cannotRun || row.GPUs > 1:
		return PlannedHere
	case RunsWhole(row):
		return Whole
	}
	return BuiltAndGated
}

// ResultStatuses are the statuses a run can record for a row's result, by its treatment: none
// for a listed row, planned for one this machine cannot run, else what its checkpoint settles
// to, passed or not.
func ResultStatuses(row InventoryRow, cannotRun bool) []Status {
	switch t := TreatmentOf(row, cannotRun); t {
	case Listed:
		return nil
	case PlannedHere:
		return []Status{StatusPlanned}
	default:
		return []Status{CheckpointStatus(t == Whole, true), CheckpointStatus(t == Whole, false)}
	}
}
