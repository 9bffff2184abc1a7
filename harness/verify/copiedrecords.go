package verify

import (
	"fmt"
	"slices"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/join"
)

// minCopiedTaskMS is the shortest Task call compared: a call this long, timed to the
// nanosecond, does not take the same time as another to the nanosecond by chance.
const minCopiedTaskMS = 1.0

// copiedRecordsCheck: the reference server times each request's Task call and handler to the
// nanosecond (model_call_ms and handler_ms with six decimals), so no two requests of a run take
// the same two times. A run fabricated from another, its client latencies jittered past
// duplicateRunsCheck's tolerance and its records copied under fresh ids, keeps the server's
// times, which its scrape and response bodies must copy in turn. A target whose records carry
// no span (TRTMC's app) is not compared: its timing's resolution is not ours to rely on.
func copiedRecordsCheck(r *Run) []Problem {
	return problemsFrom(func(report reporter) {
		seen := map[serverTimes]string{}
		for _, row := range r.Rows {
			if kindOf(row.Stage.TargetKind).RecordsCarrySpans() {
				for _, p := range copiedTimings(row, seen) {
					report(recordsWhere(row), "%s", p)
				}
			}
		}
	})
}

// serverTimes are a request's Task and handler times as its record states them.
type serverTimes struct{ task, handler float64 }

// copiedTimings adds each joined request's times of a row to seen (by request and row, in
// request-id order) and returns a problem for each request whose times another already holds.
func copiedTimings(row *Row, seen map[serverTimes]string) []string {
	pairs := slices.Clone(row.Pairs)
	slices.SortStableFunc(pairs, func(a, b join.Pair) int { return strings.Compare(a.ID, b.ID) })
	var out []string
	for _, p := range pairs {
		t := p.Server.Timing
		if t.ModelCallMS < minCopiedTaskMS {
			continue
		}
		k, here := serverTimes{t.ModelCallMS, t.HandlerMS}, fmt.Sprintf("request %s of %s", p.ID, row.Where)
		if other, ok := seen[k]; ok {
			out = append(out, fmt.Sprintf("%s took model_call_ms %v and handler_ms %v, to the nanosecond the times of %s: a copy of that request's record, not a request of its own",
				here, t.ModelCallMS, t.HandlerMS, other))
			continue
		}
		seen[k] = here
	}
	return out
}
