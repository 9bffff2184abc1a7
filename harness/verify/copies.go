package verify

import (
	"encoding/json"
	"math"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// The copies checks: a run holds each primary datum several times (AIPerf's per-request
// exports, its own summary, the server records, the response bodies, the payloads AIPerf sent).
// A forger who edits one copy and re-derives the figures from it leaves the others behind;
// each check here names the file and the copies that disagree.

// latencyTolerance is how far AIPerf's request_latency may be from its own request_end_ns −
// request_start_ns: both are the last response's perf counter minus the request's
// (aiperf 0.13.0 record_processor_service._create_metric_record_metadata and
// metrics/types/request_latency_metric.py), so only the ms/ns conversion differs.
const latencyTolerance = 1e-3 // ms

// checkCopies compares the copies of a served row's requests (timing, identity, audio, bundle,
// client version) with each other.
func checkCopies(runDir, where string, r evidence.Result, runs []aiperfexport.Exports, rep join.Report, report reporter) {
	checkLatencyWindows(where, r, runs, report)
	checkSummaryLatency(runDir, where, r, runs, report)
	checkInFlight(where, r, runs, report)
	checkCoverage(where, r, rep, report)
	checkCommandFile(runDir, r, report)
	for _, p := range rep.Pairs {
		checkBodyTiming(r.Records, p, report)
		checkRecordBundle(r.Records, r, p, report)
		checkUserAgent(r.AIPerf.Dir, r, p, report)
	}
}

// checkLatencyWindows: every request_latency in profile_export.jsonl is its own
// request_end_ns − request_start_ns.
func checkLatencyWindows(where string, r evidence.Result, runs []aiperfexport.Exports, report reporter) {
	for _, run := range runs {
		for _, m := range run.Metrics {
			lat, ok := m.LatencyMS()
			if !ok || m.Metadata.RequestEndNS == 0 {
				continue
			}
			window := float64(m.Metadata.RequestEndNS-m.Metadata.RequestStartNS) / 1e6
			if math.Abs(lat-window) > latencyTolerance {
				report(rel(r.AIPerf.Dir, run.Dir, "profile_export.jsonl"), "request %s: request_latency %.3f ms, but its request_end_ns − request_start_ns is %.3f ms", m.Metadata.XRequestID, lat, window)
			}
		}
	}
}

// checkSummaryLatency: AIPerf's own summary of each run (profile_export_aiperf.json) states the
// mean, minimum and maximum request_latency of that run's measured requests; they are the
// per-request exports'. Its aiperf_version is the one the evidence records.
func checkSummaryLatency(runDir, where string, r evidence.Result, runs []aiperfexport.Exports, report reporter) {
	if r.Status == evidence.StatusFailed {
		return // AIPerf summarizes completed requests only: a failed row's differs by design
	}
	for _, run := range runs {
		var lat []float64
		for _, m := range run.Metrics {
			if v, ok := m.LatencyMS(); ok && m.Metadata.Phase == aiperfexport.PhaseProfiling {
				lat = append(lat, v)
			}
		}
		if len(lat) == 0 {
			continue
		}
		file := rel(r.AIPerf.Dir, run.Dir, "profile_export_aiperf.json")
		data, err := runfile.ReadFile(filepath.Join(run.Dir, "profile_export_aiperf.json"))
		if err != nil {
			continue // checkAggregate reports a missing summary
		}
		var agg struct {
			Version string `json:"aiperf_version"`
			Latency *struct {
				Unit string   `json:"unit"`
				Avg  *float64 `json:"avg"`
				Min  *float64 `json:"min"`
				Max  *float64 `json:"max"`
			} `json:"request_latency"`
		}
		if err := json.Unmarshal(data, &agg); err == nil && agg.Version != "" && agg.Version != r.AIPerf.Version {
			report(file, "AIPerf's summary was written by aiperf %s, but the evidence records aiperf %s", agg.Version, r.AIPerf.Version)
		}
		if err := json.Unmarshal(data, &agg); err != nil || agg.Latency == nil || agg.Latency.Avg == nil || agg.Latency.Min == nil || agg.Latency.Max == nil {
			report(file, "AIPerf's summary has no request_latency avg/min/max to compare with the per-request exports (%v)", err)
			continue
		}
		scale := map[string]float64{"ms": 1, "": 1, "ns": 1e-6, "s": 1e3, "sec": 1e3}[agg.Latency.Unit]
		sort.Float64s(lat)
		sum := 0.0
		for _, v := range lat {
			sum += v
		}
		for _, c := range []struct {
			name       string
			summary, x float64
		}{{"avg", *agg.Latency.Avg, sum / float64(len(lat))}, {"min", *agg.Latency.Min, lat[0]}, {"max", *agg.Latency.Max, lat[len(lat)-1]}} {
			if got := c.summary * scale; scale == 0 || math.Abs(got-c.x) > latencyTolerance+1e-9*math.Abs(c.x) {
				report(file, "AIPerf's summary request_latency %s is %v %s; its %d measured requests in profile_export.jsonl give %.3f ms", c.name, c.summary, agg.Latency.Unit, len(lat), c.x)
			}
		}
	}
}

// inFlightTolerance lets a request start this long before the previous one on its slot ended:
// AIPerf stamps starts in the controller's clock and ends by each worker's perf counter.
const inFlightTolerance = 1e6 // ns

// checkInFlight: AIPerf never has more requests in flight than its --concurrency (each slot
// waits for its answer), in any run, warmup included.
func checkInFlight(where string, r evidence.Result, runs []aiperfexport.Exports, report reporter) {
	limit := r.AIPerf.Concurrency
	if c := commandCount(r.AIPerf.Command, "--concurrency"); c > 0 && (limit == 0 || c < limit) {
		limit = c
	}
	if limit <= 0 {
		return
	}
	for _, run := range runs {
		type event struct {
			at    int64
			delta int
		}
		var events []event
		for _, m := range run.Metrics {
			start, end := m.Metadata.RequestStartNS+inFlightTolerance, m.Metadata.RequestEndNS
			if end > start {
				events = append(events, event{start, 1}, event{end, -1})
			}
		}
		sort.Slice(events, func(i, j int) bool {
			return events[i].at < events[j].at || events[i].at == events[j].at && events[i].delta < events[j].delta
		})
		most, now := 0, 0
		for _, e := range events {
			now += e.delta
			most = max(most, now)
		}
		if most > limit {
			report(rel(r.AIPerf.Dir, run.Dir, "profile_export.jsonl"), "%d requests in flight at once, but AIPerf ran at concurrency %d (command %s, evidence %d)", most, limit, strings.Join(r.AIPerf.Command, " "), r.AIPerf.Concurrency)
		}
	}
}

// checkCoverage: the recomputed join's client lines without an id are the evidence's, and a row
// that is not failed has its timing over every measured request of every run (runs × N).
func checkCoverage(where string, r evidence.Result, rep join.Report, report reporter) {
	if len(rep.MissingID) != len(r.Join.MissingID) {
		report(where, "client_lines_without_id recomputed %v from the raw exports, evidence says %v", rep.MissingID, r.Join.MissingID)
	}
	if r.Timing == nil || r.Status == evidence.StatusFailed {
		return
	}
	if want := max(1, r.AIPerf.Runs) * r.AIPerf.Requests; r.Timing.Requests != want {
		report(where, "timing over %d requests, but the row ran %d runs × N=%d = %d measured requests", r.Timing.Requests, max(1, r.AIPerf.Runs), r.AIPerf.Requests, want)
	}
}

// checkBodyTiming: the server writes one trtmc_timing into the response body and the record
// (server/server.go finish); a body that carries it must be the record's.
func checkBodyTiming(records string, p join.Pair, report reporter) {
	var body struct {
		Timing *contract.Timing `json:"trtmc_timing"`
	}
	if json.Unmarshal([]byte(p.Client.ResponseBody()), &body) != nil || body.Timing == nil {
		return
	}
	b, s := *body.Timing, p.Server.Timing
	if !near(b.ModelCallMS, s.ModelCallMS) || !near(b.QueueMS, s.QueueMS) || !near(b.HandlerMS, s.HandlerMS) {
		report(records, "request %s: the record's trtmc_timing %+v is not the response body's %+v (profile_export_raw.jsonl)", p.ID, s, b)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }

// checkRecordBundle: every record that names the bundle it was served from names the row's
// served bundle.
func checkRecordBundle(records string, r evidence.Result, p join.Pair, report reporter) {
	if p.Server.BundleSHA256 != "" && r.Bundle.SHA256Served != "" && p.Server.BundleSHA256 != r.Bundle.SHA256Served {
		report(records, "request %s: served by bundle %s, but the row's served bundle is %s", p.ID, p.Server.BundleSHA256, r.Bundle.SHA256Served)
	}
}

// checkCommandFile: the command.json AIPerf's runner writes beside the artifacts
// (containers/aiperf) records the version, command line and exit code the evidence records.
func checkCommandFile(runDir string, r evidence.Result, report reporter) {
	rel := path.Join(path.Dir(r.AIPerf.Dir), "command.json")
	full, err := workload.InsideDir(runDir, "aiperf.dir", rel)
	if err != nil {
		return
	}
	data, err := runfile.ReadFile(full)
	if err != nil {
		report(rel, "AIPerf's command record: %v", err)
		return
	}
	var c struct {
		Command  []string `json:"command"`
		ExitCode int      `json:"exit_code"`
		Version  string   `json:"aiperf_version"`
	}
	if err := json.Unmarshal(data, &c); err != nil {
		report(rel, "AIPerf's command record: %v", err)
		return
	}
	if c.Version != r.AIPerf.Version || c.ExitCode != r.AIPerf.ExitCode || !slices.Equal(c.Command, r.AIPerf.Command) {
		report(rel, "AIPerf ran as aiperf %s, exit %d, `%s`; the evidence records aiperf %s, exit %d, `%s`",
			c.Version, c.ExitCode, strings.Join(c.Command, " "), r.AIPerf.Version, r.AIPerf.ExitCode, strings.Join(r.AIPerf.Command, " "))
	}
}

// checkUserAgent: AIPerf sends User-Agent aiperf/<version> (aiperf 0.13.0
// transports/base_transports.py); the version the evidence records is that one.
func checkUserAgent(dir string, r evidence.Result, p join.Pair, report reporter) {
	for k, v := range p.Client.RequestHeaders {
		if strings.EqualFold(k, "User-Agent") && strings.HasPrefix(v, "aiperf/") && strings.TrimPrefix(v, "aiperf/") != r.AIPerf.Version {
			report(dir, "request %s was sent by User-Agent %s, but the evidence records aiperf %s", p.ID, v, r.AIPerf.Version)
		}
	}
}

// rel names a file of one AIPerf run directory relative to the run, for messages.
func rel(aiperfDir, runDir, name string) string {
	if i := strings.Index(filepath.ToSlash(runDir), "/"+aiperfexport.RunsDir+"/"); i >= 0 {
		return aiperfDir + filepath.ToSlash(runDir)[i:] + "/" + name
	}
	return aiperfDir + "/" + name
}
