package pinned

import (
	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory/reference"
)

// ScanInventory rebuilds a reference run's inventory from the target's pinned manifests
// (inventory.Scan, as the suites built it), with the families' capabilities their cgo-free
// descriptors state, as the suites' plan reads them (plan.Capabilities). The recorded rows
// cannot answer them: a row's native_task or family edited in the run would then confirm
// itself, and a family whose rows were all removed would answer nothing.
func ScanInventory(paths []string) *inventory.Report {
	return inventory.Scan(paths, inventory.Options{Capabilities: reference.Capabilities})
}
