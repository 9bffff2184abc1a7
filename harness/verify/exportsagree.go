package verify

import (
	"encoding/json"
	"math"
	"path/filepath"

	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
)

// durationSlack is how far AIPerf's benchmark_duration may sit from the span of its measured
// requests' timestamps: the two are the same clock readings, rounded apart by at most
// microseconds (a reduced run: 0.1 µs).
const durationSlack = 1e-3 // seconds

// exportsAgreeCheck: AIPerf writes each request's timestamps twice, in the raw export and in the
// per-request metrics export, and the measured window once more as benchmark_duration in its
// summary. Throughput and every rate are derived from the raw timestamps, so all three copies
// must be one: timestamps edited in one export alone, or a window stretched or shrunk, is named.
func exportsAgreeCheck(r *Run) []Problem {
	return r.eachRow(func(row *Row, report reporter) {
		if row.Result.AIPerf == nil || row.Result.Join == nil {
			return
		}
		for _, dir := range artifactRunDirs(r.Dir, row.Result.AIPerf.Dir) {
			exports, err := row.exportsIn(dir)
			if err != nil {
				continue // servedCheck reports unreadable exports
			}
			checkTimestampCopies(relTo(r.Dir, dir), exports, report)
			checkBenchmarkDuration(r.Dir, dir, exports, report)
		}
	})
}

// checkTimestampCopies requires each request's start and end to be the same in both exports.
func checkTimestampCopies(dir string, e aiperfexport.Exports, report reporter) {
	metrics := map[string]aiperfexport.Metadata{}
	for _, m := range e.Metrics {
		metrics[m.Metadata.XRequestID] = m.Metadata
	}
	for _, raw := range e.Raw {
		m, ok := metrics[raw.Metadata.XRequestID]
		if ok && (m.RequestStartNS != raw.Metadata.RequestStartNS || m.RequestEndNS != raw.Metadata.RequestEndNS) {
			report(dir+"/profile_export_raw.jsonl", "request %s: start/end %d/%d ns, but profile_export.jsonl has %d/%d ns for it",
				raw.Metadata.XRequestID, raw.Metadata.RequestStartNS, raw.Metadata.RequestEndNS, m.RequestStartNS, m.RequestEndNS)
		}
	}
}

// checkBenchmarkDuration requires AIPerf's benchmark_duration to be the span of the measured
// requests' raw timestamps.
func checkBenchmarkDuration(runDir, dir string, e aiperfexport.Exports, report reporter) {
	first, last := int64(math.MaxInt64), int64(math.MinInt64)
	for _, raw := range e.Raw {
		if raw.Metadata.Phase == "profiling" {
			first, last = min(first, raw.Metadata.RequestStartNS), max(last, raw.Metadata.RequestEndNS)
		}
	}
	path := filepath.Join(dir, "profile_export_aiperf.json")
	data, err := runfile.ReadFile(path)
	if err != nil || last < first {
		return // checkAggregate reports a missing summary; no measured request, no window
	}
	var agg struct {
		Duration *struct {
			Avg *float64 `json:"avg"`
		} `json:"benchmark_duration"`
	}
	if json.Unmarshal(data, &agg) != nil || agg.Duration == nil || agg.Duration.Avg == nil {
		return // older AIPerf summaries carry no benchmark_duration
	}
	span := float64(last-first) / 1e9
	if math.Abs(*agg.Duration.Avg-span) > durationSlack {
		report(relTo(runDir, path), "AIPerf's benchmark_duration is %.6f s, but its measured requests' raw timestamps span %.6f s", *agg.Duration.Avg, span)
	}
}
