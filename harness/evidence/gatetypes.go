package evidence

import "github.com/trtmc-qual/trtmc-qual/native/family"

// GateResult and GateItem are a row's recorded gate (Result.Gate), as the family's gate writes
// it; named here so that code reading the evidence need not import the native family package.
type (
	GateResult = family.GateResult
	GateItem   = family.GateItem
)
