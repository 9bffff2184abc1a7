package verify

import (
	"github.com/trtmc-qual/trtmc-qual/harness/claim"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// claimsCheck derives every claim each row makes (join, timing, repeated runs, accuracy,
// no-caching) again from its published files with the suite's own derivation (harness/claim) and
// names the claim and the first field where the stored record differs.
func claimsCheck(r *Run) []Problem {
	return r.eachRow(func(row *Row, report reporter) {
		for _, c := range claim.All() {
			for _, p := range c.Check(row.Artifacts) {
				report(row.Where, "%s", p)
			}
		}
	})
}

// loadArtifacts loads a row's files once, before any check runs, with what its stage and the
// pins give: the stage's route and clip lengths, the pinned dataset's groups.
func loadArtifacts(runDir string, p pins, s evidence.Stage, r evidence.Result) *claim.Artifacts {
	given := claim.Given{Groups: func() (map[string]string, error) { return p.GateGroups(s, r) }}
	w, err := workload.Get(s.Stage)
	switch {
	case err == nil:
		given.Route = w.Route()
		if ct, ok := w.(workload.ClipTimed); ok {
			given.ClipSeconds = ct.ClipSeconds
		}
	case r.Join != nil: // an unknown stage, which servedCheck names: its recorded route
		given.Route = r.Join.Route
	}
	return claim.Load(runDir, r, given)
}
