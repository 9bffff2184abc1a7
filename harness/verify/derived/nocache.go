package derived

import (
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/nocache"
)

// NoCache re-derives a row's no-caching check from its kept server records: every repeat and
// fresh variant has exactly one record, whose status, Task time and input hash are the copies
// the evidence holds, and no record is left over; then the check is judged again by
// harness/nocache's own rule (its margin, native floor and level, not the ones the evidence
// states), and every derived figure and the verdict must be the evidence's. The repeats'
// outputs are read from the responses, which are not kept: they stay as recorded (the report of
// verify lists them among what is not re-derived).
func NoCache(where string, n evidence.NoCache, records []contract.Record, report Report) {
	byID := map[string][]contract.Record{}
	for _, rec := range records {
		byID[rec.RequestID] = append(byID[rec.RequestID], rec)
	}
	requests := append(append([]evidence.NoCacheRequest(nil), n.Repeats...), n.Fresh...)
	for _, q := range requests {
		recs := byID[q.RequestID]
		delete(byID, q.RequestID)
		if len(recs) != 1 {
			report(where, "no-caching request %s has %d records in %s, want 1", q.RequestID, len(recs), n.Records)
			continue
		}
		rec := recs[0]
		if rec.Status != q.Status || rec.Timing.ModelCallMS != q.TaskMS || rec.InputSHA256 != q.InputSHA256 {
			report(where, "no-caching request %s: evidence says HTTP %d, %v ms, input %q; its record says HTTP %d, %v ms, input %q",
				q.RequestID, q.Status, q.TaskMS, q.InputSHA256, rec.Status, rec.Timing.ModelCallMS, rec.InputSHA256)
		}
	}
	for id := range byID {
		report(where, "no-caching record %s in %s is none of the check's requests", id, n.Records)
	}
	if len(n.Repeats) != n.K || len(n.Fresh) != n.K || n.K != nocache.K(n.Concurrency) {
		report(where, "no-caching check: %d repeats and %d fresh variants at concurrency %d, k %d; the rule sends k = %d of each",
			len(n.Repeats), len(n.Fresh), n.Concurrency, n.K, nocache.K(n.Concurrency))
	}
	again := rejudged(n)
	switch {
	case again.Passed != n.Passed:
		report(where, "no-caching check judged again differently: passed=%v (%s), the evidence says passed=%v",
			again.Passed, strings.Join(again.Failures, "; "), n.Passed)
	default:
		if diff := FirstDifference(again, n); diff != "" {
			report(where, "no-caching check judged again differently: %s", diff)
		}
	}
}

// rejudged is n judged again from its requests, output and native time alone.
func rejudged(n evidence.NoCache) evidence.NoCache {
	again := evidence.NoCache{Input: n.Input, FirstRequestID: n.FirstRequestID, Output: n.Output, Variant: n.Variant,
		K: n.K, Concurrency: n.Concurrency, Repeats: n.Repeats, Fresh: n.Fresh, NativeTaskMS: n.NativeTaskMS, Records: n.Records}
	nocache.Judge(&again)
	return again
}
