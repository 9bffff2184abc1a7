package spec

import (
	"slices"
	"testing"
)

// TestArgsMultiRun: one run writes to /artifacts (the flat layout); several runs leave the
// artifact directory to run-profile.sh, which gives each run its own profile_runs/run_NNNN.
func TestArgsMultiRun(t *testing.T) {
	p := Profile{Model: "m", URL: "http://s:8000", EndpointType: AudioTranscription, RequestCount: 12, WarmupCount: 3}
	for _, c := range []struct {
		runs int
		want bool
	}{{0, false}, {1, false}, {5, true}} {
		p.Runs = c.runs
		args, err := p.Args()
		if err != nil {
			t.Fatal(err)
		}
		i := slices.Index(args, "--artifact-dir")
		if got := i < 0; got != c.want || (!got && args[i+1] != "/artifacts") {
			t.Errorf("runs %d: args %v", c.runs, args)
		}
	}
}
