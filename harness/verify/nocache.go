package verify

import (
	"slices"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
	"github.com/trtmc-qual/trtmc-qual/harness/verify/derived"
)

// noCacheCheck judges each row's no-caching check again from the server records it kept, and
// ties the check's repeated input to a measured request of the row's own join.
func noCacheCheck(r *Run) []Problem {
	return r.eachRow(func(row *Row, report reporter) {
		n := row.Result.NoCache
		if n == nil {
			return
		}
		if len(row.Pairs) > 0 {
			checkRepeatedInput(row, report)
		}
		data, err := runfile.ReadIn(r.Dir, n.Records)
		if n.Records == "" || err != nil {
			report(row.Where, "no-caching records %q not readable: %v", n.Records, err)
			return
		}
		records, err := contract.ParseRecords(data)
		if err != nil {
			report(row.Where, "no-caching records: %v", err)
			return
		}
		derived.NoCache(row.Where, *n, records, derived.Report(report))
	})
}

// checkRepeatedInput ties the check's repeats to the input it names: X is a measured request of
// the row's recomputed join, and where the server records input hashes every repeat reached it
// as X's bytes.
func checkRepeatedInput(row *Row, report reporter) {
	n := row.Result.NoCache
	i := slices.IndexFunc(row.Pairs, func(p join.Pair) bool { return p.ID == n.FirstRequestID })
	if i < 0 || row.Pairs[i].Client.Metadata.Phase != "profiling" {
		report(row.Where, "no-caching check repeats the input of %s, which is no measured request of the row's join", n.FirstRequestID)
		return
	}
	x := row.Pairs[i].Server.InputSHA256
	for _, r := range n.Repeats {
		if x != "" && r.InputSHA256 != "" && r.InputSHA256 != x {
			report(row.Where, "no-caching repeat %s reached the server as input %s, not the input of %s (%s)", r.RequestID, r.InputSHA256, n.FirstRequestID, x)
		}
	}
}
