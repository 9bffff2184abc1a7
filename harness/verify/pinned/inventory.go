package pinned

import (
	"slices"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// ScanInventory rebuilds a run's inventory from the target's pinned manifests (inventory.Scan, as
// the suites built it), with the families' capabilities taken from the recorded rows: the
// registry that answers them in the run links the native families (cgo), which the verifier
// does not.
func ScanInventory(paths []string, e evidence.Evidence) *inventory.Report {
	return inventory.Scan(paths, inventory.Options{Capabilities: recordedCapabilities(e)})
}

// recordedCapabilities answers a family's capabilities with the native Tasks its recorded rows
// name in any stage.
func recordedCapabilities(e evidence.Evidence) inventory.Capabilities {
	caps := map[string][]task.Name{}
	for _, s := range e.Stages {
		for _, row := range s.Inventory {
			if n := task.Name(row.NativeTask); n != "" && !slices.Contains(caps[row.Family], n) {
				caps[row.Family] = append(caps[row.Family], n)
			}
		}
	}
	return func(family, _ string) ([]task.Name, []task.Control, error) { return caps[family], nil, nil }
}
