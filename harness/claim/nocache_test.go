package claim

import (
	"fmt"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/nocache"
)

// honestCheck is a row whose judged no-caching check has k repeats and k fresh variants with
// Task times around 100 ms, and the server records it kept.
func honestCheck() (*evidence.NoCache, []contract.Record) {
	n := &evidence.NoCache{Input: "clip-1", FirstRequestID: "req-1", Output: "hello", Variant: "lsb", Concurrency: 2, Records: "row/nocache-records.jsonl"}
	n.K = nocache.K(n.Concurrency)
	var recs []contract.Record
	for i := 0; i < n.K; i++ {
		rep := evidence.NoCacheRequest{RequestID: fmt.Sprintf("rep-%d", i), Status: 200, TaskMS: 100 + float64(i%5), InputSHA256: "aa", Output: "hello"}
		fresh := evidence.NoCacheRequest{RequestID: fmt.Sprintf("fresh-%d", i), Status: 200, TaskMS: 101 + float64(i%4), InputSHA256: fmt.Sprintf("f%d", i)}
		n.Repeats, n.Fresh = append(n.Repeats, rep), append(n.Fresh, fresh)
		for _, q := range []evidence.NoCacheRequest{rep, fresh} {
			rec := contract.Record{RequestID: q.RequestID, Status: q.Status, InputSHA256: q.InputSHA256}
			rec.Timing.ModelCallMS = q.TaskMS
			recs = append(recs, rec)
		}
	}
	native := 120.0
	n.NativeTaskMS = &native
	nocache.Judge(n)
	return n, recs
}

func noCacheFindings(n *evidence.NoCache, recs []contract.Record) []string {
	return NoCache().Check(&Artifacts{Row: evidence.Result{NoCache: n}, NoCacheRecords: recs, NoCacheFile: n.Records})
}

func TestAnHonestNoCachingCheckIsJudgedTheSameAgain(t *testing.T) {
	n, recs := honestCheck()
	if !n.Passed {
		t.Fatalf("the honest check failed: %v", n.Failures)
	}
	if got := noCacheFindings(n, recs); len(got) != 0 {
		t.Fatalf("findings on an untouched check: %v", got)
	}
}

// The suite's path (Apply) stores exactly what verify's path (Check) derives again.
func TestApplyStoresWhatCheckDerives(t *testing.T) {
	n, recs := honestCheck()
	unjudged := &evidence.NoCache{Input: n.Input, FirstRequestID: n.FirstRequestID, Output: n.Output, Variant: n.Variant,
		Concurrency: n.Concurrency, Repeats: n.Repeats, Fresh: n.Fresh, NativeTaskMS: n.NativeTaskMS, Records: n.Records}
	a := &Artifacts{Row: evidence.Result{NoCache: unjudged}, NoCacheRecords: recs, NoCacheFile: n.Records}
	var r evidence.Result
	if err := NoCache().Apply(a, &r); err != nil {
		t.Fatal(err)
	}
	if diff := Differences(r.NoCache, n); len(diff) > 0 {
		t.Fatalf("stored record differs from the judged check: %s", diff)
	}
	if got := NoCache().Check(&Artifacts{Row: r, NoCacheRecords: recs, NoCacheFile: n.Records}); len(got) != 0 {
		t.Fatalf("verify's path finds %v in what the suite's path stored", got)
	}
}

func TestForgedNoCachingChecksAreFound(t *testing.T) {
	cases := []struct {
		name string
		edit func(n *evidence.NoCache, recs *[]contract.Record)
		want string
	}{
		{"repeats cut to 1% in evidence and records, verdict kept", func(n *evidence.NoCache, recs *[]contract.Record) {
			for i := range n.Repeats {
				n.Repeats[i].TaskMS /= 100
			}
			for i := range *recs {
				if strings.HasPrefix((*recs)[i].RequestID, "rep-") {
					(*recs)[i].Timing.ModelCallMS /= 100
				}
			}
		}, "may cache results"},
		{"a repeat's Task time edited in the evidence only", func(n *evidence.NoCache, recs *[]contract.Record) { n.Repeats[3].TaskMS = 50 }, "its record says"},
		{"a record deleted", func(n *evidence.NoCache, recs *[]contract.Record) { *recs = (*recs)[1:] }, "has 0 records"},
		{"a record duplicated", func(n *evidence.NoCache, recs *[]contract.Record) { *recs = append(*recs, (*recs)[0]) }, "has 2 records"},
		{"a stray record", func(n *evidence.NoCache, recs *[]contract.Record) {
			*recs = append(*recs, contract.Record{RequestID: "other", Status: 200})
		}, "none of the check's requests"},
		{"the margin widened in the evidence", func(n *evidence.NoCache, recs *[]contract.Record) { n.Margin = 0.9 }, ".margin"},
		{"k restated", func(n *evidence.NoCache, recs *[]contract.Record) { n.K = 3 }, ".k:"},
		{"a fresh variant dropped with its record", func(n *evidence.NoCache, recs *[]contract.Record) {
			n.Fresh = n.Fresh[1:]
			*recs = append((*recs)[:1], (*recs)[2:]...) // fresh-0 is the second record
		}, "the rule sends k"},
		{"the median restated", func(n *evidence.NoCache, recs *[]contract.Record) { n.FreshMedianMS = 200 }, "fresh_median_model_call_ms"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n, recs := honestCheck()
			n.Repeats = append([]evidence.NoCacheRequest(nil), n.Repeats...)
			tc.edit(n, &recs)
			got := strings.Join(noCacheFindings(n, recs), "\n")
			if !strings.Contains(got, tc.want) {
				t.Fatalf("want a finding with %q, got:\n%s", tc.want, got)
			}
		})
	}
}

// The repeats must be the input the check names: a measured request of the join, whose record's
// input hash every repeat carries.
func TestNoCacheRepeatsAreTheNamedInput(t *testing.T) {
	pair := func(id, phase, sha string) join.Pair {
		var p join.Pair
		p.ID, p.Client.Metadata.Phase, p.Server.InputSHA256 = id, phase, sha
		return p
	}
	pairs := []join.Pair{pair("w", "warmup", "ww"), pair("x", "profiling", "xx")}
	check := func(first string, repeatSHA ...string) evidence.NoCache {
		n := evidence.NoCache{FirstRequestID: first}
		for _, s := range repeatSHA {
			n.Repeats = append(n.Repeats, evidence.NoCacheRequest{RequestID: "rep-" + s, InputSHA256: s})
		}
		return n
	}
	for _, tc := range []struct {
		name string
		n    evidence.NoCache
		want string
	}{
		{"the input of a measured request", check("x", "xx", "xx"), ""},
		{"a warmup request", check("w", "ww"), "no measured request"},
		{"an unknown request", check("nope", "xx"), "no measured request"},
		{"a repeat of another input", check("x", "xx", "yy"), "not the input of x"},
	} {
		all := fmt.Sprint(repeatsTheInput(tc.n, pairs))
		if errs := repeatsTheInput(tc.n, pairs); (tc.want == "") != (len(errs) == 0) || !strings.Contains(all, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, all, tc.want)
		}
	}
}

// stubTarget is a target kind's traits as the claims read them.
type stubTarget struct{ omits, spans bool }

func (s stubTarget) RecordsOmitInputFields() bool { return s.omits }
func (s stubTarget) RecordsCarrySpans() bool      { return s.spans }

// TestNoCacheRecordsAreTheRowsServers attacks each rule of noCacheServer and freshInputs with one
// field of an honest record changed (or one fresh variant's input), and requires the honest
// check to pass; a target whose records omit model, bundle and span (TRTMC's) is held to the rest.
func TestNoCacheRecordsAreTheRowsServers(t *testing.T) {
	const route, x = "/v1/audio/transcriptions", "xxxx"
	row := func(target Target) (*Artifacts, *evidence.NoCache) {
		n := &evidence.NoCache{Records: "asr/p/nocache-records.jsonl",
			Repeats: []evidence.NoCacheRequest{{RequestID: "r1", InputSHA256: x}},
			Fresh:   []evidence.NoCacheRequest{{RequestID: "f1", InputSHA256: "f1"}, {RequestID: "f2", InputSHA256: "f2"}}}
		a := &Artifacts{Row: evidence.Result{Profile: "p", Bundle: evidence.Bundle{SHA256Served: "b"}, NoCache: n},
			Given: Given{Route: route, Target: target},
			Join:  join.Report{Pairs: []join.Pair{{ID: "a", Server: contract.Record{EndUnixNS: 1000}}}}}
		for _, id := range []string{"r1", "f1", "f2"} {
			a.NoCacheRecords = append(a.NoCacheRecords, contract.Record{RequestID: id, Route: route, Model: "p", BundleSHA256: "b",
				StartUnixNS: 2000, EndUnixNS: 2000 + 5e6, Timing: contract.Timing{ModelCallMS: 4, HandlerMS: 4.5}})
		}
		return a, n
	}
	run := func(a *Artifacts, n *evidence.NoCache) []string {
		var got []string
		for _, err := range append(a.noCacheServer(*n), freshInputs(*n)...) {
			got = append(got, err.Error())
		}
		return got
	}
	reference := stubTarget{spans: true}
	if a, n := row(reference); len(run(a, n)) != 0 {
		t.Fatalf("the honest check refused: %v", run(a, n))
	}
	for _, c := range []struct {
		name, want string
		edit       func(a *Artifacts, n *evidence.NoCache)
	}{
		{"another route", "is for route", func(a *Artifacts, _ *evidence.NoCache) { a.NoCacheRecords[0].Route = "/v1/images/generations" }},
		{"another model", "names model", func(a *Artifacts, _ *evidence.NoCache) { a.NoCacheRecords[1].Model = "q" }},
		{"no model on a reference record", "names model", func(a *Artifacts, _ *evidence.NoCache) { a.NoCacheRecords[1].Model = "" }},
		{"another bundle", "served by bundle", func(a *Artifacts, _ *evidence.NoCache) { a.NoCacheRecords[2].BundleSHA256 = "c" }},
		{"a Task longer than its handler", "a Task time lies within", func(a *Artifacts, _ *evidence.NoCache) { a.NoCacheRecords[0].Timing.ModelCallMS = 5 }},
		{"a handler longer than its span", "a handler time lies within the request's own span", func(a *Artifacts, _ *evidence.NoCache) { a.NoCacheRecords[0].Timing.HandlerMS = 6 }},
		{"started during the AIPerf run", "started before the row's last AIPerf request ended", func(a *Artifacts, _ *evidence.NoCache) { a.NoCacheRecords[1].StartUnixNS = 999 }},
		{"a fresh variant that is the repeated input", "a fresh variant is an input", func(_ *Artifacts, n *evidence.NoCache) { n.Fresh[0].InputSHA256 = x }},
		{"two fresh variants of one input", "a fresh variant is an input", func(_ *Artifacts, n *evidence.NoCache) { n.Fresh[1].InputSHA256 = "f1" }},
	} {
		a, n := row(reference)
		c.edit(a, n)
		got := run(a, n)
		if len(got) != 1 || !strings.Contains(got[0], c.want) || !strings.HasPrefix(got[0], n.Records+": ") {
			t.Errorf("%s: %v, want one problem in %s saying %q", c.name, got, n.Records, c.want)
		}
	}
	a, n := row(stubTarget{omits: true})
	a.NoCacheRecords[0].Model, a.NoCacheRecords[0].BundleSHA256 = "", ""
	for i := range a.NoCacheRecords { // TRTMC's app records no span (app.py @1797a247 execute)
		a.NoCacheRecords[i].StartUnixNS, a.NoCacheRecords[i].EndUnixNS = 0, 0
	}
	if got := run(a, n); len(got) != 0 {
		t.Errorf("a TRTMC record without model, bundle and span: %v", got)
	}
	a.NoCacheRecords[0].Timing.ModelCallMS = 5
	if got := run(a, n); len(got) != 1 || !strings.Contains(got[0], "a Task time lies within its handler's") {
		t.Errorf("a TRTMC record's Task longer than its handler: %v", got)
	}
}
