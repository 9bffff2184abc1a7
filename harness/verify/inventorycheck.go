package verify

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
	"github.com/trtmc-qual/trtmc-qual/harness/verify/pinned"
)

// inventoryCheck: a reference run's inventory is the one its pinned manifests give.
func inventoryCheck(r *Run) []Problem {
	return problemsFrom(func(report reporter) { checkInventory(r.Pins, r.Evidence, report) })
}

// checkInventory rebuilds each stage's inventory of a reference run from the target's pinned
// manifests in the repository (pinned.ScanInventory, as the suites built it) and compares it
// with the recorded one, checkpoint by checkpoint: the same rows (gap rows included, one row per
// manifest), each equal in every field to the rebuilt row as the run leaves it (asRun). A
// sharded run records only its shard's checkpoints, so a checkpoint the run does not hold at
// all is not asked for.
func checkInventory(p pins, e evidence.Evidence, report reporter) {
	t, paths, ok := referenceManifests(p, e, report)
	if !ok {
		return
	}
	rebuilt := pinned.ScanInventory(paths)
	for _, s := range e.Stages {
		want := append([]evidence.InventoryRow(nil), rebuilt.Stages[stage.Name(s.Stage)]...)
		inventory.Relative(want, t.Root)
		compareInventory(s, want, report)
	}
}

// compareInventory compares a stage's recorded inventory with the rows the scan gives (want).
// A checkpoint is held when a recorded row names it or when a recorded row's profile is one of
// its rows: a row whose checkpoint was edited is still compared (and its checkpoint named), not
// taken for another shard's.
func compareInventory(s evidence.Stage, want []evidence.InventoryRow, report reporter) {
	where := s.Stage + "/stage.json"
	recorded := map[string]evidence.InventoryRow{}
	held := map[string]bool{}
	for _, row := range s.Inventory {
		if _, dup := recorded[row.Profile]; dup {
			report(where, "inventory row %s is listed twice", row.Profile)
		}
		recorded[row.Profile] = row
		held[row.Checkpoint+"@"+row.Revision] = true
	}
	for _, w := range want {
		if _, ok := recorded[w.Profile]; ok {
			held[w.Checkpoint+"@"+w.Revision] = true
		}
	}
	rebuilt := map[string]bool{}
	for _, w := range want {
		if !held[w.Checkpoint+"@"+w.Revision] {
			continue
		}
		rebuilt[w.Profile] = true
		got, ok := recorded[w.Profile]
		if !ok {
			report(where, "inventory has no row with profile %s (kind %s), which the pinned manifests give checkpoint %s", w.Profile, w.Kind, w.Checkpoint)
			continue
		}
		ran, err := asRun(w, s)
		if err != nil {
			report(where, "inventory row %s: %v", w.Profile, err)
		}
		got.Manifest, ran.Manifest = filepathSlash(got.Manifest), filepathSlash(ran.Manifest)
		if diff := rowDifference(got, ran); len(diff) > 0 {
			report(where, "inventory row %s is not the row its pinned manifest gives as the run leaves it: %s", w.Profile, strings.Join(diff, "; "))
		}
	}
	for _, row := range s.Inventory {
		if !rebuilt[row.Profile] {
			report(where, "inventory row with profile %s (kind %s) is not a row the pinned manifests give", row.Profile, row.Kind)
		}
	}
}

// asRun is the rebuilt row as the suite leaves it after the stage ran, by the suite's own rule
// (evidence.RowAsRun): the status and controls of its result, "not selected" for a row the run
// gave none. The result's status must be one the suite could have recorded for the rebuilt row
// (evidence.ResultStatuses), else copying it would let a forged status confirm itself; the
// reference target always runs here (plan.PlannedReason), so planned only for a distributed row.
func asRun(want evidence.InventoryRow, recorded evidence.Stage) (evidence.InventoryRow, error) {
	can := evidence.ResultStatuses(want, false)
	var bad []string
	for _, r := range recorded.Results {
		if r.Profile == want.Profile && !slices.Contains(can, r.Status) {
			bad = append(bad, string(r.Status))
		}
	}
	ran := evidence.RowAsRun(want, recorded.Results)
	switch {
	case len(bad) == 0:
		return ran, nil
	case len(can) == 0:
		return ran, fmt.Errorf("its result says %s, but the suite gives a %s row no result", strings.Join(bad, ", "), want.Kind)
	}
	distributed := ""
	if want.GPUs > 1 {
		distributed = fmt.Sprintf(", distributed on %d GPUs", want.GPUs)
	}
	return ran, fmt.Errorf("its result says %s; the suite records a %s row (counted %v%s) only as %s",
		strings.Join(bad, ", "), want.Kind, want.Counted, distributed, joinStatuses(can))
}

// rowDifference names every field of evidence.InventoryRow, by its JSON name, whose value differs
// between the recorded row (got) and the rebuilt one (want), with both values. Fields are read by
// reflection, so a field added to the row is compared without a change here; an empty list and
// an absent one are the same row.
func rowDifference(got, want evidence.InventoryRow) []string {
	var out []string
	g, w := reflect.ValueOf(got), reflect.ValueOf(want)
	for i := range g.NumField() {
		a, b := g.Field(i), w.Field(i)
		if a.Kind() == reflect.Slice && a.Len() == 0 && b.Len() == 0 {
			continue
		}
		if reflect.DeepEqual(a.Interface(), b.Interface()) {
			continue
		}
		name, _, _ := strings.Cut(g.Type().Field(i).Tag.Get("json"), ",")
		out = append(out, fmt.Sprintf("%s is %s, the rebuilt row's %s", name, jsonValue(a), jsonValue(b)))
	}
	return out
}

// jsonValue is a field's value as stage.json spells it.
func jsonValue(v reflect.Value) string {
	b, err := json.Marshal(v.Interface())
	if err != nil {
		return fmt.Sprint(v.Interface())
	}
	return string(b)
}

func joinStatuses(s []evidence.Status) string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = string(x)
	}
	return strings.Join(out, " or ")
}

func filepathSlash(p string) string { return strings.ReplaceAll(p, `\`, "/") }
