package verify

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
)

// roundFiveForgeries are kinds of the fifth red team's forgeries, each re-signed by a forger: an
// AIPerf run fabricated from another past duplicateRunsCheck's tolerance, whose phase windows
// are the copies left behind.
func roundFiveForgeries() []tamper {
	asr := string(stage.ASR)
	return []tamper{
		{name: "R5 the slowest AIPerf run replaced by a copy of the fastest under fresh ids, moved into its slot, each latency jittered by 60–200 µs", forged: true,
			want: []string{"profile_export_raw.jsonl", "outside its profiling phase's window"},
			edit: func(t *testing.T, f *forger) { jitteredCopy(t, f, asr, windowsLeft) }},
		{name: "R5 the same jittered copy with its phase manifest and scrape moved with it (every *_ns)", forged: true,
			want: []string{"profile_export_aiperf.json", "start_time", "is not the profiling window's"},
			edit: func(t *testing.T, f *forger) { jitteredCopy(t, f, asr, windowsNS) }},
		{name: "R5 the same jittered copy with every copy of its windows moved (every *_ns, the summaries' start and end times)", forged: true,
			want: []string{"server-records.jsonl", "to the nanosecond the times of", "a copy of that request's record"},
			edit: func(t *testing.T, f *forger) { jitteredCopy(t, f, asr, windowsAll) }},
		{name: "R5 the slowest measured request of every AIPerf run deleted everywhere, N lowered by one (command, settings, summaries, /metrics histogram), the phase manifests left", forged: true,
			want: []string{"phase_manifest.json", "the profiling phase counts"},
			edit: func(t *testing.T, f *forger) { dropSlowestPerRun(t, f, asr, false) }},
		{name: "R5 the slowest measured request of every AIPerf run deleted everywhere, the phase manifests' counts lowered too", forged: true,
			want: []string{"profile_export_raw.jsonl", "skip session_num", "so one was removed"},
			edit: func(t *testing.T, f *forger) { dropSlowestPerRun(t, f, asr, true) }},
		{name: "R5 a full row's stored bundle swapped for a reduced checkpoint's, its header relabelled, every hash updated (evidence, records, no-caching records)", forged: true,
			want: []string{"server.log", "the server loaded bundle", "the row says it served bundle"},
			edit: func(t *testing.T, f *forger) { smallerBundle(t, f, asr) }},
	}
}

// jitteredCopy replaces a qualified full row's slowest AIPerf run (by mean latency; not the one
// holding the no-caching check's request) with a copy of its fastest other run under fresh ids, every
// nanosecond moved into the slot, every request lengthened by 60–200 µs in both exports (its
// request_latency and AIPerf's summary avg/min/max with it), the server records copied with
// it, and the row's figures and JUnit copies recomputed; the copied windows are moved as
// windows says.
func jitteredCopy(t *testing.T, f *forger, stageName string, windows windowMove) {
	i, r := f.result(stageName, evidence.StatusQualified, evidence.KindFull)
	dirs := f.runDirs(r)
	if len(dirs) < 2 {
		t.Fatalf("%s has one AIPerf run", r.Profile)
	}
	// The replaced run must not hold the no-caching check's request (that claim would break
	// first); the copy may come from any other run, so that a reduced row's two runs suffice.
	dst := ""
	for _, d := range dirs {
		ids, _ := runIDs(t, f, d)
		if r.NoCache != nil && ids[r.NoCache.FirstRequestID] {
			continue
		}
		if dst == "" || meanLatency(t, f, d) > meanLatency(t, f, dst) {
			dst = d
		}
	}
	src := ""
	for _, d := range dirs {
		if d != dst && (src == "" || meanLatency(t, f, d) < meanLatency(t, f, src)) {
			src = d
		}
	}
	if src == "" || dst == "" {
		t.Fatalf("%s: no two runs to copy between", r.Profile)
	}
	jitter := map[string]int64{}
	rnd := rand.New(rand.NewPCG(5, 5))
	c := f.copyRunOver(t, src, dst, "j-",
		func(id string) { jitter[id] = 60_000 + rnd.Int64N(140_001) },
		func(m map[string]any) { lengthen(t, m, jitter) })
	shift := c.shift
	summarizeLatency(t, f, dst)
	if windows >= windowsNS {
		f.shiftJSONFiles(dst, shift, "phase_manifest.json", "server_metrics_export.json", "server_metrics.json")
	}
	if windows == windowsAll {
		f.shiftWallClock(dst, shift, "profile_export_aiperf.json", "server_metrics_export.json")
	}
	f.replaceRunRecords(t, stageName, i, r.Records, c.srcIDs, c.dstIDs, c.rename, shift)
}

// windowMove is how much of a copied run's windows a forger moves into its slot.
type windowMove int

const (
	windowsLeft windowMove = iota // the phase manifest and scrape as copied
	windowsNS                     // every *_ns number of them
	windowsAll                    // and the summaries' start_time and end_time texts
)

// shiftWallClock moves the start_time and end_time texts (AIPerf's wall clock, to the µs) of
// the named JSON files under dir, at their top level or in their summary, by shift.
func (f *forger) shiftWallClock(dir string, shift int64, names ...string) {
	f.t.Helper()
	const layout = "2006-01-02T15:04:05.000000"
	move := func(m map[string]any) {
		for _, k := range []string{"start_time", "end_time"} {
			if s, ok := m[k].(string); ok {
				tm, err := time.Parse(layout, s)
				if err != nil {
					f.t.Fatal(err)
				}
				m[k] = tm.Add(time.Duration(shift)).Format(layout)
			}
		}
	}
	for _, n := range names {
		f.rewriteJSON(dir+"/"+n, func(v map[string]any) {
			move(v)
			if s, ok := v["summary"].(map[string]any); ok {
				move(s)
			}
		})
	}
}

// meanLatency is an AIPerf run's mean measured request_end_ns − request_start_ns.
func meanLatency(t *testing.T, f *forger, dir string) float64 {
	var total, n float64
	f.jsonlExact(dir+"/profile_export.jsonl", func(m map[string]any) map[string]any {
		if measured(m) {
			start, end := nsOf(t, m, "request_start_ns"), nsOf(t, m, "request_end_ns")
			total, n = total+float64(end-start), n+1
		}
		return m
	})
	return total / n
}

func nsOf(t *testing.T, m map[string]any, key string) int64 {
	v, err := m["metadata"].(map[string]any)[key].(json.Number).Int64()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// lengthen moves a request's end by its jitter and writes its request_latency (metrics export)
// as the new end − start.
func lengthen(t *testing.T, m map[string]any, jitter map[string]int64) {
	md := m["metadata"].(map[string]any)
	j := jitter[md["x_request_id"].(string)]
	end := nsOf(t, m, "request_end_ns") + j
	md["request_end_ns"] = json.Number(strconv.FormatInt(end, 10))
	if lat := latencyOf(m); lat != nil {
		lat["value"] = float64(end-nsOf(t, m, "request_start_ns")) / 1e6
	}
}

// summarizeLatency writes AIPerf's summary request_latency avg/min/max of a run from its
// (edited) per-request metrics export.
func summarizeLatency(t *testing.T, f *forger, dir string) {
	var lat []float64
	f.jsonlExact(dir+"/profile_export.jsonl", func(m map[string]any) map[string]any {
		if measured(m) {
			lat = append(lat, float64(nsOf(t, m, "request_end_ns")-nsOf(t, m, "request_start_ns"))/1e6)
		}
		return m
	})
	lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
	for _, v := range lat {
		lo, hi, sum = min(lo, v), max(hi, v), sum+v
	}
	f.rewriteJSON(dir+"/profile_export_aiperf.json", func(v map[string]any) {
		rl := v["request_latency"].(map[string]any)
		rl["avg"], rl["min"], rl["max"] = sum/float64(len(lat)), lo, hi
	})
}

// shiftJSONFiles moves every *_ns number of the named JSON files under dir by shift.
func (f *forger) shiftJSONFiles(dir string, shift int64, names ...string) {
	f.t.Helper()
	err := filepath.WalkDir(f.path(dir), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		for _, n := range names {
			if d.Name() == n {
				rel, _ := filepath.Rel(f.dir, p)
				f.rewriteJSON(filepath.ToSlash(rel), func(v map[string]any) { shiftNS(v, shift) })
			}
		}
		return nil
	})
	if err != nil {
		f.t.Fatal(err)
	}
}

// rewriteJSON rewrites a JSON object file with its numbers kept as written.
func (f *forger) rewriteJSON(rel string, fn func(map[string]any)) {
	f.t.Helper()
	f.rewrite(rel, func(b []byte) []byte {
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.UseNumber()
		var v map[string]any
		if err := dec.Decode(&v); err != nil {
			f.t.Fatalf("%s: %v", rel, err)
		}
		fn(v)
		out, err := json.Marshal(v)
		if err != nil {
			f.t.Fatal(err)
		}
		return out
	})
}

// dropSlowestPerRun deletes the slowest measured request of every AIPerf run of a qualified full
// row (not the no-caching check's) from every file that holds it: both exports, the server
// records, the outputs; lowers N by one in the AIPerf command, the evidence and the settings;
// and re-derives each run's summary (count, latency, benchmark_duration), its /metrics Task
// histogram (count, sum, buckets, mean) and, with manifest, its phase manifest's count.
func dropSlowestPerRun(t *testing.T, f *forger, stageName string, manifest bool) {
	dropPerRun(t, f, stageName, manifest, func(m map[string]any) int64 {
		return nsOf(t, m, "request_end_ns") - nsOf(t, m, "request_start_ns")
	})
}

// dropPerRun deletes, as dropSlowestPerRun says, the measured request of every AIPerf run that
// rank puts highest (rank reads its line of profile_export.jsonl).
func dropPerRun(t *testing.T, f *forger, stageName string, manifest bool, rank func(map[string]any) int64) {
	i, r := f.result(stageName, evidence.StatusQualified, evidence.KindFull)
	taskMS := map[string]float64{}
	f.jsonlExact(r.Records, func(m map[string]any) map[string]any {
		if timing, ok := m["trtmc_timing"].(map[string]any); ok {
			v, _ := timing["model_call_ms"].(json.Number).Float64()
			taskMS[m["request_id"].(string)] = v
		}
		return m
	})
	drop := map[string]bool{}
	for _, d := range f.runDirs(r) {
		worst, most := "", int64(-1)
		f.jsonlExact(d+"/profile_export.jsonl", func(m map[string]any) map[string]any {
			id := m["metadata"].(map[string]any)["x_request_id"].(string)
			if v := rank(m); measured(m) && v > most && (r.NoCache == nil || id != r.NoCache.FirstRequestID) {
				worst, most = id, v
			}
			return m
		})
		drop[worst] = true
		keep := func(m map[string]any) map[string]any {
			if drop[requestID(m)] {
				return nil
			}
			return m
		}
		f.jsonlExact(d+"/profile_export_raw.jsonl", keep)
		f.jsonlExact(d+"/profile_export.jsonl", keep)
		summarizeLatency(t, f, d)
		f.rewriteJSON(d+"/profile_export_aiperf.json", func(v map[string]any) {
			v["request_count"].(map[string]any)["avg"] = float64(r.AIPerf.Requests - 1)
			v["benchmark_duration"].(map[string]any)["avg"] = measuredSpan(t, f, d)
		})
		f.scrapeSections(d, func(metrics map[string]any) { dropTaskCall(t, metrics, taskMS[worst]/1e3) })
		if manifest {
			f.rewriteJSON(d+"/phase_manifest.json", func(v map[string]any) {
				for _, p := range v["phases"].([]any) {
					if p := p.(map[string]any); p["phase_kind"] == "profiling" {
						for _, k := range []string{"total_request_count", "successful_request_count"} {
							n, _ := p[k].(json.Number).Int64()
							p[k] = n - 1
						}
					}
				}
			})
		}
	}
	f.jsonlExact(r.Records, func(m map[string]any) map[string]any {
		if drop[m["request_id"].(string)] {
			return nil
		}
		return m
	})
	n := strconv.Itoa(r.AIPerf.Requests - 1)
	cmd := filepath.Dir(r.AIPerf.Dir) + "/command.json"
	f.rewriteJSON(cmd, func(v map[string]any) { setFlag(v["command"].([]any), "--request-count", n) })
	f.stage(stageName, func(s *evidence.Stage) {
		row := &s.Results[i]
		row.AIPerf.Requests--
		for j, a := range row.AIPerf.Command {
			if a == "--request-count" {
				row.AIPerf.Command[j+1] = n
			}
		}
		row.Settings["requests"] = float64(row.AIPerf.Requests)
		f.recompute(row)
	})
	f.junitTiming(stageName, i)
}

func setFlag(args []any, flag, value string) {
	for j, a := range args {
		if a == flag {
			args[j+1] = value
		}
	}
}

// measuredSpan is the span, in seconds, of a run's measured requests in its raw export.
func measuredSpan(t *testing.T, f *forger, dir string) float64 {
	first, last := int64(math.MaxInt64), int64(math.MinInt64)
	f.jsonlExact(dir+"/profile_export_raw.jsonl", func(m map[string]any) map[string]any {
		if measured(m) {
			first, last = min(first, nsOf(t, m, "request_start_ns")), max(last, nsOf(t, m, "request_end_ns"))
		}
		return m
	})
	return float64(last-first) / 1e9
}

// dropTaskCall takes one Task call of sec seconds out of every trtmc_task_call_seconds series of
// a scrape section (the row's one model): count, sum, mean and the buckets it fell in.
func dropTaskCall(t *testing.T, metrics map[string]any, sec float64) {
	hist, _ := metrics["trtmc_task_call_seconds"].(map[string]any)
	series, _ := hist["series"].([]any)
	for _, sr := range series {
		sr := sr.(map[string]any)
		stats := sr["stats"].(map[string]any)
		count, _ := stats["count"].(json.Number).Float64()
		total, _ := stats["sum"].(json.Number).Float64()
		if count < 1 {
			continue
		}
		stats["count"], stats["sum"] = count-1, total-sec
		if count > 1 {
			stats["avg"] = (total - sec) / (count - 1)
		}
		for le, v := range sr["buckets"].(map[string]any) {
			bound, err := strconv.ParseFloat(strings.Replace(le, "+Inf", "Inf", 1), 64)
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := v.(json.Number).Float64(); sec <= bound && n > 0 {
				sr["buckets"].(map[string]any)[le] = n - 1
			}
		}
	}
}

// smallerBundle stores, as a qualified full row's bundle, a reduced row's bundle whose header is
// relabelled with the full row's profile, checkpoint and revision, and writes its sha256 in
// every copy of the row's bundle hash: the evidence, the gate, the records and the no-caching
// records. Only the gate re-executed (--rerun) or the server's own log can tell.
func smallerBundle(t *testing.T, f *forger, stageName string) {
	i, r := f.result(stageName, evidence.StatusQualified, evidence.KindFull)
	_, small := f.result(stageName, evidence.StatusFamilyValidated, evidence.KindReduced)
	own, err := os.ReadFile(f.path(r.Bundle.Path))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(f.path(small.Bundle.Path))
	if err != nil {
		t.Fatal(err)
	}
	ownHeader, _ := bundleHeaderOf(t, own)
	header, n := bundleHeaderOf(t, data)
	for _, k := range []string{"profile", "checkpoint", "revision"} {
		header[k] = ownHeader[k]
	}
	h, err := json.Marshal(header)
	if err != nil {
		t.Fatal(err)
	}
	out := binary.LittleEndian.AppendUint64(slices.Clone(data[:8]), uint64(len(h)))
	out = append(append(out, h...), data[16+n:]...)
	f.write(r.Bundle.Path, out) // replaces the file: the case's copy links the shared run's bundles
	sum := sha256.Sum256(out)
	sha := hex.EncodeToString(sum[:])
	setBundle := func(m map[string]any) map[string]any {
		if m["bundle_sha256"] != nil {
			m["bundle_sha256"] = sha
		}
		return m
	}
	f.jsonlExact(r.Records, setBundle)
	if r.NoCache != nil {
		f.jsonlExact(r.NoCache.Records, setBundle)
	}
	f.stage(stageName, func(s *evidence.Stage) {
		b := &s.Results[i].Bundle
		b.SHA256Built, b.SHA256Gated, b.SHA256Served, b.SHA256After = sha, sha, sha, sha
		s.Results[i].Gate.BundleSHA = sha
	})
}

// bundleHeaderOf decodes a bundle's JSON header (after its 8-byte magic and 8-byte little-endian
// length) and returns it with its length.
func bundleHeaderOf(t *testing.T, b []byte) (map[string]any, int) {
	n := int(binary.LittleEndian.Uint64(b[8:16]))
	dec := json.NewDecoder(bytes.NewReader(b[16 : 16+n]))
	dec.UseNumber()
	var h map[string]any
	if err := dec.Decode(&h); err != nil {
		t.Fatal(err)
	}
	return h, n
}
