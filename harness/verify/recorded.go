package verify

import (
	"fmt"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// Recorded is one thing verify took as the run recorded it instead of re-deriving it. ByRerun
// says `qual verify --rerun` re-executes it.
type Recorded struct {
	Row     string // "<stage>/<profile>", or "run"
	What    string
	ByRerun bool
}

// notRederived lists, per row, what the offline checks take as recorded: they tie every copy
// the run holds together, but what has no second copy in the run is only as true as its
// writer.
func notRederived(e evidence.Evidence) []Recorded {
	out := []Recorded{{Row: "run", What: "hardware other than a Go server's core count, and the versions other than aiperf's and a Go server's Go (no second copy in the run)"}}
	for _, s := range e.Stages {
		for _, r := range s.Results {
			where := s.Stage + "/" + r.Profile
			add := func(byRerun bool, format string, args ...any) {
				out = append(out, Recorded{Row: where, What: fmt.Sprintf(format, args...), ByRerun: byRerun})
			}
			reference := kindOf(s.TargetKind).Embedded()
			switch {
			case r.Gate != nil && reference && len(r.Outputs) == 0:
				add(true, "the native Task's outputs of its %d gate inputs (it serves nothing, so nothing else holds them) and the gate figures computed from them", len(r.Gate.Items))
			case r.Gate != nil && reference:
				add(true, "the native Task's outputs of the gate inputs it did not serve, and its run of the served ones (tied to the HTTP outputs, not re-executed)")
			}
			if r.Gate != nil && reference {
				add(true, "any gate figure verify cannot recompute offline (a family's own normalizer, the gate's audio seconds); the pinned bounds are checked against them as recorded")
			}
			switch {
			case r.Gate != nil && reference:
			case r.Gate != nil:
				add(false, "the gate: the target's own test report (JUnit) as stored")
			}
			if r.Timing != nil {
				add(false, "the server's trtmc_timing (compared with the response bodies, not measured again)")
			}
			if r.NoCache != nil {
				add(false, "the no-caching check's response bodies (not kept): each repeat's output, and the native run's Task time on the input; its records, figures and verdict are judged again")
			}
			if r.Cost != nil {
				add(false, "the harness's own cost of the row (wall and Task time by step): the suite's clock, no second copy")
			}
		}
	}
	return out
}
