package verify

import (
	"github.com/trtmc-qual/trtmc-qual/harness/claim"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// claimsCheck derives every claim each row makes (join, inputs, timing, repeated runs, accuracy,
// no-caching) again from its published files with the suite's own derivation (harness/claim) and
// names the claim and every field where the stored record differs (the first 8, the rest counted).
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
// pins give: the stage (reading kept artifacts where the server answered file:// URLs), the
// thresholds its manifest's testcase declares, the pinned dataset's groups, the pins its gate is
// derived against.
func loadArtifacts(runDir string, p pins, runKind string, s evidence.Stage, r evidence.Result, published bool) *claim.Artifacts {
	groups := func() (map[string]string, error) { return p.GateGroups(s, r) }
	where := s.Stage + "/" + r.Profile
	inputs := func(g claim.Given) claim.Given {
		g.InputPins, g.Published = inputPins(runDir, p, where, s, r), published
		g.Target = kindOf(s.TargetKind)
		return g
	}
	w, err := workload.Get(s.Stage)
	if err != nil { // an unknown stage, which the claims name: its recorded route
		given := inputs(claim.Given{Groups: groups})
		if r.Join != nil {
			given.Route = r.Join.Route
		}
		return claim.Load(runDir, r, given)
	}
	if r.Scratch != nil { // TRTMC answers images as file:// URLs: read the artifacts the run kept
		if dir, err := workload.InsideDir(runDir, "scratch.dir", r.Scratch.Dir); err == nil {
			w = workload.WithArtifacts(w, workload.ScratchReader(r.Scratch.Container, dir))
		}
	}
	given := inputs(claim.StageGiven(w, p.DeclaredThresholds(s, r), groups))
	given.GatePins = gatePins(p, runKind, s, r)
	return claim.Load(runDir, r, given)
}
