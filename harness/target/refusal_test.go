package target

import (
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
)

// Each target kind's probe holds only for its own documented refusal: TRTMC's app answers 404
// route_not_served and writes no record; the reference server answers 400 unsupported_capability
// and records it. Neither accepts the other's answer.
func TestRefusalIsJudgedByTheTargetsDocumentedBehaviour(t *testing.T) {
	const id = "audioqa-probe-q1"
	trtmcMsg := "/v1/chat/completions is not served for operation 'transcribe'"
	refMsg := "model sphinx-en-us does not implement audio_text_to_text"
	cases := []struct {
		kind        Kind
		name        string
		status      int
		code, msg   string
		echo        string
		recorded    bool
		wantFailure string // "" = passes
	}{
		{TRTMC, "TRTMC's app: 404, no record", 404, contract.CodeRouteNotServed, trtmcMsg, id, false, ""},
		{TRTMC, "a record under the probe's id: the question was executed", 404, contract.CodeRouteNotServed, trtmcMsg, id, true, "recorded the probe's request"},
		{TRTMC, "the reference server's answer on a trtmc target", 400, contract.CodeUnsupportedCapability, refMsg, id, false, "documented 404"},
		{TRTMC, "an answer", 200, "", "", id, false, "answered HTTP 200"},
		{TRTMC, "another request id", 404, contract.CodeRouteNotServed, trtmcMsg, "0123abcd", false, "X-Request-ID"},
		{Reference, "trtmc-server: 400, recorded", 400, contract.CodeUnsupportedCapability, refMsg, id, true, ""},
		{Reference, "no record is never accepted on the reference target", 400, contract.CodeUnsupportedCapability, refMsg, id, false, "no record of the refusal"},
		{Reference, "TRTMC's answer on the reference target", 404, contract.CodeRouteNotServed, trtmcMsg, id, false, "documented 400"},
	}
	for _, c := range cases {
		fails := c.kind.Traits().Refusal().Judge(c.status, c.code, c.msg, id, c.echo, c.recorded)
		got := strings.Join(fails, "; ")
		if (c.wantFailure == "") != (len(fails) == 0) || !strings.Contains(got, c.wantFailure) {
			t.Errorf("%s / %s: failures %q, want %q", c.kind, c.name, got, c.wantFailure)
		}
	}
	if s := (trtmc{}).Refusal().String(); !strings.Contains(s, "app.py") || !strings.Contains(s, "no record") {
		t.Errorf("the trtmc rule must cite its source and say no record is written: %s", s)
	}
}
