package verify

import (
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
)

// The repeats must be the input the check names: a measured request of the join, whose record's
// input hash every repeat carries.
func TestNoCacheRepeatsAreTheNamedInput(t *testing.T) {
	pair := func(id, phase, sha string) join.Pair {
		var p join.Pair
		p.ID, p.Client.Metadata.Phase, p.Server.InputSHA256 = id, phase, sha
		return p
	}
	row := func(first string, repeatSHA ...string) *Row {
		n := &evidence.NoCache{FirstRequestID: first}
		for _, s := range repeatSHA {
			n.Repeats = append(n.Repeats, evidence.NoCacheRequest{RequestID: "rep-" + s, InputSHA256: s})
		}
		return &Row{Where: "asr/p", Result: evidence.Result{NoCache: n},
			Pairs: []join.Pair{pair("w", "warmup", "ww"), pair("x", "profiling", "xx")}}
	}
	for _, tc := range []struct {
		name string
		row  *Row
		want string
	}{
		{"the input of a measured request", row("x", "xx", "xx"), ""},
		{"a warmup request", row("w", "ww"), "no measured request"},
		{"an unknown request", row("nope", "xx"), "no measured request"},
		{"a repeat of another input", row("x", "xx", "yy"), "not the input of x"},
	} {
		report, got := collect()
		checkRepeatedInput(tc.row, report)
		if all := strings.Join(*got, "\n"); (tc.want == "") != (all == "") || !strings.Contains(all, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, all, tc.want)
		}
	}
}
