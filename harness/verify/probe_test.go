package verify

import (
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
)

// The probe's verdict is re-judged from what it recorded, by the run's target kind.
func TestProbeIsRejudgedByTheTargetKind(t *testing.T) {
	trtmc := contractRefusal("trtmc")
	honest := evidence.Probe{Model: "sphinx-en-us", Route: "/v1/chat/completions", Status: 404, ErrorCode: "route_not_served",
		Message: "/v1/chat/completions is not served for operation 'transcribe'", RequestID: "audioqa-probe-q1", SentID: "audioqa-probe-q1",
		Passed: true, Expected: trtmc}
	cases := map[string]struct {
		kind string
		edit func(p *evidence.Probe)
		want string
	}{
		"honest":                      {"trtmc", func(*evidence.Probe) {}, ""},
		"answered, called passed":     {"trtmc", func(p *evidence.Probe) { p.Status, p.ErrorCode = 200, "" }, "says passed=true"},
		"recorded, called passed":     {"trtmc", func(p *evidence.Probe) { p.Recorded = true }, "says passed=true"},
		"trtmc rule on the reference": {"reference", func(*evidence.Probe) {}, "a reference target documents"},
	}
	for name, c := range cases {
		p := honest
		c.edit(&p)
		report, problems := collect()
		checkProbe(c.kind, evidence.Stage{Stage: "audioqa", Probe: &p}, report)
		got := strings.Join(*problems, "\n")
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: problems %q, want %q", name, got, c.want)
		}
	}
}

func contractRefusal(kind string) string { return target.TraitsOf(kind).Refusal().String() }
