package verify

import (
	"errors"
	"io/fs"
	"path"
	"regexp"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
)

// loadedBundleLine is the reference server's log line for each bundle it loads (server.go's
// `loaded bundle` with its sha256, in slog's text form).
var loadedBundleLine = regexp.MustCompile(`msg="loaded bundle" .*\bsha256=([0-9a-f]{64})\b`)

// serverLogBundleCheck: the reference server logs the sha256 of every bundle it loads, and the
// suite keeps that log beside the row's records (server.log). The bundle a row says it served
// is the one its server loaded: a stored bundle swapped for another (a smaller checkpoint's,
// its header relabelled) with every hash in the evidence and records updated leaves the log's.
func serverLogBundleCheck(r *Run) []Problem {
	return r.eachRow(func(row *Row, report reporter) {
		res := row.Result
		if !kindOf(row.Stage.TargetKind).Embedded() || res.Bundle.SHA256Served == "" || res.Records == "" {
			return
		}
		rel := path.Join(path.Dir(res.Records), "server.log")
		data, err := runfile.ReadIn(r.Dir, rel)
		if errors.Is(err, fs.ErrNotExist) {
			if res.Status == evidence.StatusQualified {
				report(rel, "missing: the row's server logs the sha256 of the bundle it loaded there, the second copy of the served bundle's hash")
			}
			return
		}
		if err != nil {
			report(rel, "%v", err)
			return
		}
		checkLoadedBundles(rel, string(data), res.Bundle.SHA256Served, report)
	})
}

// checkLoadedBundles requires the log to load a bundle, each of them the served one.
func checkLoadedBundles(rel, log, served string, report reporter) {
	loaded := loadedBundleLine.FindAllStringSubmatch(log, -1)
	if len(loaded) == 0 {
		report(rel, "the server logged no loaded bundle; the row says it served bundle %s", served)
	}
	for _, m := range loaded {
		if m[1] != served {
			report(rel, "the server loaded bundle %s; the row says it served bundle %s", m[1], served)
			return
		}
	}
}
