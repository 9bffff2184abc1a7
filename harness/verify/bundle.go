package verify

import "github.com/trtmc-qual/trtmc-qual/harness/evidence"

// bundleCheck: a qualified row built, gated and served one bundle.
func bundleCheck(r *Run) []Problem {
	return r.eachRow(func(row *Row, report reporter) { checkBundle(row.Where, row.Result, report) })
}

func checkBundle(where string, r evidence.Result, report func(string, string, ...any)) {
	b := r.Bundle
	if r.Status == evidence.StatusQualified && (b.SHA256Built == "" || b.SHA256Gated != b.SHA256Built || b.SHA256Served != b.SHA256Built || b.SHA256After != b.SHA256Built) {
		report(where, "bundle sha256 differs between build %s, gate %s, serving %s and after %s", b.SHA256Built, b.SHA256Gated, b.SHA256Served, b.SHA256After)
	}
}
