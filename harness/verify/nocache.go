package verify

import (
	"os"
	"path/filepath"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
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
		if len(row.Pairs) > 0 && !measuredRequest(row, n.FirstRequestID) {
			report(row.Where, "no-caching check repeats the input of %s, which is no measured request of the row's join", n.FirstRequestID)
		}
		data, err := os.ReadFile(filepath.Join(r.Dir, n.Records))
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

// measuredRequest says whether id is a measured (profiling) request of the row's recomputed join.
func measuredRequest(row *Row, id string) bool {
	for _, p := range row.Pairs {
		if p.ID == id {
			return p.Client.Metadata.Phase == "profiling"
		}
	}
	return false
}
