package verify

import (
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
)

// phaseWindowCheck: besides each request's own timestamps, AIPerf writes every run's phase
// windows three more times: phase_manifest.json (each phase's start_ns, end_ns and request
// count), its summary's start_time and end_time (the profiling window, to the microsecond, in
// the container's wall-clock zone) and the server-metrics scrape's phase_time_ranges; and the
// reference server records each request's own span, which lies inside the client's. So every
// request lies within its phase's window, the copies of a window agree, a phase counts the
// requests the exports hold, and a row's runs follow one another. A run copied from another,
// moved into its slot and jittered past duplicateRunsCheck's tolerance, keeps the windows it
// was copied from; requests deleted from the exports leave their phase's count behind.
func phaseWindowCheck(r *Run) []Problem {
	return r.eachRow(func(row *Row, report reporter) {
		if row.Result.AIPerf == nil || row.Result.AIPerf.Dir == "" {
			return
		}
		if kindOf(row.Stage.TargetKind).RecordsCarrySpans() {
			checkRecordSpans(row, report)
		}
		required := row.Result.Status == evidence.StatusQualified
		var prev phaseWindow
		for _, dir := range artifactRunDirs(r.Dir, row.Result.AIPerf.Dir) {
			where := relTo(r.Dir, dir)
			exports, err := aiperfexport.Read(dir)
			if err != nil || len(exports.Raw) == 0 {
				continue // servedCheck reports unreadable exports
			}
			phases, ok := readPhaseManifest(dir, where, required, report)
			if !ok {
				continue
			}
			checkPhaseRequests(where, phases, exports, report)
			if w, ok := phases["profiling"]; ok {
				checkSummaryWindow(dir, where, w, report)
				checkScrapeWindow(dir, where, w, report)
			}
			w := runWindow(phases)
			if prev.where != "" && w.StartNS <= prev.EndNS {
				report(where+"/phase_manifest.json", "this AIPerf run starts at %d ns, before %s ended (%d ns): a row's runs follow one another",
					w.StartNS, prev.where, prev.EndNS)
			}
			prev = w
			prev.where = where
		}
	})
}

// phaseWindow is one phase of phase_manifest.json (or a run's whole span, runWindow).
type phaseWindow struct {
	Kind    string `json:"phase_kind"`
	StartNS int64  `json:"start_ns"`
	EndNS   int64  `json:"end_ns"`
	Total   int    `json:"total_request_count"`
	where   string
}

// readPhaseManifest reads a run's phases by kind; a qualified row's run must have its manifest
// (AIPerf 0.13.0 writes one in every run).
func readPhaseManifest(dir, where string, required bool, report reporter) (map[string]phaseWindow, bool) {
	path := filepath.Join(dir, "phase_manifest.json")
	data, err := runfile.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if required {
			report(where+"/phase_manifest.json", "missing: AIPerf writes each run's phase windows and counts there, the second copy of its requests' timestamps")
		}
		return nil, false
	}
	var m struct {
		Phases []phaseWindow `json:"phases"`
	}
	if err == nil {
		err = json.Unmarshal(data, &m)
	}
	if err != nil {
		report(where+"/phase_manifest.json", "not AIPerf's phase manifest: %v", err)
		return nil, false
	}
	out := map[string]phaseWindow{}
	for _, p := range m.Phases {
		if _, dup := out[p.Kind]; dup || p.EndNS < p.StartNS {
			report(where+"/phase_manifest.json", "phase %q is listed twice or ends (%d ns) before it starts (%d ns)", p.Kind, p.EndNS, p.StartNS)
			return nil, false // one problem names a broken manifest, however many phases it lists
		}
		out[p.Kind] = p
	}
	return out, true
}

// phaseClockSlackNS is how far a request may lie past its phase's window. AIPerf stamps a
// request's times in its worker and the phase's in its timing manager, each converting its own
// monotonic clock to wall time from an anchor read at its start: two processes' anchors differ
// by the scheduling delay between their two reads. Measured: 1 of 668 requests of 10 honest runs
// ended past its warmup window, by 0.77 ms (a cold make qualify on a loaded 2-core machine); a
// request copied from another run lies seconds outside.
const phaseClockSlackNS = 50_000_000

// checkPhaseRequests: every request of the raw export lies within its phase's window (give or
// take phaseClockSlackNS), and each phase counts the requests the export holds for it.
func checkPhaseRequests(where string, phases map[string]phaseWindow, e aiperfexport.Exports, report reporter) {
	count := map[string]int{}
	for _, raw := range e.Raw {
		md := raw.Metadata
		count[md.Phase]++
		w, ok := phases[md.Phase]
		if !ok {
			report(where+"/profile_export_raw.jsonl", "request %s is of phase %q, which phase_manifest.json does not list", md.XRequestID, md.Phase)
			continue
		}
		if md.RequestStartNS < w.StartNS-phaseClockSlackNS || md.RequestEndNS > w.EndNS+phaseClockSlackNS {
			report(where+"/profile_export_raw.jsonl", "request %s ran %d–%d ns, outside its %s phase's window %d–%d ns in phase_manifest.json",
				md.XRequestID, md.RequestStartNS, md.RequestEndNS, md.Phase, w.StartNS, w.EndNS)
		}
	}
	for kind, w := range phases {
		if w.Total != count[kind] {
			report(where+"/phase_manifest.json", "the %s phase counts %d requests; profile_export_raw.jsonl holds %d", kind, w.Total, count[kind])
		}
	}
}

// zoneStep is the granularity of wall-clock zone offsets (every zone in use is a whole number of
// quarter hours from UTC): AIPerf writes start_time and end_time in its container's zone, so
// they equal the window's nanoseconds up to a whole number of zoneSteps and the truncation to
// the microsecond.
const zoneStep = 15 * time.Minute

// checkSummaryWindow: the summary's start_time and end_time are the profiling window.
func checkSummaryWindow(dir, where string, w phaseWindow, report reporter) {
	data, err := runfile.ReadFile(filepath.Join(dir, "profile_export_aiperf.json"))
	if err != nil {
		return // checkAggregate reports a missing summary
	}
	var s struct {
		Start string `json:"start_time"`
		End   string `json:"end_time"`
	}
	if json.Unmarshal(data, &s) != nil || s.Start == "" || s.End == "" {
		return // older AIPerf summaries carry no window
	}
	for _, t := range []struct {
		name, text string
		ns         int64
	}{{"start_time", s.Start, w.StartNS}, {"end_time", s.End, w.EndNS}} {
		if !sameWallClock(t.text, t.ns) {
			report(where+"/profile_export_aiperf.json", "%s %s is not the profiling window's %s in phase_manifest.json (%d ns, %s UTC)",
				t.name, t.text, t.name, t.ns, time.Unix(0, t.ns).UTC().Format("2006-01-02T15:04:05.000000"))
		}
	}
}

// sameWallClock says whether text (ISO 8601 without a zone, to the microsecond) is the instant ns
// in some zone: it differs from ns's UTC reading by a whole number of zoneSteps, to a microsecond.
func sameWallClock(text string, ns int64) bool {
	t, err := time.Parse("2006-01-02T15:04:05.999999", text)
	if err != nil {
		return false
	}
	d := t.Sub(time.Unix(0, ns).UTC())
	off := d % zoneStep
	if off < 0 {
		off = -off
	}
	return off <= time.Microsecond || zoneStep-off <= time.Microsecond
}

// checkScrapeWindow: the server-metrics scrape's profiling range is the manifest's.
func checkScrapeWindow(dir, where string, w phaseWindow, report reporter) {
	data, err := runfile.ReadFile(filepath.Join(dir, "server_metrics_export.json"))
	if err != nil {
		return // scrapeCheck names a missing scrape where the target's server exports one
	}
	var s struct {
		Summary struct {
			Ranges map[string]struct {
				StartNS int64 `json:"start_ns"`
				EndNS   int64 `json:"end_ns"`
			} `json:"phase_time_ranges"`
		} `json:"summary"`
	}
	if json.Unmarshal(data, &s) != nil {
		return
	}
	if got, ok := s.Summary.Ranges["profiling"]; ok && (got.StartNS != w.StartNS || got.EndNS != w.EndNS) {
		report(where+"/server_metrics_export.json", "its profiling range %d–%d ns is not phase_manifest.json's %d–%d ns",
			got.StartNS, got.EndNS, w.StartNS, w.EndNS)
	}
}

// runWindow is the span of all of a run's phases.
func runWindow(phases map[string]phaseWindow) phaseWindow {
	var w phaseWindow
	for _, p := range phases {
		if w.Kind == "" || p.StartNS < w.StartNS {
			w.StartNS = p.StartNS
		}
		w.EndNS = max(w.EndNS, p.EndNS)
		w.Kind = "run"
	}
	return w
}

// checkRecordSpans: the server's span of each joined request lies inside the client's (the
// server and AIPerf read one host clock); a record moved in time without its request, or a
// request's latency cut below the server's own, falls outside.
func checkRecordSpans(row *Row, report reporter) {
	for _, p := range row.Pairs {
		md, rec := p.Client.Metadata, p.Server
		if rec.StartUnixNS == 0 || rec.EndUnixNS == 0 {
			report(recordsWhere(row), "request %s: its server record carries no span (start_unix_ns, end_unix_ns), which this target's server records", p.ID)
			continue
		}
		if rec.StartUnixNS < md.RequestStartNS || rec.EndUnixNS > md.RequestEndNS {
			report(recordsWhere(row), "request %s: the server handled it %d–%d ns, outside AIPerf's request %d–%d ns",
				p.ID, rec.StartUnixNS, rec.EndUnixNS, md.RequestStartNS, md.RequestEndNS)
		}
	}
}

// recordsWhere names a row's server records, or the row when it names none.
func recordsWhere(row *Row) string {
	if row.Result.Records != "" {
		return row.Result.Records
	}
	return row.Where
}
