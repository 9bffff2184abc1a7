package verify

import (
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
// manifests in the repository (inventory.Scan, as the suites built it) and compares it with the
// recorded one, checkpoint by checkpoint: the same rows (gap rows included, one row per
// manifest), each with its manifest's kind, counted flag and manifest. A sharded run records
// only its shard's checkpoints, so a checkpoint the run does not hold at all is not asked for.
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

func compareInventory(s evidence.Stage, want []evidence.InventoryRow, report reporter) {
	where := s.Stage + "/stage.json"
	held := map[string]bool{}
	recorded := map[string]evidence.InventoryRow{}
	for _, row := range s.Inventory {
		held[row.Checkpoint+"@"+row.Revision] = true
		if _, dup := recorded[row.Profile]; dup {
			report(where, "inventory row %s is listed twice", row.Profile)
		}
		recorded[row.Profile] = row
	}
	rebuilt := map[string]bool{}
	for _, w := range want {
		if !held[w.Checkpoint+"@"+w.Revision] {
			continue
		}
		rebuilt[w.Profile] = true
		got, ok := recorded[w.Profile]
		switch {
		case !ok:
			report(where, "inventory has no row %s (kind %s), which the pinned manifests give checkpoint %s", w.Profile, w.Kind, w.Checkpoint)
		case got.Kind != w.Kind || got.Counted != w.Counted || filepathSlash(got.Manifest) != filepathSlash(w.Manifest):
			report(where, "inventory row %s is kind %s, counted %v, manifest %s; the pinned manifests give kind %s, counted %v, manifest %s (%s)",
				w.Profile, got.Kind, got.Counted, got.Manifest, w.Kind, w.Counted, w.Manifest, strings.Join(w.Markings, "; "))
		}
	}
	for _, row := range s.Inventory {
		if !rebuilt[row.Profile] {
			report(where, "inventory row %s (kind %s) is not a row the pinned manifests give", row.Profile, row.Kind)
		}
	}
}

func filepathSlash(p string) string { return strings.ReplaceAll(p, `\`, "/") }
