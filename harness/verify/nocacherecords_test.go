package verify

import (
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
)

// TestNoCacheRecordsAreTheRowsServers attacks each rule of checkNoCacheRecords with one field of
// an honest record changed (or one fresh variant's input), and requires the honest check to pass.
func TestNoCacheRecordsAreTheRowsServers(t *testing.T) {
	const route, x = "/v1/audio/transcriptions", "xxxx"
	row := func() (*Row, []contract.Record) {
		n := &evidence.NoCache{Records: "asr/p/nocache-records.jsonl",
			Repeats: []evidence.NoCacheRequest{{RequestID: "r1", InputSHA256: x}},
			Fresh:   []evidence.NoCacheRequest{{RequestID: "f1", InputSHA256: "f1"}, {RequestID: "f2", InputSHA256: "f2"}}}
		r := &Row{Where: "asr/p", Result: evidence.Result{Profile: "p", Bundle: evidence.Bundle{SHA256Served: "b"},
			Join: &evidence.Join{Route: route}, NoCache: n},
			Pairs: []join.Pair{{ID: "a", Server: contract.Record{EndUnixNS: 1000}}}}
		var recs []contract.Record
		for _, id := range []string{"r1", "f1", "f2"} {
			recs = append(recs, contract.Record{RequestID: id, Route: route, Model: "p", BundleSHA256: "b",
				StartUnixNS: 2000, EndUnixNS: 2000 + 5e6, Timing: contract.Timing{ModelCallMS: 4, HandlerMS: 4.5}})
		}
		return r, recs
	}
	run := func(r *Row, recs []contract.Record, mayOmit bool) []string {
		var got []string
		checkNoCacheRecords(r, mayOmit, !mayOmit, recs, func(where, format string, args ...any) { got = append(got, where+": "+format) })
		return got
	}
	if r, recs := row(); len(run(r, recs, false)) != 0 {
		t.Fatalf("the honest check refused: %v", run(r, recs, false))
	}
	for _, c := range []struct {
		name, want string
		edit       func(r *Row, recs []contract.Record)
	}{
		{"another route", "is for route", func(_ *Row, recs []contract.Record) { recs[0].Route = "/v1/images/generations" }},
		{"another model", "names model", func(_ *Row, recs []contract.Record) { recs[1].Model = "q" }},
		{"no model on a reference record", "names model", func(_ *Row, recs []contract.Record) { recs[1].Model = "" }},
		{"another bundle", "served by bundle", func(_ *Row, recs []contract.Record) { recs[2].BundleSHA256 = "c" }},
		{"a Task longer than its handler", "a Task time lies within", func(_ *Row, recs []contract.Record) { recs[0].Timing.ModelCallMS = 5 }},
		{"a handler longer than its span", "a handler time lies within the request's own span", func(_ *Row, recs []contract.Record) { recs[0].Timing.HandlerMS = 6 }},
		{"started during the AIPerf run", "started before the row's last AIPerf request ended", func(_ *Row, recs []contract.Record) { recs[1].StartUnixNS = 999 }},
		{"a fresh variant that is the repeated input", "a fresh variant is an input", func(r *Row, _ []contract.Record) { r.Result.NoCache.Fresh[0].InputSHA256 = x }},
		{"two fresh variants of one input", "a fresh variant is an input", func(r *Row, _ []contract.Record) { r.Result.NoCache.Fresh[1].InputSHA256 = "f1" }},
	} {
		r, recs := row()
		c.edit(r, recs)
		got := run(r, recs, false)
		if len(got) != 1 || !strings.Contains(got[0], c.want) {
			t.Errorf("%s: %v, want one problem saying %q", c.name, got, c.want)
		}
	}
	r, recs := row()
	recs[0].Model, recs[0].BundleSHA256 = "", ""
	for i := range recs { // TRTMC's app records no span (app.py @1797a247 execute)
		recs[i].StartUnixNS, recs[i].EndUnixNS = 0, 0
	}
	if got := run(r, recs, true); len(got) != 0 {
		t.Errorf("a TRTMC record without model, bundle and span: %v", got)
	}
	recs[0].Timing.ModelCallMS = 5
	if got := run(r, recs, true); len(got) != 1 || !strings.Contains(got[0], "a Task time lies within its handler's") {
		t.Errorf("a TRTMC record's Task longer than its handler: %v", got)
	}
}
