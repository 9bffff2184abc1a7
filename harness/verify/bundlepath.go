package verify

import "github.com/trtmc-qual/trtmc-qual/harness/evidence"

// bundlePathCheck: a row that built or gated a bundle names it in the run. The stored bundle is
// what ties the recorded hashes to the model that ran; a row with bundle.path emptied would skip
// every bundle check (a run published without its bundles keeps the path: --without-bundles).
func bundlePathCheck(r *Run) []Problem {
	return r.eachRow(func(row *Row, report reporter) { checkBundlePath(row.Where, row.Result, report) })
}

func checkBundlePath(where string, r evidence.Result, report reporter) {
	if r.Bundle.Path != "" || (r.Bundle.SHA256Built == "" && r.Gate == nil) {
		return
	}
	report(where, "bundle.path is empty, but the row records a built bundle (sha256 %q) or a gate: the stored bundle must be in the run (one published without its bundles keeps bundle.path; qual verify --without-bundles)", r.Bundle.SHA256Built)
}
