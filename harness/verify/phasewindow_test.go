package verify

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
)

// windowRequest is one request of a synthetic AIPerf run: the client's window and the server's
// span inside it.
type windowRequest struct {
	id, phase                  string
	start, end                 int64
	serverStart, serverEnd     int64
	dropFromExport, noSpanKept bool
}

// windowRun is one synthetic AIPerf run as AIPerf 0.13.0 writes its windows: the requests, the
// manifest's phases, the summary's start/end time (in zone), the scrape's profiling range.
type windowRun struct {
	requests                 []windowRequest
	phases                   []phaseWindow
	zone                     *time.Location
	summaryStart, summaryEnd int64 // the instants the summary's texts name
	scrapeStart, scrapeEnd   int64
	noManifest               bool
}

// windowRow is a synthetic row of runs that follow one another, generated from r.
func windowRow(r *rand.Rand, runs int) []windowRun {
	zones := []*time.Location{time.UTC, time.FixedZone("IST", 5*3600+1800), time.FixedZone("PST", -8*3600)}
	t := int64(1_796_291_520_000_000_000) + r.Int64N(1e12)
	var out []windowRun
	for k := range runs {
		run := windowRun{zone: zones[r.IntN(len(zones))]}
		for _, phase := range []string{"warmup", "profiling"} {
			start := t + r.Int64N(5e8)
			end := start
			for i := range 1 + r.IntN(6) {
				s := start + 1e6 + r.Int64N(3e8)
				e := s + 2e6 + r.Int64N(4e9)
				ss := s + 1e5 + r.Int64N(1e6)
				se := e - 1e5 - r.Int64N(1e6)
				run.requests = append(run.requests, windowRequest{id: fmt.Sprintf("r%d-%s-%d", k, phase, i), phase: phase,
					start: s, end: e, serverStart: ss, serverEnd: max(se, ss)})
				end = max(end, e+1e6+r.Int64N(1e6))
			}
			n := 0
			for _, q := range run.requests {
				if q.phase == phase {
					n++
				}
			}
			run.phases = append(run.phases, phaseWindow{Kind: phase, StartNS: start, EndNS: end, Total: n})
			t = end
		}
		p := run.phases[1]
		run.summaryStart, run.summaryEnd, run.scrapeStart, run.scrapeEnd = p.StartNS, p.EndNS, p.StartNS, p.EndNS
		out = append(out, run)
		t += r.Int64N(3e9)
	}
	return out
}

// write lays the runs out as a row's AIPerf artifacts and returns the run verify reads.
func writeWindowRow(t *testing.T, runs []windowRun, kind target.Kind, status evidence.Status) *Run {
	t.Helper()
	runDir := t.TempDir()
	aiperfDir := "asr/row/aiperf/artifacts"
	row := &Row{Where: "asr/row", Stage: evidence.Stage{TargetKind: string(kind)},
		Result: evidence.Result{Status: status, Records: "asr/row/server-records.jsonl", AIPerf: &evidence.AIPerfRun{Dir: aiperfDir}}}
	for k, run := range runs {
		dir := filepath.Join(runDir, aiperfDir, aiperfexport.RunsDir, fmt.Sprintf("run_%04d", k+1))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		var raw, metrics strings.Builder
		for _, q := range run.requests {
			md := aiperfexport.Metadata{XRequestID: q.id, Phase: q.phase, RequestStartNS: q.start, RequestEndNS: q.end}
			server := contract.Record{RequestID: q.id, StartUnixNS: q.serverStart, EndUnixNS: q.serverEnd}
			if q.noSpanKept {
				server.StartUnixNS, server.EndUnixNS = 0, 0
			}
			row.Pairs = append(row.Pairs, join.Pair{ID: q.id, Client: aiperfexport.RawRecord{Metadata: md}, Server: server})
			if q.dropFromExport {
				continue
			}
			line, _ := json.Marshal(map[string]any{"metadata": md, "request_headers": map[string]string{"X-Request-ID": q.id}})
			raw.WriteString(string(line) + "\n")
			line, _ = json.Marshal(map[string]any{"metadata": md})
			metrics.WriteString(string(line) + "\n")
		}
		mustWrite(t, filepath.Join(dir, "profile_export_raw.jsonl"), []byte(raw.String()))
		mustWrite(t, filepath.Join(dir, "profile_export.jsonl"), []byte(metrics.String()))
		if !run.noManifest {
			var phases []map[string]any
			for _, p := range run.phases {
				phases = append(phases, map[string]any{"phase_kind": p.Kind, "start_ns": p.StartNS, "end_ns": p.EndNS, "total_request_count": p.Total})
			}
			writeJSON(t, filepath.Join(dir, "phase_manifest.json"), map[string]any{"phases": phases, "schema_version": 1})
		}
		wall := func(ns int64) string {
			return time.Unix(0, ns).In(run.zone).Round(time.Microsecond).Format("2006-01-02T15:04:05.000000")
		}
		writeJSON(t, filepath.Join(dir, "profile_export_aiperf.json"), map[string]any{"start_time": wall(run.summaryStart), "end_time": wall(run.summaryEnd)})
		writeJSON(t, filepath.Join(dir, "server_metrics_export.json"), map[string]any{"summary": map[string]any{
			"phase_time_ranges": map[string]any{"profiling": map[string]any{"start_ns": run.scrapeStart, "end_ns": run.scrapeEnd}}}})
	}
	return &Run{Dir: runDir, Rows: []*Row{row}}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, path, data)
}

// measuredOf is the index of the run's first measured request.
func measuredOf(run windowRun) int {
	for i, q := range run.requests {
		if q.phase == "profiling" {
			return i
		}
	}
	panic("no measured request")
}

// windowEdits are the class of edits to a run's timestamps or windows that leave another copy
// behind; each must be named with the words given.
var windowEdits = []struct {
	name string
	edit func(r *rand.Rand, runs []windowRun)
	want string
}{
	{"a measured request ends after its phase", func(r *rand.Rand, runs []windowRun) {
		run := &runs[r.IntN(len(runs))]
		q := &run.requests[measuredOf(*run)]
		q.end, q.serverEnd = run.phases[1].EndNS+phaseClockSlackNS+1+r.Int64N(1e9), q.serverStart
	}, "outside its profiling phase's window"},
	{"a request starts before its phase", func(r *rand.Rand, runs []windowRun) {
		run := &runs[r.IntN(len(runs))]
		q := &run.requests[r.IntN(len(run.requests))]
		p := run.phases[0]
		if q.phase == "profiling" {
			p = run.phases[1]
		}
		q.start = p.StartNS - phaseClockSlackNS - 1 - r.Int64N(1e9)
	}, "phase's window"},
	{"a measured request deleted from the exports, its phase's count left", func(r *rand.Rand, runs []windowRun) {
		run := &runs[r.IntN(len(runs))]
		run.requests[measuredOf(*run)].dropFromExport = true
	}, "the profiling phase counts"},
	{"the summary's start_time moved by less than a zone step", func(r *rand.Rand, runs []windowRun) {
		runs[r.IntN(len(runs))].summaryStart += 2000 + r.Int64N(int64(zoneStep)-4000)
	}, "start_time"},
	{"the summary's end_time moved", func(r *rand.Rand, runs []windowRun) {
		runs[r.IntN(len(runs))].summaryEnd -= 2000 + r.Int64N(1e10)
	}, "end_time"},
	{"the scrape's profiling range moved", func(r *rand.Rand, runs []windowRun) {
		run := &runs[r.IntN(len(runs))]
		d := 1 + r.Int64N(1e9)
		run.scrapeStart, run.scrapeEnd = run.scrapeStart+d, run.scrapeEnd+d
	}, "its profiling range"},
	{"a server record's span moved outside its request", func(r *rand.Rand, runs []windowRun) {
		run := &runs[r.IntN(len(runs))]
		q := &run.requests[r.IntN(len(run.requests))]
		d := q.end - q.serverEnd + 1 + r.Int64N(1e6)
		q.serverStart, q.serverEnd = q.serverStart+d, q.serverEnd+d
	}, "outside AIPerf's request"},
	{"a request's latency cut below the server's span", func(r *rand.Rand, runs []windowRun) {
		run := &runs[r.IntN(len(runs))]
		q := &run.requests[r.IntN(len(run.requests))]
		q.end = q.serverEnd - 1 - r.Int64N(q.serverEnd-q.serverStart)
	}, "outside AIPerf's request"},
	{"a run moved into its predecessor's slot with its windows", func(r *rand.Rand, runs []windowRun) {
		k := 1 + r.IntN(len(runs)-1)
		shift := runs[k-1].phases[1].EndNS - runs[k].phases[0].StartNS - 1 - r.Int64N(1e9)
		shiftRun(&runs[k], shift)
	}, "a row's runs follow one another"},
}

// shiftRun moves every nanosecond of a run (requests, spans, manifest, summary, scrape).
func shiftRun(run *windowRun, d int64) {
	for i := range run.requests {
		q := &run.requests[i]
		q.start, q.end, q.serverStart, q.serverEnd = q.start+d, q.end+d, q.serverStart+d, q.serverEnd+d
	}
	for i := range run.phases {
		run.phases[i].StartNS += d
		run.phases[i].EndNS += d
	}
	run.summaryStart, run.summaryEnd, run.scrapeStart, run.scrapeEnd = run.summaryStart+d, run.summaryEnd+d, run.scrapeStart+d, run.scrapeEnd+d
}

// Honest rows of random shapes (zones, phases, counts) pass; each edit of the class, applied at
// random to one of them, is named.
func TestPhaseWindowsHoldTheirRequests(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 42))
	for i := range 150 {
		runs := windowRow(r, 2+r.IntN(3))
		if got := phaseWindowCheck(writeWindowRow(t, runs, target.Reference, evidence.StatusQualified)); len(got) != 0 {
			t.Fatalf("honest row %d refused: %v", i, got)
		}
		e := windowEdits[i%len(windowEdits)]
		e.edit(r, runs)
		got := phaseWindowCheck(writeWindowRow(t, runs, target.Reference, evidence.StatusQualified))
		if !anyProblemHas(got, e.want) {
			t.Fatalf("%s (row %d): no problem names %q: %v", e.name, i, e.want, got)
		}
	}
}

// The cases around the class: what is required of whom, and what an honest run may differ in.
func TestPhaseWindowCases(t *testing.T) {
	for _, c := range []struct {
		name   string
		kind   target.Kind
		status evidence.Status
		edit   func(runs []windowRun)
		want   string // "" = no problem
	}{
		{"a qualified row's manifest deleted", target.Reference, evidence.StatusQualified,
			func(runs []windowRun) { runs[1].noManifest = true }, "phase_manifest.json"},
		{"a failed row's run without a manifest (AIPerf stopped)", target.Reference, evidence.StatusFailed,
			func(runs []windowRun) { runs[1].noManifest = true }, ""},
		{"a reference record without its span", target.Reference, evidence.StatusQualified,
			func(runs []windowRun) { runs[0].requests[0].noSpanKept = true }, "carries no span"},
		{"a TRTMC record carries no span and is not compared", target.TRTMC, evidence.StatusQualified,
			func(runs []windowRun) { runs[0].requests[0].noSpanKept = true }, ""},
		{"a warmup request ending 0.77 ms past its window, as AIPerf's processes' clock anchors can differ (a cold run under load)", target.Reference, evidence.StatusQualified,
			func(runs []windowRun) {
				for i, q := range runs[0].requests {
					if q.phase == "warmup" {
						runs[0].requests[i].end = runs[0].phases[0].EndNS + 769_476
						return
					}
				}
			}, ""},
		{"a phase listed twice", target.Reference, evidence.StatusQualified,
			func(runs []windowRun) { runs[0].phases = append(runs[0].phases, runs[0].phases[1]) }, "listed twice"},
		{"a run shifted whole by a whole number of hours but its summary's texts (a forger's *_ns shift)", target.Reference, evidence.StatusQualified,
			func(runs []windowRun) {
				start, end := runs[1].summaryStart, runs[1].summaryEnd
				shiftRun(&runs[1], 7_777_777_777)
				runs[1].summaryStart, runs[1].summaryEnd = start, end
			}, "start_time"},
	} {
		t.Run(c.name, func(t *testing.T) {
			runs := windowRow(rand.New(rand.NewPCG(1, 2)), 3)
			c.edit(runs)
			got := phaseWindowCheck(writeWindowRow(t, runs, c.kind, c.status))
			if c.want == "" && len(got) != 0 || c.want != "" && !anyProblemHas(got, c.want) {
				t.Fatalf("want %q, got %v", c.want, got)
			}
		})
	}
}

func anyProblemHas(ps []Problem, s string) bool {
	for _, p := range ps {
		if strings.Contains(p.Where+": "+p.What, s) {
			return true
		}
	}
	return false
}
