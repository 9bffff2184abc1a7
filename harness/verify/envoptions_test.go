package verify

import "os"

// envOptions is what harness/config hands verify in `qual verify`: the tests set QUAL_ROOT and
// QUAL_TRTMC_ROOT as a user would, and this reads them as the configuration does.
func envOptions() Options {
	o := Options{Root: os.Getenv("QUAL_ROOT"), TRTMCRoot: os.Getenv("QUAL_TRTMC_ROOT")}
	if o.Root != "" {
		o.RootFrom = "QUAL_ROOT"
	}
	return o
}
