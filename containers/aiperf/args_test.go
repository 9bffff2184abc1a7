package aiperf

import (
	"slices"
	"testing"
)

// TestArgsMultiRun: more than one run asks AIPerf for its multi-run mode; one run does not (a
// single-run profile keeps the flat artifact layout the exports reader and verify expect).
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
		i := slices.Index(args, "--num-profile-runs")
		if got := i >= 0; got != c.want || (got && args[i+1] != "5") {
			t.Errorf("runs %d: args %v", c.runs, args)
		}
	}
}
