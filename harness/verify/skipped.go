package verify

// Clip limits: nothing is dropped silently. A row's limits are its manifest's (a reference
// row's pinned one, a TRTMC row's in the checkout, QUAL_TRTMC_ROOT); the admission claim
// (harness/claim) applies them to the stored clips and names a recorded limit or skip that differs.

import (
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
	"github.com/trtmc-qual/trtmc-qual/harness/verify/pinned"
)

// pinnedLimits are the limits the row's clips are admitted under: its manifest's, read as the
// run read them (inventory.AdmissionOf, checkpoint's admit) from where the run read it
// (rowManifest: a reference profile's pinned manifest, a trtmc row's manifest in the TRTMC
// checkout); a row of another target with no pinned manifest: the recorded ones. A trtmc row
// whose manifest cannot be read (no QUAL_TRTMC_ROOT, say) is reported. family is the one the
// manifest names, which names a limit in a skipped input's reason as the run's does (the
// suite's admit reads it from the same manifest).
func pinnedLimits(p pins, where string, s evidence.Stage, r evidence.Result, report reporter) (limits evidence.InputLimits, family string) {
	recorded := evidence.InputLimits{}
	if r.Limits != nil {
		recorded = *r.Limits
	}
	row, _ := pinned.InventoryRow(s, r.Profile) // a row with no manifest read: its recorded family names the limit
	path, named, ok, err := p.RowManifest(s, r.Profile)
	if err != nil {
		report(where, "input limits: %v", err)
		return recorded, row.Family
	}
	if !ok {
		return recorded, row.Family
	}
	a, err := inventory.AdmissionOf(path)
	if err != nil {
		report(where, "input limits of the %s: %v", named, err)
		return recorded, row.Family
	}
	want := a.Limits()
	if !kindOf(s.TargetKind).InCheckout() {
		return want, a.Family // the pinned manifest the run read: its sources too
	}
	// Values, not sources: a TRTMC-layout copy of the manifest (the contract double's) may name a
	// different sibling as the source of the same family limit; a limit not declared has none.
	if want.MaxClipSeconds != 0 && recorded.MaxClipSeconds == want.MaxClipSeconds {
		want.MaxClipSource = recorded.MaxClipSource
	}
	if want.SampleRate != 0 && recorded.SampleRate == want.SampleRate {
		want.SampleRateSource = recorded.SampleRateSource
	}
	return want, a.Family
}
