package verify

import (
	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/harness/claim"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// servedCheck re-checks, for each row that served AIPerf's requests, every copy of a request's
// data against the row's loaded artifacts (the join, the outputs' identity, their meaning, the
// timing and the statistics are claims: claimsCheck).
func servedCheck(r *Run) []Problem {
	return r.eachRow(func(row *Row, report reporter) {
		if row.Result.AIPerf != nil && row.Result.Join != nil && row.Artifacts.Served() {
			checkServed(r.Dir, row.Where, row.Result, row.Artifacts, report)
		}
	})
}

// checkServed re-checks every copy of a request's data: the AIPerf records against the server
// records, the aggregate export, and each copy kept (copies.go).
func checkServed(runDir, where string, r evidence.Result, a *claim.Artifacts, report func(string, string, ...any)) {
	checkRequests(where, r, aiperfexport.Merge(r.AIPerf.Dir, a.Runs), a.Records, report)
	checkAggregate(runDir, where, r, report)
	checkCopies(runDir, where, r, a.Runs, a.Join, report)
}
