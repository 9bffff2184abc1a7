package verify

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
)

// copyToleranceNS is how close every matched pair of latencies of two AIPerf runs must be for
// one run to be a copy of the other (sameShape). Honest runs differ far more: over the 150 pairs
// of equally long runs of a full reference run (825 matched latencies of 0.2 to 6 s requests),
// the smallest difference was 57 µs and three were under 200 µs, so a matched difference falls
// under 50 µs with probability p < 1e-3, and a false alarm needs all n of a pair's: p^n, under
// 1e-6 for the shortest runs (n = 2) and 1e-21 at n = 7, per pair of runs.
const copyToleranceNS = 50_000

// duplicateRunsCheck: no AIPerf run of the run is a copy of another under fresh request ids
// (sameShape), within a row or across rows.
func duplicateRunsCheck(r *Run) []Problem {
	return problemsFrom(func(report reporter) {
		var runs []runShape
		for _, row := range r.Rows {
			if row.Result.AIPerf == nil || row.Result.AIPerf.Dir == "" {
				continue
			}
			shapes, err := runShapes(r.Dir, row.Result.AIPerf.Dir)
			if err != nil {
				continue // servedCheck names an unreadable export
			}
			runs = append(runs, shapes...)
		}
		for i, a := range runs {
			for _, b := range runs[i+1:] {
				if sameShape(a.latencies, b.latencies) {
					report(b.where, "its %d measured requests took the same times as %s's, each within %d µs once sorted: a copy of that run under other request ids, not a run of its own",
						len(b.latencies), a.where, copyToleranceNS/1000)
				}
			}
		}
	})
}

// runShape is one AIPerf run's measured latencies (request_end_ns − request_start_ns), sorted.
type runShape struct {
	where     string
	latencies []int64
}

// sameShape says whether two runs' sorted latencies agree one for one within copyToleranceNS.
// Sorting makes the test blind to the order and the ids of the requests: a copy with its
// requests renamed, reordered, shifted in time as a whole or jittered by a few microseconds
// still matches; two honest runs differ by far more than the tolerance somewhere (the
// copyToleranceNS argument). Fewer than two requests prove nothing either way.
func sameShape(a, b []int64) bool {
	if len(a) != len(b) || len(a) < 2 {
		return false
	}
	for i := range a {
		if d := a[i] - b[i]; d > copyToleranceNS || d < -copyToleranceNS {
			return false
		}
	}
	return true
}

// runShapes reads the measured latencies of each AIPerf run of an artifact directory from
// profile_export.jsonl (whose timestamps exportsAgreeCheck ties to the raw export's).
func runShapes(runDir, aiperfDir string) ([]runShape, error) {
	var out []runShape
	for _, d := range artifactRunDirs(runDir, aiperfDir) {
		path := filepath.Join(d, "profile_export.jsonl")
		data, err := runfile.ReadFile(path)
		if err != nil {
			return nil, err
		}
		lat, err := measuredLatencies(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", relTo(runDir, path), err)
		}
		slices.Sort(lat)
		out = append(out, runShape{where: relTo(runDir, d), latencies: lat})
	}
	return out, nil
}

func measuredLatencies(data []byte) ([]int64, error) {
	var out []int64
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var m aiperfexport.MetricRecord
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			return nil, err
		}
		if m.Metadata.Phase == aiperfexport.PhaseProfiling {
			out = append(out, m.Metadata.RequestEndNS-m.Metadata.RequestStartNS)
		}
	}
	return out, sc.Err()
}
