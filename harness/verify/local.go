package verify

import (
	"github.com/trtmc-qual/trtmc-qual/harness/verify/pinned"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// local joins a path taken from the evidence to the run directory, refusing anything that would
// leave it (absolute paths, "..", empty): the evidence is the forger's, the run dir is the bound.
// field names the evidence field in the error.
func local(runDir, field, rel string) (string, error) { return workload.InsideDir(runDir, field, rel) }

// pins are the repository's pinned inputs a run is checked against (harness/verify/pinned).
type pins = pinned.Pins
