package aiperf

import (
	"testing"

	"github.com/trtmc-qual/trtmc-qual/containers/spec"
)

// The container's environment keeps AIPerf's registration patient on a loaded machine and
// takes away the 2 s AIPerf waits after the last answer before its final /metrics scrape and the
// event-loop lag monitor's wake-ups (it only logs); the run count reaches run-profile.sh.
func TestEnvOfTheAIPerfContainer(t *testing.T) {
	env := Env(spec.Profile{Runs: 5})
	for k, want := range map[string]string{"QUAL_AIPERF_RUNS": "5", "AIPERF_SERVICE_REGISTRATION_TIMEOUT": "300",
		"AIPERF_SERVER_METRICS_COLLECTION_FLUSH_PERIOD": "0", "QUAL_AIPERF_VERSION": "0.13.0",
		"AIPERF_SERVICE_EVENT_LOOP_HEALTH_ENABLED": "false"} {
		if env[k] != want {
			t.Errorf("%s = %q, want %q", k, env[k], want)
		}
	}
	if got := Env(spec.Profile{})["QUAL_AIPERF_RUNS"]; got != "1" {
		t.Errorf("no runs given: QUAL_AIPERF_RUNS %q, want 1", got)
	}
}
