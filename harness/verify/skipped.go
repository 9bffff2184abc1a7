package verify

// Clip limits: nothing is dropped silently. A row's limits are its manifest's (a reference
// row's pinned one, a TRTMC row's in the checkout, QUAL_TRTMC_ROOT); the admission claim
// (harness/claim) applies them to the stored clips and names a recorded limit or skip that differs.

import (
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
)

// pinnedLimits are the limits the row's clips are admitted under: its manifest's, read as the
// run read them (inventory.AdmissionOf, checkpoint's admit) from where the run read it
// (rowManifest: a reference profile's pinned manifest, a trtmc row's manifest in the TRTMC
// checkout); a row of another target with no pinned manifest: the recorded ones. A trtmc row
// whose manifest cannot be read (no QUAL_TRTMC_ROOT, say) is reported.
func pinnedLimits(p pins, where string, s evidence.Stage, r evidence.Result, report reporter) evidence.InputLimits {
	recorded := evidence.InputLimits{}
	if r.Limits != nil {
		recorded = *r.Limits
	}
	path, named, ok, err := p.RowManifest(s, r.Profile)
	if err != nil {
		report(where, "input limits: %v", err)
		return recorded
	}
	if !ok {
		return recorded
	}
	a, err := inventory.AdmissionOf(path)
	if err != nil {
		report(where, "input limits of the %s: %v", named, err)
		return recorded
	}
	want := a.Limits()
	if !kindOf(s.TargetKind).InCheckout() {
		return want // the pinned manifest the run read: its sources too
	}
	// Values, not sources: a TRTMC-layout copy of the manifest (the contract double's) may name a
	// different sibling as the source of the same family limit; a limit not declared has none.
	if want.MaxClipSeconds != 0 && recorded.MaxClipSeconds == want.MaxClipSeconds {
		want.MaxClipSource = recorded.MaxClipSource
	}
	if want.SampleRate != 0 && recorded.SampleRate == want.SampleRate {
		want.SampleRateSource = recorded.SampleRateSource
	}
	return want
}
