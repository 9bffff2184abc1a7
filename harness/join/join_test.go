package join

import (
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/harness/contract"
)

func client(id, phase string, line int) aiperfexport.RawRecord {
	r := aiperfexport.RawRecord{RequestHeaders: map[string]string{"X-Request-ID": id}, Line: line}
	r.Metadata.Phase = phase
	return r
}

func TestJoinReportsEveryKindOfMismatchByID(t *testing.T) {
	route := "/v1/audio/transcriptions"
	clients := []aiperfexport.RawRecord{client("a", "warmup", 1), client("b", "profiling", 2), client("c", "profiling", 3),
		client("c", "profiling", 4), client("", "profiling", 5), client("lost", "profiling", 6)}
	records := []contract.Record{{RequestID: "a", Route: route}, {RequestID: "b", Route: route}, {RequestID: "b", Route: route},
		{RequestID: "c", Route: route}, {RequestID: "extra", Route: route}, {RequestID: "probe", Route: "/health/ready"}}
	rep := Join(clients, records, route)
	if rep.Matched != 3 || rep.ByPhase["warmup"] != 1 || rep.ByPhase["profiling"] != 2 {
		t.Errorf("matched %d by phase %v", rep.Matched, rep.ByPhase)
	}
	check := func(name string, got []string, want ...string) {
		if len(got) != len(want) {
			t.Errorf("%s = %v, want %v", name, got, want)
			return
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s = %v, want %v", name, got, want)
			}
		}
	}
	check("unmatched client", rep.UnmatchedClient, "lost")
	check("unmatched server", rep.UnmatchedServer, "extra")
	check("duplicate client", rep.DuplicateClient, "c")
	check("duplicate server", rep.DuplicateServer, "b")
	if len(rep.MissingID) != 1 || rep.MissingID[0] != 5 || rep.OK() || rep.ServerRecords != 5 {
		t.Errorf("missing id lines %v, ok %v, server records %d", rep.MissingID, rep.OK(), rep.ServerRecords)
	}
	clean := Join(clients[:3], records[:2], route)
	if clean.OK() {
		t.Errorf("a join with an unmatched client record reported OK: %+v", clean)
	}
	perfect := Join(clients[:2], records[:2], route)
	if !perfect.OK() || perfect.Matched != 2 {
		t.Errorf("perfect join: %+v", perfect)
	}
}
