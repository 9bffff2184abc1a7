package verify

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/accuracy"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
)

// secondSourceForgeries are the third red team's remaining kinds, each made consistent with
// every copy the evidence itself holds and re-signed by a forger: a counted checkpoint or a whole
// stage removed, a no-caching check taken from another row, a variant's gate relabelled
// identical, outputs relabelled to another input, an AIPerf run replaced by a copy of another
// under fresh ids, formula texts swapped, and the hardware relabelled. Each is refused by a
// datum's second source: the target's inventory, the server's own records and /metrics, the
// pinned golden images, AIPerf's inputs, the code's own figure definitions.
func secondSourceForgeries() []tamper {
	asr, t2i, qa := string(stage.ASR), string(stage.T2I), string(stage.AudioQA)
	return []tamper{
		{name: "R3 a counted checkpoint removed: its row, inventory row, selection, files and JUnit cases", forged: true,
			want: []string{"asr/stage.json", "selection leaves out target rows sphinx-tidigits"},
			edit: func(t *testing.T, f *forger) { removeCheckpoint(t, f, asr, "sphinx-tidigits") }},
		{name: "R3 a whole stage removed: its directory and its JUnit report", forged: true,
			want: []string{"evidence.json", "stage " + qa + " of target", "is not in the run"},
			edit: func(t *testing.T, f *forger) {
				for _, p := range []string{qa, "junit/" + qa + ".xml"} {
					if err := os.RemoveAll(f.path(p)); err != nil {
						t.Fatal(err)
					}
				}
				f.report()
			}},
		{name: "R3 a no-caching check taken from another row, re-pointed to this row's input", forged: true,
			want: []string{"sphinx-tidigits/nocache-records.jsonl", "names model \"sphinx-en-us\""},
			edit: func(t *testing.T, f *forger) { borrowNoCache(t, f, asr, "sphinx-en-us", "sphinx-tidigits") }},
		{name: "R3 a T2I variant's gate relabelled identical (figures, items, JUnit), its images left", forged: true,
			want: []string{"gate says item", "is identical to its golden image, but its image"},
			edit: func(t *testing.T, f *forger) {
				i, _ := f.notServed(t2i)
				f.stage(t2i, func(s *evidence.Stage) {
					g := s.Results[i].Gate
					g.Figures["psnr_min_db"], g.Figures["ssim_min"] = math.MaxFloat64, 1
					psnr := regexp.MustCompile(`PSNR [0-9.]+ dB, SSIM [0-9.]+`)
					for j := range g.Items {
						g.Items[j].Detail = psnr.ReplaceAllString(g.Items[j].Detail, "PSNR inf (identical), SSIM 1.00000")
						g.Items[j].Distance = 1
					}
					groups, err := pins{Root: repoRoot(t)}.GateGroups(*s, s.Results[i])
					if err != nil {
						t.Fatal(err)
					}
					if s.Results[i].Accuracy, err = accuracy.Gate(g, groups); err != nil {
						t.Fatal(err)
					}
				})
				f.junitGate(t2i, i)
			}},
		{name: "R3 two ASR requests' uploads swapped, their records' input hashes and durations with them", forged: true,
			want: []string{"the payload AIPerf sent is not session"},
			edit: func(t *testing.T, f *forger) { swapUploads(t, f, asr) }},
		{name: "R3 an AIPerf run replaced by a copy of another under fresh ids, shifted in time", forged: true,
			want: []string{"took the same times as", "a copy of that run"},
			edit: func(t *testing.T, f *forger) { duplicateRun(t, f, asr) }},
		{name: "R3 the formula texts of rtf and rtfx swapped", forged: true,
			want: []string{"timing recomputed differently", "formula"},
			edit: func(t *testing.T, f *forger) {
				i, _ := f.result(asr, evidence.StatusQualified, evidence.KindFull)
				f.stage(asr, func(s *evidence.Stage) {
					figs := s.Results[i].Timing.Figures
					a := slices.IndexFunc(figs, func(x evidence.Figure) bool { return x.Name == "rtf" })
					b := slices.IndexFunc(figs, func(x evidence.Figure) bool { return x.Name == "rtfx" })
					figs[a].Formula, figs[b].Formula = figs[b].Formula, figs[a].Formula
				})
			}},
		{name: "R3 the hardware relabelled (112 cores, another CPU, a GPU) in every stage and JUnit report", forged: true,
			want: []string{"server_metrics_export.json", "ran on 2 CPUs", "records 112 cores"},
			edit: func(t *testing.T, f *forger) {
				for _, name := range stageNames(f.e) {
					f.stage(name, func(s *evidence.Stage) {
						s.Hardware.Cores, s.Hardware.CPU, s.Hardware.GPU = 112, "AMD EPYC 9654 96-Core Processor", "NVIDIA H100 80GB HBM3"
					})
					f.rewrite("junit/"+name+".xml", func(b []byte) []byte {
						for k, v := range map[string]string{"hardware.cores": "112", "hardware.cpu": "AMD EPYC 9654 96-Core Processor", "hardware.gpu": "NVIDIA H100 80GB HBM3"} {
							b = regexp.MustCompile(`(<property name="`+regexp.QuoteMeta(k)+`" value=")[^"]*(")`).ReplaceAll(b, []byte("${1}"+v+"${2}"))
						}
						return b
					})
				}
			}},
	}
}

// removeCheckpoint removes a profile from a stage everywhere the run names it: its result, its
// inventory rows, the selection's target rows and counted total, its directory and its JUnit
// cases, and re-assembles the reports.
func removeCheckpoint(t *testing.T, f *forger, stageName, profile string) {
	_, r := f.profile(stageName, profile)
	f.stage(stageName, func(s *evidence.Stage) {
		s.Results = slices.DeleteFunc(s.Results, func(x evidence.Result) bool { return x.Profile == profile })
		s.Inventory = slices.DeleteFunc(s.Inventory, func(x evidence.InventoryRow) bool { return x.Profile == profile })
		if sel := s.Selection; sel != nil {
			sel.TargetRows = slices.DeleteFunc(sel.TargetRows, func(p string) bool { return p == profile })
			if r.Counted {
				sel.Counted--
			}
		}
	})
	if err := os.RemoveAll(f.path(stageName + "/" + profile)); err != nil {
		t.Fatal(err)
	}
	cases := regexp.MustCompile(`(?s)\s*<testcase [^>]*classname="` + regexp.QuoteMeta(stageName+"."+profile) + `"(?:[^>]*/>|.*?</testcase>)`)
	f.rewrite("junit/"+stageName+".xml", func(b []byte) []byte { return cases.ReplaceAll(b, nil) })
	f.report()
}

// borrowNoCache replaces row to's no-caching check with row from's, records and figures, each
// repeat re-pointed to to's repeated input, so that every figure and join of the check holds.
func borrowNoCache(t *testing.T, f *forger, stageName, from, to string) {
	_, src := f.profile(stageName, from)
	i, dst := f.profile(stageName, to)
	if src.NoCache == nil || dst.NoCache == nil {
		t.Fatalf("%s or %s has no no-caching check", from, to)
	}
	x := dst.NoCache.Repeats[0].InputSHA256
	repeats := map[string]bool{}
	for _, q := range src.NoCache.Repeats {
		repeats[q.RequestID] = true
	}
	data, err := os.ReadFile(f.path(src.NoCache.Records))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.path(dst.NoCache.Records), data, 0o644); err != nil {
		t.Fatal(err)
	}
	f.jsonlExact(dst.NoCache.Records, func(m map[string]any) map[string]any {
		if repeats[m["request_id"].(string)] {
			m["input_sha256"] = x
		}
		return m
	})
	f.stage(stageName, func(s *evidence.Stage) {
		n := *src.NoCache
		n.Repeats = slices.Clone(n.Repeats)
		for j := range n.Repeats {
			n.Repeats[j].InputSHA256, n.Repeats[j].Output = x, dst.NoCache.Output
		}
		n.Input, n.FirstRequestID, n.Output, n.Records = dst.NoCache.Input, dst.NoCache.FirstRequestID, dst.NoCache.Output, dst.NoCache.Records
		s.Results[i].NoCache = &n
	})
}

// swapUploads swaps the uploads of two measured requests of different inputs in a row's first
// AIPerf run, and their records' input_sha256 and audio_seconds, so that each record still
// describes the bytes sent under its id while each output keeps its input_id. The no-caching
// check's request is left alone (its repeats name its input hash).
func swapUploads(t *testing.T, f *forger, stageName string) {
	i, r := f.result(stageName, evidence.StatusQualified, evidence.KindFull)
	raw := f.runDirs(r)[0] + "/profile_export_raw.jsonl"
	var ids []string
	payloads := map[string]any{}
	conv := map[string]bool{}
	f.jsonlExact(raw, func(m map[string]any) map[string]any {
		md := m["metadata"].(map[string]any)
		if len(ids) < 2 && measured(m) && !conv[md["conversation_id"].(string)] && (r.NoCache == nil || requestID(m) != r.NoCache.FirstRequestID) {
			id := requestID(m)
			ids, payloads[id], conv[md["conversation_id"].(string)] = append(ids, id), m["payload"], true
		}
		return m
	})
	if len(ids) != 2 {
		t.Fatalf("%s: no two measured requests of different inputs", raw)
	}
	other := map[string]string{ids[0]: ids[1], ids[1]: ids[0]}
	f.jsonlExact(raw, func(m map[string]any) map[string]any {
		if o, ok := other[requestID(m)]; ok {
			m["payload"] = payloads[o]
		}
		return m
	})
	recs := map[string]map[string]any{}
	f.jsonlExact(r.Records, func(m map[string]any) map[string]any {
		if id, _ := m["request_id"].(string); other[id] != "" {
			recs[id] = m
		}
		return m
	})
	f.jsonlExact(r.Records, func(m map[string]any) map[string]any {
		if id, _ := m["request_id"].(string); other[id] != "" {
			o := recs[other[id]]
			m["input_sha256"] = o["input_sha256"]
			m["output"].(map[string]any)["audio_seconds"] = o["output"].(map[string]any)["audio_seconds"]
		}
		return m
	})
	f.stage(stageName, func(s *evidence.Stage) { f.recompute(&s.Results[i]) })
	f.junitTiming(stageName, i)
}

// duplicateRun replaces the last AIPerf run of a row (one not holding the no-caching check's
// request) by a copy of its first: every file of the run directory copied, each request id
// renamed, every timestamp shifted to the replaced run's start; the replaced run's server
// records swapped for the copy's, its outputs likewise; the figures recomputed.
func duplicateRun(t *testing.T, f *forger, stageName string) {
	i, r := f.result(stageName, evidence.StatusQualified, evidence.KindFull)
	dirs := f.runDirs(r)
	if len(dirs) < 2 {
		t.Fatalf("%s has one AIPerf run", r.Profile)
	}
	src, dst := dirs[0], dirs[len(dirs)-1]
	if last, _ := runIDs(t, f, dst); r.NoCache != nil && last[r.NoCache.FirstRequestID] {
		dst = dirs[len(dirs)-2]
	}
	c := f.copyRunOver(t, src, dst, "copy-", nil, nil)
	f.replaceRunRecords(t, stageName, i, r.Records, c.srcIDs, c.dstIDs, c.rename, c.shift)
}

// runCopy is what copyRunOver did: the copied and the replaced run's request ids, each copied
// id's new name, and how far every nanosecond moved.
type runCopy struct {
	srcIDs, dstIDs map[string]bool
	rename         map[string]string
	shift          int64
}

// copyRunOver replaces AIPerf run directory dst with a copy of run src: every file copied, each
// request and correlation id renamed prefix+id, every *_ns moved to dst's first request's start.
// request is called with each copied request's new id in the raw export's order (a forger's
// random draws per request stay those of the file's order); edit, when given, changes each
// copied export line after the move. The server records are the caller's (replaceRunRecords).
func (f *forger) copyRunOver(t *testing.T, src, dst, prefix string, request func(newID string), edit func(m map[string]any)) runCopy {
	srcIDs, srcStart := runIDs(t, f, src)
	dstIDs, dstStart := runIDs(t, f, dst)
	c := runCopy{srcIDs: srcIDs, dstIDs: dstIDs, rename: map[string]string{}, shift: dstStart - srcStart}
	f.jsonlExact(src+"/profile_export_raw.jsonl", func(m map[string]any) map[string]any {
		md := m["metadata"].(map[string]any)
		for _, k := range []string{"x_request_id", "x_correlation_id"} {
			if id, _ := md[k].(string); id != "" {
				c.rename[id] = prefix + id
			}
		}
		if request != nil {
			request(prefix + md["x_request_id"].(string))
		}
		return m
	})
	if err := os.RemoveAll(f.path(dst)); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(f.path(dst), os.DirFS(f.path(src))); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"profile_export_raw.jsonl", "profile_export.jsonl"} {
		f.jsonlExact(dst+"/"+name, func(m map[string]any) map[string]any {
			m = shiftedCopy(t, m, c.rename, c.shift)
			if edit != nil {
				edit(m)
			}
			return m
		})
	}
	return c
}

// runIDs are the request ids of an AIPerf run's raw export and its first request's start.
func runIDs(t *testing.T, f *forger, dir string) (map[string]bool, int64) {
	ids, start := map[string]bool{}, int64(math.MaxInt64)
	f.jsonlExact(dir+"/profile_export_raw.jsonl", func(m map[string]any) map[string]any {
		ids[requestID(m)] = true
		ns, err := m["metadata"].(map[string]any)["request_start_ns"].(json.Number).Int64()
		if err != nil {
			t.Fatal(err)
		}
		start = min(start, ns)
		return m
	})
	return ids, start
}

// shiftedCopy is m with its ids renamed (as JSON text, wherever they appear) and every
// nanosecond timestamp moved by shift.
func shiftedCopy(t *testing.T, m map[string]any, rename map[string]string, shift int64) map[string]any {
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for old, n := range rename {
		s = strings.ReplaceAll(s, `"`+old+`"`, `"`+n+`"`)
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var out map[string]any
	if err := dec.Decode(&out); err != nil {
		t.Fatal(err)
	}
	shiftNS(out, shift)
	return out
}

// shiftNS moves every "*_ns" number (AIPerf's metadata, perf counters, a record's unix times).
func shiftNS(v any, shift int64) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if n, ok := e.(json.Number); ok && strings.HasSuffix(k, "_ns") {
				if i, err := n.Int64(); err == nil {
					x[k] = json.Number(strconv.FormatInt(i+shift, 10))
					continue
				}
			}
			shiftNS(e, shift)
		}
	case []any:
		for _, e := range x {
			shiftNS(e, shift)
		}
	}
}

func appendJSONL(t *testing.T, path string, lines []map[string]any) {
	file, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for _, m := range lines {
		b, _ := json.Marshal(m)
		if _, err := file.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
	}
}

// jsonlExact is forger.jsonl with numbers kept as written: nanosecond timestamps do not survive
// a float64 (a forger who rounds them is caught by the exports' own agreement, not by the check
// a case is about).
func (f *forger) jsonlExact(rel string, fn func(map[string]any) map[string]any) {
	f.t.Helper()
	f.rewrite(rel, func(data []byte) []byte {
		var out bytes.Buffer
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			dec := json.NewDecoder(strings.NewReader(line))
			dec.UseNumber()
			var m map[string]any
			if err := dec.Decode(&m); err != nil {
				f.t.Fatalf("%s: %v", rel, err)
			}
			if m = fn(m); m != nil {
				b, _ := json.Marshal(m)
				out.Write(append(b, '\n'))
			}
		}
		return out.Bytes()
	})
}

// junitGate rewrites the row's gate properties (gate_<figure>) in the stage's JUnit report to the
// evidence's figures, so that the JUnit copy agrees with the forgery.
func (f *forger) junitGate(stageName string, i int) {
	f.junitRow(stageName, i, func(r evidence.Result) map[string]float64 {
		props := map[string]float64{}
		for name, v := range r.Gate.Figures {
			props["gate_"+regexp.QuoteMeta(name)] = v
		}
		return props
	})
}

// replaceRunRecords makes a copied AIPerf run's records consistent: the server records of the
// replaced run's requests (dstIDs) give way to shifted copies of the source run's (srcIDs) under
// their new ids, the row's outputs follow, and its figures and JUnit copies are recomputed.
func (f *forger) replaceRunRecords(t *testing.T, stageName string, i int, records string, srcIDs, dstIDs map[string]bool, rename map[string]string, shift int64) {
	var copies []map[string]any
	f.jsonlExact(records, func(m map[string]any) map[string]any {
		id, _ := m["request_id"].(string)
		if srcIDs[id] {
			copies = append(copies, shiftedCopy(t, m, rename, shift))
		}
		if dstIDs[id] {
			return nil
		}
		return m
	})
	appendJSONL(t, f.path(records), copies)
	f.stage(stageName, func(s *evidence.Stage) {
		row := &s.Results[i]
		var outs []evidence.Output
		for _, o := range row.Outputs {
			if dstIDs[o.RequestID] {
				continue
			}
			outs = append(outs, o)
			if n, ok := rename[o.RequestID]; ok {
				o.RequestID = n
				outs = append(outs, o)
			}
		}
		row.Outputs = outs
		f.recompute(row)
	})
	f.junitTiming(stageName, i)
}
