package verify

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
)

// sessionRun is a synthetic AIPerf run as AIPerf sends a sequential single_turn dataset: W
// warmup and N measured requests, request k of a phase carrying the session at its offset + k.
func sessionRun(r *rand.Rand) ([]aiperfexport.RawRecord, []string) {
	sessions := make([]string, 1+r.IntN(10))
	for i := range sessions {
		sessions[i] = fmt.Sprintf("clip-%02d", i)
	}
	var raw []aiperfexport.RawRecord
	w, n := r.IntN(4), 1+r.IntN(12)
	for _, ph := range []struct {
		name     string
		count, o int
	}{{"warmup", w, 0}, {"profiling", n, w}} {
		for k := range ph.count {
			raw = append(raw, aiperfexport.RawRecord{Metadata: aiperfexport.Metadata{
				XRequestID: fmt.Sprintf("%s-%d", ph.name, k), Phase: ph.name, SessionNum: k,
				ConversationID: sessions[(ph.o+k)%len(sessions)]}})
		}
	}
	r.Shuffle(len(raw), func(i, j int) { raw[i], raw[j] = raw[j], raw[i] }) // completion order
	return raw, sessions
}

// sessionEdits are the ways a forger can remove, add or move a request in a run's exports; each
// must be named.
var sessionEdits = []struct {
	name string
	edit func(r *rand.Rand, raw []aiperfexport.RawRecord, sessions []string) []aiperfexport.RawRecord
	want string
}{
	{"a request deleted", func(r *rand.Rand, raw []aiperfexport.RawRecord, _ []string) []aiperfexport.RawRecord {
		i := measuredAt(r, raw, func(md aiperfexport.Metadata) bool { return md.SessionNum < countPhase(raw, md.Phase)-1 })
		return slices.Delete(raw, i, i+1)
	}, "skip session_num"},
	{"a request deleted and the later ones renumbered", func(r *rand.Rand, raw []aiperfexport.RawRecord, sessions []string) []aiperfexport.RawRecord {
		i := measuredAt(r, raw, func(md aiperfexport.Metadata) bool {
			return md.SessionNum < countPhase(raw, md.Phase)-1 && len(sessions) > 1
		})
		gone := raw[i].Metadata
		raw = slices.Delete(raw, i, i+1)
		for j := range raw {
			if md := &raw[j].Metadata; md.Phase == gone.Phase && md.SessionNum > gone.SessionNum {
				md.SessionNum--
			}
		}
		return raw
	}, "AIPerf sends inputs.json's sessions in order"},
	{"a request duplicated under a fresh id", func(r *rand.Rand, raw []aiperfexport.RawRecord, _ []string) []aiperfexport.RawRecord {
		c := raw[r.IntN(len(raw))]
		c.Metadata.XRequestID += "-copy"
		return append(raw, c)
	}, "two "},
	{"two measured requests' sessions swapped", func(r *rand.Rand, raw []aiperfexport.RawRecord, sessions []string) []aiperfexport.RawRecord {
		i := measuredAt(r, raw, func(md aiperfexport.Metadata) bool { return true })
		j := measuredAt(r, raw, func(md aiperfexport.Metadata) bool {
			return md.ConversationID != raw[i].Metadata.ConversationID
		})
		raw[i].Metadata.ConversationID, raw[j].Metadata.ConversationID = raw[j].Metadata.ConversationID, raw[i].Metadata.ConversationID
		return raw
	}, "carries session"},
}

// measuredAt is a random measured request's index satisfying ok (-1 when none does).
func measuredAt(r *rand.Rand, raw []aiperfexport.RawRecord, ok func(aiperfexport.Metadata) bool) int {
	var idx []int
	for i, rec := range raw {
		if rec.Metadata.Phase == "profiling" && ok(rec.Metadata) {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return -1
	}
	return idx[r.IntN(len(idx))]
}

func countPhase(raw []aiperfexport.RawRecord, phase string) int {
	n := 0
	for _, rec := range raw {
		if rec.Metadata.Phase == phase {
			n++
		}
	}
	return n
}

// Honest runs of random shapes (warmups, dataset sizes, wrap-around, completion order) pass;
// every applicable edit of the class is named.
func TestSessionOrderFindsRemovedAndMovedRequests(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	tried := map[string]int{}
	for i := range 2000 {
		raw, sessions := sessionRun(r)
		if got := sessionProblems(raw, sessions); len(got) != 0 {
			t.Fatalf("honest run %d refused: %v", i, got)
		}
		e := sessionEdits[i%len(sessionEdits)]
		probe := slices.Clone(raw)
		if e.name != "a request duplicated under a fresh id" && measuredAt(rand.New(rand.NewPCG(1, 1)), probe, func(md aiperfexport.Metadata) bool {
			return md.SessionNum < countPhase(probe, md.Phase)-1 && len(sessions) > 1 && countDistinct(probe) > 1
		}) < 0 {
			continue // too small a run for this edit
		}
		got := sessionProblems(e.edit(r, slices.Clone(raw), sessions), sessions)
		if !slices.ContainsFunc(got, func(p string) bool { return strings.Contains(p, e.want) }) {
			t.Fatalf("%s (run %d): no problem names %q: %v", e.name, i, e.want, got)
		}
		tried[e.name]++
	}
	for _, e := range sessionEdits {
		if tried[e.name] < 100 {
			t.Errorf("%s tried only %d times", e.name, tried[e.name])
		}
	}
}

func countDistinct(raw []aiperfexport.RawRecord) int {
	seen := map[string]bool{}
	for _, rec := range raw {
		if rec.Metadata.Phase == "profiling" {
			seen[rec.Metadata.ConversationID] = true
		}
	}
	return len(seen)
}

// Only a sequential single_turn dataset has an order to re-derive.
func TestSessionOrderAppliesToSequentialSingleTurn(t *testing.T) {
	for _, c := range []struct {
		cmd  []string
		want bool
	}{
		{[]string{"aiperf", "profile", "--custom-dataset-type", "single_turn", "--request-count", "7"}, true},
		{[]string{"aiperf", "profile", "--custom-dataset-type", "single_turn", "--dataset-sampling-strategy", "sequential"}, true},
		{[]string{"aiperf", "profile", "--custom-dataset-type", "single_turn", "--dataset-sampling-strategy", "random"}, false},
		{[]string{"aiperf", "profile", "--custom-dataset-type", "multi_turn"}, false},
		{[]string{"aiperf", "profile"}, false},
	} {
		if got := sequentialSingleTurn(c.cmd); got != c.want {
			t.Errorf("%v: %v, want %v", c.cmd, got, c.want)
		}
	}
}
