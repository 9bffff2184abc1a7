package claim

import (
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/nocache"
)

// NoCache is the no-caching check judged by harness/nocache's own rule (its k, margin, native
// floor and level, never the ones the row states) from the requests it sent, each tied to its
// one kept server record, at the row's AIPerf concurrency. Given, not derived: the repeated input, the requests' outputs (read
// from the responses, which are not kept) and the native Task time.
func NoCache() Claim {
	claimed := func(r evidence.Result) bool { return r.NoCache != nil }
	return of("no-caching check", func(r *evidence.Result) **evidence.NoCache { return &r.NoCache }, claimed, deriveNoCache)
}

func deriveNoCache(a *Artifacts) (*evidence.NoCache, error) {
	n := a.Row.NoCache
	if n == nil {
		return nil, nil
	}
	if a.noCacheErr != nil {
		return nil, a.noCacheErr
	}
	errs := append(recordsAgree(*n, a.NoCacheRecords), freshInputs(*n)...)
	again := evidence.NoCache{Input: n.Input, FirstRequestID: n.FirstRequestID, Output: n.Output, Variant: n.Variant,
		Concurrency: n.Concurrency, Repeats: n.Repeats, Fresh: n.Fresh, NativeTaskMS: n.NativeTaskMS, Records: a.NoCacheFile}
	if served(a.Row) && a.Served() {
		errs = append(errs, repeatsTheInput(*n, a.Join.Pairs)...)
		errs = append(errs, a.noCacheServer(*n)...)
		again.FirstSightTaskMS = firstSight(*n, a.Join.Pairs)
	}
	if a.Row.AIPerf != nil { // the check runs at the row's AIPerf concurrency
		again.Concurrency = max(1, a.Row.AIPerf.Concurrency)
	}
	again.K = nocache.K(again.Concurrency)
	if len(n.Repeats) != again.K || len(n.Fresh) != again.K {
		errs = append(errs, fmt.Errorf("%d repeats and %d fresh variants at concurrency %d; the rule sends k = %d of each",
			len(n.Repeats), len(n.Fresh), again.Concurrency, again.K))
	}
	nocache.Judge(&again)
	return &again, errors.Join(errs...)
}

// recordsAgree: every request of the check has exactly one kept record, whose status, Task time
// and input hash are the ones the check holds, and no record is left over.
func recordsAgree(n evidence.NoCache, records []contract.Record) []error {
	byID := map[string][]contract.Record{}
	for _, rec := range records {
		byID[rec.RequestID] = append(byID[rec.RequestID], rec)
	}
	var errs []error
	for _, q := range append(slices.Clone(n.Repeats), n.Fresh...) {
		recs := byID[q.RequestID]
		delete(byID, q.RequestID)
		if len(recs) != 1 {
			errs = append(errs, fmt.Errorf("no-caching request %s has %d records in %s, want 1", q.RequestID, len(recs), n.Records))
			continue
		}
		if rec := recs[0]; rec.Status != q.Status || rec.Timing.ModelCallMS != q.TaskMS || rec.InputSHA256 != q.InputSHA256 {
			errs = append(errs, fmt.Errorf("no-caching request %s: the check says HTTP %d, %v ms, input %q; its record says HTTP %d, %v ms, input %q",
				q.RequestID, q.Status, q.TaskMS, q.InputSHA256, rec.Status, rec.Timing.ModelCallMS, rec.InputSHA256))
		}
	}
	stray := make([]string, 0, len(byID))
	for id := range byID {
		stray = append(stray, id)
	}
	sort.Strings(stray)
	for _, id := range stray {
		errs = append(errs, fmt.Errorf("no-caching record %s in %s is none of the check's requests", id, n.Records))
	}
	return errs
}

// noCacheServer: every record of the check is a request the row's own server answered after the
// row's AIPerf runs (the check runs on the warm server once they are done): the row's route,
// model and served bundle (a reference server records both; a target whose records may omit
// them, TRTMC's, may), a Task time inside its handler time inside its own wall-clock span (where
// the target records spans), and a start after the last joined request ended. A check fabricated
// from another row's records, or from times no request of this server could have taken, fails
// one of these.
func (a *Artifacts) noCacheServer(n evidence.NoCache) []error {
	mayOmit, spans := a.Given.omitsInputFields(), a.Given.carriesSpans()
	var lastEnd int64
	for _, p := range a.Join.Pairs {
		lastEnd = max(lastEnd, p.Server.EndUnixNS)
	}
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", n.Records, fmt.Sprintf(format, args...)))
	}
	for _, rec := range a.NoCacheRecords {
		if rec.Route != a.Given.Route {
			bad("no-caching record %s is for route %s, the row's requests for %s", rec.RequestID, rec.Route, a.Given.Route)
		}
		if (rec.Model != "" || !mayOmit) && rec.Model != a.Row.Profile {
			bad("no-caching record %s names model %q, not the row's %s", rec.RequestID, rec.Model, a.Row.Profile)
		}
		if (rec.BundleSHA256 != "" || !mayOmit) && rec.BundleSHA256 != a.Row.Bundle.SHA256Served {
			bad("no-caching record %s was served by bundle %s, not the row's served bundle %s", rec.RequestID, rec.BundleSHA256, a.Row.Bundle.SHA256Served)
		}
		if rec.Timing.ModelCallMS > rec.Timing.HandlerMS {
			bad("no-caching record %s: Task %v ms, handler %v ms: a Task time lies within its handler's", rec.RequestID, rec.Timing.ModelCallMS, rec.Timing.HandlerMS)
		}
		if !spans {
			continue
		}
		if wallMS := float64(rec.EndUnixNS-rec.StartUnixNS) / 1e6; rec.Timing.HandlerMS > wallMS+1e-3 {
			bad("no-caching record %s: Task %v ms, handler %v ms, wall %v ms: a handler time lies within the request's own span", rec.RequestID, rec.Timing.ModelCallMS, rec.Timing.HandlerMS, wallMS)
		}
		if rec.StartUnixNS < lastEnd {
			bad("no-caching record %s started before the row's last AIPerf request ended: the check runs on the warm server after AIPerf", rec.RequestID)
		}
	}
	return errs
}

// freshInputs: the fresh variants' inputs differ from each other and from the repeated one.
func freshInputs(n evidence.NoCache) []error {
	seen := map[string]string{}
	for _, q := range n.Repeats {
		if q.InputSHA256 != "" {
			seen[q.InputSHA256] = "the repeated input"
		}
	}
	var errs []error
	for _, q := range n.Fresh {
		if q.InputSHA256 == "" {
			continue
		}
		if prev, dup := seen[q.InputSHA256]; dup {
			errs = append(errs, fmt.Errorf("%s: no-caching fresh variant %s reached the server as input %s, as did %s: a fresh variant is an input the server has not seen", n.Records, q.RequestID, q.InputSHA256, prev))
		}
		seen[q.InputSHA256] = q.RequestID
	}
	return errs
}

// repeatsTheInput: the repeated input is a measured request of the row's join, and where the
// server records input hashes every repeat reached it as that request's bytes.
// firstSight is the Task time of the server's earliest record of the repeated input among the
// row's joined requests (warmup included): the one request of it no cache can have answered.
func firstSight(n evidence.NoCache, pairs []join.Pair) *float64 {
	i := slices.IndexFunc(pairs, func(p join.Pair) bool { return p.ID == n.FirstRequestID })
	if i < 0 || pairs[i].Server.InputSHA256 == "" {
		return nil
	}
	x, first := pairs[i].Server.InputSHA256, pairs[i].Server
	for _, p := range pairs {
		if p.Server.InputSHA256 == x && p.Server.StartUnixNS < first.StartUnixNS {
			first = p.Server
		}
	}
	ms := first.Timing.ModelCallMS
	return &ms
}

func repeatsTheInput(n evidence.NoCache, pairs []join.Pair) []error {
	i := slices.IndexFunc(pairs, func(p join.Pair) bool { return p.ID == n.FirstRequestID })
	if i < 0 || pairs[i].Client.Metadata.Phase != "profiling" {
		return []error{fmt.Errorf("the check repeats the input of %s, which is no measured request of the row's join", n.FirstRequestID)}
	}
	var errs []error
	x := pairs[i].Server.InputSHA256
	for _, r := range n.Repeats {
		if x != "" && r.InputSHA256 != "" && r.InputSHA256 != x {
			errs = append(errs, fmt.Errorf("repeat %s reached the server as input %s, not the input of %s (%s)", r.RequestID, r.InputSHA256, n.FirstRequestID, x))
		}
	}
	return errs
}
