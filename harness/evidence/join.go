package evidence

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Join is a row's join of AIPerf's records to the server's (Result.Join), as harness/join
// computes it: the counts, and every record that did not join exactly once.
type Join struct {
	Route           string         `json:"route"`
	ClientRecords   int            `json:"client_records"`
	ServerRecords   int            `json:"server_records"`
	Matched         int            `json:"matched"`
	ByPhase         map[string]int `json:"matched_by_phase"`
	UnmatchedClient []string       `json:"unmatched_client"` // AIPerf sent it, the server has no record
	UnmatchedServer []string       `json:"unmatched_server"` // the server served it, AIPerf has no record
	DuplicateClient []string       `json:"duplicate_client"`
	DuplicateServer []string       `json:"duplicate_server"`
	MissingID       []int          `json:"client_lines_without_id"`
}

// OK says every record joined exactly once.
func (j Join) OK() bool {
	return len(j.UnmatchedClient)+len(j.UnmatchedServer)+len(j.DuplicateClient)+len(j.DuplicateServer)+len(j.MissingID) == 0
}

// String is the join in words, for JUnit and failure messages: the counts, each phase's matches,
// and every record that did not join exactly once, by id (or line, for a line with no id).
func (j Join) String() string {
	phases := slices.Sorted(maps.Keys(j.ByPhase))
	byPhase := make([]string, len(phases))
	for i, p := range phases {
		byPhase[i] = fmt.Sprintf("%s %d", p, j.ByPhase[p])
	}
	out := fmt.Sprintf("%d matched (%s) of %d AIPerf and %d server records", j.Matched, strings.Join(byPhase, ", "), j.ClientRecords, j.ServerRecords)
	if j.OK() {
		return out + "; every record joined exactly once"
	}
	lines := make([]string, len(j.MissingID))
	for i, l := range j.MissingID {
		lines[i] = fmt.Sprint(l)
	}
	for _, part := range []struct {
		what string
		ids  []string
	}{
		{"sent by AIPerf with no server record", j.UnmatchedClient},
		{"served with no AIPerf record", j.UnmatchedServer},
		{"in more than one AIPerf record", j.DuplicateClient},
		{"in more than one server record", j.DuplicateServer},
		{"AIPerf lines without a request id (line numbers)", lines},
	} {
		if len(part.ids) > 0 {
			out += fmt.Sprintf("; %d %s: %s", len(part.ids), part.what, strings.Join(part.ids, ", "))
		}
	}
	return out
}
