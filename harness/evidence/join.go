package evidence

import "fmt"

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

// String summarizes the join for failure messages.
func (j Join) String() string {
	return fmt.Sprintf("matched %d (by phase %v) / unmatched client %d %v / unmatched server %d %v / duplicates client %v server %v / client lines without id %v",
		j.Matched, j.ByPhase, len(j.UnmatchedClient), j.UnmatchedClient, len(j.UnmatchedServer), j.UnmatchedServer,
		j.DuplicateClient, j.DuplicateServer, j.MissingID)
}
