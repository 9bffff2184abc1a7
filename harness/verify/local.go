package verify

import (
	"github.com/trtmc-qual/trtmc-qual/harness/verify/pinned"
)

// pins are the repository's pinned inputs a run is checked against (harness/verify/pinned).
type pins = pinned.Pins
