package verify

import (
	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
)

// noCacheRecordsCheck ties the no-caching check's kept records to the row they claim to be
// from (checkNoCacheRecords); noCacheCheck judges the figures again from the same records.
func noCacheRecordsCheck(r *Run) []Problem {
	return r.eachRow(func(row *Row, report reporter) {
		n := row.Result.NoCache
		if n == nil || n.Records == "" || len(row.Pairs) == 0 {
			return // noCacheCheck names a check without readable records
		}
		data, err := runfile.ReadIn(r.Dir, n.Records)
		if err != nil {
			return
		}
		records, err := contract.ParseRecords(data)
		if err != nil {
			return
		}
		kind := kindOf(row.Stage.TargetKind)
		checkNoCacheRecords(row, kind.RecordsOmitInputFields(), kind.RecordsCarrySpans(), records, report)
	})
}

// checkNoCacheRecords: every record of the check is a request the row's own server answered
// after the row's AIPerf runs (the check runs on the warm server once they are done): the row's
// route, model and served bundle (a reference server records both; a TRTMC record may omit
// them), a Task time inside its handler time inside its own wall-clock span, and a start after
// the last joined request ended. The fresh variants are fresh: no two share an input, and none
// is the repeated input. A check fabricated from another row's records, or from times no
// request of this server could have taken, fails one of these.
func checkNoCacheRecords(row *Row, mayOmit, spans bool, records []contract.Record, report reporter) {
	r, n := row.Result, row.Result.NoCache
	var lastEnd int64
	for _, p := range row.Pairs {
		lastEnd = max(lastEnd, p.Server.EndUnixNS)
	}
	for _, rec := range records {
		where := n.Records
		if rec.Route != r.Join.Route {
			report(where, "no-caching record %s is for route %s, the row's requests for %s", rec.RequestID, rec.Route, r.Join.Route)
		}
		if (rec.Model != "" || !mayOmit) && rec.Model != r.Profile {
			report(where, "no-caching record %s names model %q, not the row's %s", rec.RequestID, rec.Model, r.Profile)
		}
		if (rec.BundleSHA256 != "" || !mayOmit) && rec.BundleSHA256 != r.Bundle.SHA256Served {
			report(where, "no-caching record %s was served by bundle %s, not the row's served bundle %s", rec.RequestID, rec.BundleSHA256, r.Bundle.SHA256Served)
		}
		if rec.Timing.ModelCallMS > rec.Timing.HandlerMS {
			report(where, "no-caching record %s: Task %v ms, handler %v ms: a Task time lies within its handler's", rec.RequestID, rec.Timing.ModelCallMS, rec.Timing.HandlerMS)
		}
		if !spans { // the target's records carry no span (TRTMC's app)
			continue
		}
		wallMS := float64(rec.EndUnixNS-rec.StartUnixNS) / 1e6
		if rec.Timing.HandlerMS > wallMS+1e-3 {
			report(where, "no-caching record %s: Task %v ms, handler %v ms, wall %v ms: a handler time lies within the request's own span", rec.RequestID, rec.Timing.ModelCallMS, rec.Timing.HandlerMS, wallMS)
		}
		if rec.StartUnixNS < lastEnd {
			report(where, "no-caching record %s started before the row's last AIPerf request ended: the check runs on the warm server after AIPerf", rec.RequestID)
		}
	}
	checkFresh(n, report)
}

// checkFresh: the fresh variants' inputs differ from each other and from the repeated one.
func checkFresh(n *evidence.NoCache, report reporter) {
	seen := map[string]string{}
	for _, q := range n.Repeats {
		if q.InputSHA256 != "" {
			seen[q.InputSHA256] = "the repeated input"
		}
	}
	for _, q := range n.Fresh {
		if q.InputSHA256 == "" {
			continue
		}
		if prev, dup := seen[q.InputSHA256]; dup {
			report(n.Records, "no-caching fresh variant %s reached the server as input %s, as did %s: a fresh variant is an input the server has not seen", q.RequestID, q.InputSHA256, prev)
		}
		seen[q.InputSHA256] = q.RequestID
	}
}
