package contract

import (
	"fmt"
	"strings"
)

// CodeRouteNotServed is TRTMC's serving app's code for a route its operation does not serve.
const CodeRouteNotServed = "route_not_served"

// Refusal is what a serving path documents for a request its model cannot answer: the stage-9
// probe sends an audio question to a transcription-only model and requires exactly this. Each
// target kind's is its traits' (target.Traits.Refusal), beside the rest of what differs by kind.
type Refusal struct {
	Status   int    // HTTP status
	Code     string // error.code
	Mentions string // the error message must contain it
	Recorded bool   // the server writes a record of the refusal (else: no record for its id)
	Source   string // where the behaviour is documented
}

// String is the rule as the report states it.
func (r Refusal) String() string {
	record := "a record of the refusal"
	if !r.Recorded {
		record = "no record for its id"
	}
	return fmt.Sprintf("HTTP %d %s naming %q, the request id echoed, %s (%s)", r.Status, r.Code, r.Mentions, record, r.Source)
}

// Judge lists what an observed answer breaks of the documented refusal (none: the probe passed).
// recorded says whether the server's records hold a record for the sent id (with the refusal's
// code, where the server records refusals).
func (r Refusal) Judge(status int, code, message, sentID, echoedID string, recorded bool) []string {
	var out []string
	if status != r.Status || code != r.Code {
		out = append(out, fmt.Sprintf("answered HTTP %d %q, documented %d %q", status, code, r.Status, r.Code))
	}
	if !strings.Contains(message, r.Mentions) {
		out = append(out, fmt.Sprintf("message %q does not name %q", message, r.Mentions))
	}
	if echoedID != sentID {
		out = append(out, fmt.Sprintf("X-Request-ID %q, sent %q", echoedID, sentID))
	}
	switch {
	case r.Recorded && !recorded:
		out = append(out, "the server's records hold no record of the refusal")
	case !r.Recorded && recorded:
		out = append(out, "the server recorded the probe's request, which this server records only when it executes it")
	}
	return out
}
