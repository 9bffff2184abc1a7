// Package join matches every AIPerf request to exactly one server record by X-Request-ID, the
// way TRTMC's qualification app does: never by order (AIPerf's session numbers restart after
// warmup while its dataset cursor goes on). Nothing is dropped: unmatched and duplicated ids on
// either side are reported by id.
package join

import (
	"sort"

	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/harness/contract"
)

// Pair is one joined request.
type Pair struct {
	ID     string
	Client aiperfexport.RawRecord
	Server contract.Record
}

// Report is the outcome of a join.
type Report struct {
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
	Pairs           []Pair         `json:"-"`
}

// OK says every record joined exactly once.
func (r Report) OK() bool {
	return len(r.UnmatchedClient)+len(r.UnmatchedServer)+len(r.DuplicateClient)+len(r.DuplicateServer)+len(r.MissingID) == 0
}

// Join matches client records to the server records of one route (other routes — health
// probes, serving info — are not part of the workload).
func Join(client []aiperfexport.RawRecord, records []contract.Record, route string) Report {
	rep := Report{Route: route, ByPhase: map[string]int{}, ClientRecords: len(client)}
	byID := map[string][]contract.Record{}
	for _, rec := range records {
		if rec.Route != route {
			continue
		}
		rep.ServerRecords++
		byID[rec.RequestID] = append(byID[rec.RequestID], rec)
	}
	seen := map[string]int{}
	for _, c := range client {
		id := c.HeaderRequestID()
		if id == "" {
			rep.MissingID = append(rep.MissingID, c.Line)
			continue
		}
		seen[id]++
		if seen[id] == 2 {
			rep.DuplicateClient = append(rep.DuplicateClient, id)
		}
		recs := byID[id]
		switch {
		case len(recs) == 0:
			rep.UnmatchedClient = append(rep.UnmatchedClient, id)
		case seen[id] == 1:
			rep.Matched++
			rep.ByPhase[c.Metadata.Phase]++
			rep.Pairs = append(rep.Pairs, Pair{ID: id, Client: c, Server: recs[0]})
		}
	}
	for id, recs := range byID {
		if len(recs) > 1 {
			rep.DuplicateServer = append(rep.DuplicateServer, id)
		}
		if seen[id] == 0 {
			rep.UnmatchedServer = append(rep.UnmatchedServer, id)
		}
	}
	for _, s := range [][]string{rep.UnmatchedClient, rep.UnmatchedServer, rep.DuplicateClient, rep.DuplicateServer} {
		sort.Strings(s)
	}
	sort.Slice(rep.Pairs, func(i, j int) bool { return rep.Pairs[i].ID < rep.Pairs[j].ID })
	return rep
}
