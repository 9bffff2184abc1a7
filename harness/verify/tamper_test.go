package verify

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/trtmc-qual/trtmc-qual/harness/claim"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
	"image"
	"image/color"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	containerspec "github.com/trtmc-qual/trtmc-qual/containers/spec"
	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/harness/attest"
	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/metrics"
	"github.com/trtmc-qual/trtmc-qual/harness/report"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
	"github.com/trtmc-qual/trtmc-qual/harness/stats"
	"github.com/trtmc-qual/trtmc-qual/harness/timing"
	"github.com/trtmc-qual/trtmc-qual/harness/verify/pinned"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// tamper is one kind of edit to a published run. A consistent forgery is re-assembled with
// the project's own `qual report` (report.Assemble) and re-signed with the forger's key, so
// only the recomputations (and a pinned key) can catch it.
type tamper struct {
	name    string
	edit    func(t *testing.T, f *forger)
	forged  bool     // re-signed by the forger after the edit
	want    []string // one problem must contain all of these (the file or figure, and what)
	sigOnly bool     // only the signature covers this file: want is matched against its problems
	// rerunWant, when set, must be among the problems of `qual verify --rerun` (the re-executed
	// gates); with no want, unpinned verify must list the row's outputs as not re-derived.
	rerunWant []string
	rerunRow  string
	// check replaces the table's assertions for cases that are not a problem list (a refused
	// pins root, a note, the unpinned envelope check).
	check func(t *testing.T, dir string)
}

// forger edits a copy of the published run with the project's packages.
type forger struct {
	t   *testing.T
	dir string
	e   evidence.Evidence
	// rerunRows are the rows whose gate the forgery edits: the case's `qual verify --rerun`
	// re-executes only them (each re-executes the whole native Task), every row when none.
	rerunRows []string
}

// forgesGate names a row whose gate the forgery edits, for the case's scoped --rerun.
func (f *forger) forgesGate(stage string, r evidence.Result) {
	f.rerunRows = append(f.rerunRows, stage+"/"+r.Profile)
}

func (f *forger) path(rel string) string { return filepath.Join(f.dir, filepath.FromSlash(rel)) }

// result finds the first result of a stage with the given status and kind ("" = any).
func (f *forger) result(stage string, status evidence.Status, kind evidence.Kind) (int, evidence.Result) {
	f.t.Helper()
	for _, s := range f.e.Stages {
		if s.Stage != stage {
			continue
		}
		for i, r := range s.Results {
			if (status == "" || r.Status == status) && (kind == "" || r.Kind == kind) {
				return i, r
			}
		}
	}
	f.t.Fatalf("the published run has no %s row with status %q kind %q", stage, status, kind)
	return 0, evidence.Result{}
}

// imperfect finds a qualified row whose served transcripts are not all the gold text.
func (f *forger) imperfect(stage string) (int, evidence.Result) {
	f.t.Helper()
	for _, s := range f.e.Stages {
		for i, r := range s.Results {
			if s.Stage == stage && r.Status == evidence.StatusQualified && slices.ContainsFunc(r.Outputs, func(o evidence.Output) bool { return o.HTTPOutput != o.Gold }) {
				return i, r
			}
		}
	}
	f.t.Fatalf("the published run has no qualified %s row with a transcript other than its gold text", stage)
	return 0, evidence.Result{}
}

// stage rewrites <stage>/stage.json through fn and re-assembles evidence.json and the report.
func (f *forger) stage(stage string, fn func(s *evidence.Stage)) {
	f.t.Helper()
	path := f.path(stage + "/stage.json")
	s, err := evidence.ReadStage(path)
	if err != nil {
		f.t.Fatal(err)
	}
	fn(&s)
	if err := evidence.WriteJSON(path, s); err != nil {
		f.t.Fatal(err)
	}
	f.report()
}

// report is `qual report`.
func (f *forger) report() {
	f.t.Helper()
	var err error
	if f.e, err = report.Assemble(f.dir); err != nil {
		f.t.Fatal(err)
	}
}

func (f *forger) rewrite(rel string, fn func([]byte) []byte) {
	f.t.Helper()
	data, err := os.ReadFile(f.path(rel))
	if err != nil {
		f.t.Fatal(err)
	}
	f.write(rel, fn(data))
}

// write replaces rel with data: a new file, never a write into the old one, which may be a hard
// link to the shared run (copyRun links its bundles).
func (f *forger) write(rel string, data []byte) {
	f.t.Helper()
	if err := os.Remove(f.path(rel)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(f.path(rel), data, 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// jsonl rewrites a JSONL file line by line; fn returns nil to drop a line.
func (f *forger) jsonl(rel string, fn func(map[string]any) map[string]any) {
	f.t.Helper()
	f.rewrite(rel, func(data []byte) []byte {
		var out bytes.Buffer
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
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

// runDirs are a row's AIPerf artifact directories, relative to the run: one per run of a
// repeated profile (profile_runs/run_NNNN), or the artifact directory itself.
func (f *forger) runDirs(r evidence.Result) []string {
	f.t.Helper()
	dirs, _ := filepath.Glob(f.path(r.AIPerf.Dir + "/" + aiperfexport.RunsDir + "/run_*"))
	if len(dirs) == 0 {
		return []string{r.AIPerf.Dir}
	}
	sort.Strings(dirs)
	var out []string
	for _, d := range dirs {
		rel, err := filepath.Rel(f.dir, d)
		if err != nil {
			f.t.Fatal(err)
		}
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

// responses rewrites the HTTP response bodies stored in a row's raw AIPerf exports.
func (f *forger) responses(r evidence.Result, fn func(id string, body map[string]any)) {
	f.t.Helper()
	for _, d := range f.runDirs(r) {
		f.responsesIn(d, fn)
	}
}

func (f *forger) responsesIn(dir string, fn func(id string, body map[string]any)) {
	f.t.Helper()
	f.jsonl(dir+"/profile_export_raw.jsonl", func(m map[string]any) map[string]any {
		resp := m["responses"].([]any)[0].(map[string]any)
		var body map[string]any
		if err := json.Unmarshal([]byte(resp["text"].(string)), &body); err != nil {
			f.t.Fatal(err)
		}
		fn(requestID(m), body)
		b, _ := json.Marshal(body)
		resp["text"] = string(b)
		m["responses"] = []any{resp}
		return m
	})
}

// served re-reads a result's stored artifacts.
func (f *forger) served(r evidence.Result) (aiperfexport.Exports, []contract.Record) {
	f.t.Helper()
	runs, err := aiperfexport.ReadRuns(f.path(r.AIPerf.Dir))
	if err != nil {
		f.t.Fatal(err)
	}
	exports := aiperfexport.Merge(r.AIPerf.Dir, runs)
	data, err := os.ReadFile(f.path(r.Records))
	if err != nil {
		f.t.Fatal(err)
	}
	records, err := contract.ParseRecords(data)
	if err != nil {
		f.t.Fatal(err)
	}
	return exports, records
}

// recompute redoes a row's join, identity counts, timing and gold WER from its (edited) stored
// artifacts with the project's own packages, as the suites computed them.
func (f *forger) recompute(r *evidence.Result) {
	f.t.Helper()
	exports, records := f.served(*r)
	rep := join.Join(exports.Raw, records, r.Join.Route)
	r.Join = claim.JoinRecord(rep)
	runs, err := aiperfexport.ReadRuns(f.path(r.AIPerf.Dir))
	if err != nil {
		f.t.Fatal(err)
	}
	samples, _, _, err := timing.RunSamples(rep.Pairs, runs)
	if err != nil {
		f.t.Fatal(err)
	}
	sum, err := timing.Summarize(samples)
	if err != nil {
		f.t.Fatal(err)
	}
	r.Timing = claim.TimingRecord(sum)
	if r.Repeated != nil {
		repeated, err := stats.FromRuns(rep.Pairs, runs)
		if err != nil {
			f.t.Fatal(err)
		}
		r.Repeated = claim.RepeatedRecord(repeated)
	}
	ids := map[string]bool{}
	for _, p := range rep.Pairs {
		ids[p.ID] = true
	}
	r.Outputs = slices.DeleteFunc(r.Outputs, func(o evidence.Output) bool { return !ids[o.RequestID] })
	r.Identity.Requests, r.Identity.Equal = len(r.Outputs), len(r.Outputs)
	if r.Meaning != nil {
		if _, ok := r.Meaning.Checks["gold_wer"]; ok {
			wer, _, err := metrics.GoldCorpusWER(workload.GoldPairs(r.Outputs))
			if err != nil {
				f.t.Fatal(err)
			}
			r.Meaning.Checks["gold_wer"] = wer
		}
	}
}

// slowest are the ids of the k slowest measured requests by AIPerf's request_latency.
func slowest(exports aiperfexport.Exports, k int) map[string]bool {
	type lat struct {
		id string
		ms float64
	}
	var all []lat
	for _, m := range exports.Metrics {
		if v, ok := m.LatencyMS(); ok && m.Metadata.Phase == "profiling" {
			all = append(all, lat{m.Metadata.XRequestID, v})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].ms > all[j].ms })
	out := map[string]bool{}
	for _, l := range all[:min(k, len(all))] {
		out[l.id] = true
	}
	return out
}

func requestID(m map[string]any) string {
	if md, ok := m["metadata"].(map[string]any); ok {
		if id, ok := md["x_request_id"].(string); ok && id != "" {
			return id
		}
	}
	if id, ok := m["request_id"].(string); ok {
		return id
	}
	if h, ok := m["request_headers"].(map[string]any); ok {
		for k, v := range h {
			if strings.EqualFold(k, "X-Request-ID") {
				s, _ := v.(string)
				return s
			}
		}
	}
	return ""
}

func measured(m map[string]any) bool {
	md, _ := m["metadata"].(map[string]any)
	return md["benchmark_phase"] == "profiling"
}

// flatPNG is a valid image of the given size that no model produced.
func flatPNG(w, h int) (string, string) {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.NRGBA{uint8(x), uint8(y), 128, 255})
		}
	}
	var buf bytes.Buffer
	png.Encode(&buf, img)
	return base64.StdEncoding.EncodeToString(buf.Bytes()), task.ImageSHA256Of(img)
}

// claimAnotherInput replaces the input_sha256 of the first served record of a qualified row of
// stage with digit repeated: a record claiming an input other than the one AIPerf sent.
func claimAnotherInput(stage, digit string) func(t *testing.T, f *forger) {
	return func(t *testing.T, f *forger) {
		_, r := f.result(stage, evidence.StatusQualified, "")
		replaced := false
		f.jsonl(r.Records, func(m map[string]any) map[string]any {
			if !replaced && m["route"] == r.Join.Route && m["input_sha256"] != nil {
				m["input_sha256"], replaced = strings.Repeat(digit, 64), true
			}
			return m
		})
		if !replaced {
			t.Fatalf("%s: no served record with an input_sha256 to replace", r.Records)
		}
	}
}

func tampers() []tamper {
	asr, t2i, qa := string(stage.ASR), string(stage.T2I), string(stage.AudioQA)
	q, fv := evidence.StatusQualified, evidence.StatusFamilyValidated
	cases := []tamper{
		{name: "reduced row made counted and aiperf-qualified, served hashes filled in", forged: true,
			want: []string{"sphinx-an4-l0", "a reduced row is counted"},
			edit: func(t *testing.T, f *forger) {
				i, _ := f.result(asr, fv, evidence.KindReduced)
				f.stage(asr, func(s *evidence.Stage) {
					r := &s.Results[i]
					r.Counted, r.Status = true, q
					r.Bundle.SHA256Served, r.Bundle.SHA256After = r.Bundle.SHA256Built, r.Bundle.SHA256Built
					for j := range s.Inventory {
						if s.Inventory[j].Profile == r.Profile {
							s.Inventory[j].Status = q
						}
					}
				})
			}},
		{name: "reduced row made qualified: status without AIPerf artifacts", forged: true,
			want: []string{"sphinx-an4-l0", "status aiperf-qualified without", "AIPerf artifacts"},
			edit: func(t *testing.T, f *forger) {
				i, _ := f.result(asr, fv, evidence.KindReduced)
				f.stage(asr, func(s *evidence.Stage) { s.Results[i].Status = q })
			}},
		{name: "measured request turned into HTTP 500 with an AIPerf error", forged: true,
			want: []string{"failed requests", "HTTP 500"},
			edit: func(t *testing.T, f *forger) {
				_, r := f.result(asr, q, "")
				done := false
				f.jsonl(f.runDirs(r)[0]+"/profile_export_raw.jsonl", func(m map[string]any) map[string]any {
					if !done && measured(m) {
						m["status"], m["error"], done = 500, map[string]any{"code": 500, "type": "InternalServerError", "message": "boom"}, true
					}
					return m
				})
				f.report()
			}},
		{name: "gate figure lowered and the report regenerated", forged: true,
			want: []string{"gate recomputed differently", ".figures.gold_wer"},
			edit: func(t *testing.T, f *forger) {
				i, _ := f.result(asr, q, "")
				f.stage(asr, func(s *evidence.Stage) { s.Results[i].Gate.Figures["gold_wer"] /= 2 })
			}},
		{name: "gate threshold loosened in the evidence", forged: true,
			want: []string{"gate recomputed differently", ".thresholds."},
			edit: func(t *testing.T, f *forger) {
				i, _ := f.result(asr, q, "")
				f.stage(asr, func(s *evidence.Stage) { s.Results[i].Gate.Thresholds["gold_wer"] = 0.99 })
			}},
		{name: "threshold pin in the evidence changed", forged: true,
			want: []string{"thresholds/", "evidence records 0000"},
			edit: func(t *testing.T, f *forger) {
				i, _ := f.result(asr, q, "")
				f.stage(asr, func(s *evidence.Stage) { s.Results[i].ThresholdPin = strings.Repeat("0", 64) })
			}},
		{name: "failed gate recorded as passed: a gate transcript changed, figures recomputed", forged: true,
			want: []string{"gate recorded as passed=true", "ned_max"},
			edit: func(t *testing.T, f *forger) {
				i, _ := f.result(asr, q, "")
				f.stage(asr, func(s *evidence.Stage) {
					g := s.Results[i].Gate
					g.Items[0].Output = "entirely different words"
					rescoreASRGate(g)
				})
			}},
		{name: "gate upstream transcript replaced in the evidence", forged: true,
			want: []string{"gate clip", "are not the pinned"},
			edit: func(t *testing.T, f *forger) {
				i, _ := f.result(asr, q, "")
				f.stage(asr, func(s *evidence.Stage) {
					it := &s.Results[i].Gate.Items[0]
					it.Expected = it.Output + " extra"
				})
			}},
		{name: "T2I gate figure PSNR raised", forged: true,
			want: []string{"gate recomputed differently", ".figures.psnr_min_db"},
			edit: func(t *testing.T, f *forger) {
				i, _ := f.result(t2i, q, "")
				f.stage(t2i, func(s *evidence.Stage) { s.Results[i].Gate.Figures["psnr_min_db"] = 1e300 })
			}},
		{name: "T2I served image replaced everywhere (response, record, outputs)", forged: true,
			want: []string{"served image", "is not the gate's image"},
			edit: func(t *testing.T, f *forger) {
				i, r := f.result(t2i, q, "")
				target := r.Outputs[len(r.Outputs)-1]
				w, h := 0, 0
				fmt.Sscanf(fmt.Sprint(r.Settings["extra_inputs"].(map[string]any)["size"]), "%dx%d", &w, &h)
				b64, sha := flatPNG(w, h)
				f.responses(r, func(id string, body map[string]any) {
					if id == target.RequestID {
						body["data"] = []any{map[string]any{"b64_json": b64}}
					}
				})
				f.jsonl(r.Records, func(m map[string]any) map[string]any {
					if requestID(m) == target.RequestID {
						m["output"].(map[string]any)["images"] = []any{map[string]any{"sha256": sha}}
					}
					return m
				})
				f.stage(t2i, func(s *evidence.Stage) {
					for j := range s.Results[i].Outputs {
						if o := &s.Results[i].Outputs[j]; o.RequestID == target.RequestID {
							o.HTTPOutput, o.Native = sha, sha
						}
					}
				})
			}},
		{name: "JUnit spec turned failed under a qualified row", forged: true,
			want: []string{"junit/", "is failed, but evidence row"},
			edit: func(t *testing.T, f *forger) {
				_, r := f.result(asr, q, "")
				// The suite's own report (suites/junit), which `make qualify-all` publishes.
				f.rewrite("junit/asr.xml", func(b []byte) []byte {
					s := string(b)
					at := strings.Index(s, `classname="asr.`+r.Profile+`"`)
					if at < 0 {
						t.Fatalf("no spec of %s in junit/asr.xml", r.Profile)
					}
					st := strings.Index(s[at:], `status="passed"`) + at
					return []byte(s[:st] + `status="failed"` + s[st+len(`status="passed"`):])
				})
			}},
		{name: "the T2I JUnit reports deleted", forged: true,
			want: []string{"t2i/", "no JUnit spec for this row"},
			edit: func(t *testing.T, f *forger) {
				// the suite's own junit/t2i.xml, and Ginkgo's junit/suites_t2i_junit.xml where a run has one
				files, _ := filepath.Glob(f.path("junit/*t2i*.xml"))
				for _, p := range files {
					os.Remove(p)
				}
			}},
		{name: "stage.json edited, evidence.json left", forged: true,
			want: []string{"asr/stage.json", "differs from stage asr"},
			edit: func(t *testing.T, f *forger) {
				f.rewrite("asr/stage.json", func(b []byte) []byte { return bytes.Replace(b, []byte(`"failures"`), []byte(`"failures_"`), 1) })
				f.rewrite("asr/stage.json", func(b []byte) []byte { return bytes.Replace(b, []byte(`"reason"`), []byte(`"reason_x"`), 1) })
			}},
		{name: "stored bundle edited", forged: true,
			want: []string{"inputs recomputed differently", ".sha256_built: recomputed"},
			edit: func(t *testing.T, f *forger) {
				_, r := f.result(asr, q, "")
				f.rewrite(r.Bundle.Path, func(b []byte) []byte { b[len(b)-1] ^= 1; return b })
			}},
		{name: "stored input WAV edited", forged: true,
			want: []string{"inputs/", ".wav", "stored input sha256"},
			edit: func(t *testing.T, f *forger) {
				_, r := f.result(asr, q, "")
				wavs, _ := filepath.Glob(filepath.Join(filepath.Dir(f.path(r.Records)), "inputs", "*.wav"))
				rel, _ := filepath.Rel(f.dir, wavs[0])
				f.rewrite(rel, func(b []byte) []byte { b[len(b)-1] ^= 1; return b })
			}},
		{name: "stage-9 gate accuracy raised", forged: true,
			want: []string{"audioqa/", "gate recomputed differently", ".figures.answer_accuracy"},
			edit: func(t *testing.T, f *forger) {
				i, _ := f.result(qa, q, "")
				f.stage(qa, func(s *evidence.Stage) { s.Results[i].Gate.Figures["answer_accuracy"] += 0.25 })
			}},
		{name: "stage-9 served answer changed in the evidence", forged: true,
			want: []string{"audioqa/", "served answer", "the gate's answer for that pair is"},
			edit: func(t *testing.T, f *forger) {
				i, _ := f.result(qa, q, "")
				f.stage(qa, func(s *evidence.Stage) { s.Results[i].Outputs[0].HTTPOutput += "0" })
			}},
		{name: "stored audio-QA clip edited", forged: true,
			want: []string{"audioqa/", ".wav", "stored input sha256"},
			edit: func(t *testing.T, f *forger) {
				_, r := f.result(qa, q, "")
				wavs, _ := filepath.Glob(filepath.Join(filepath.Dir(f.path(r.Records)), "inputs", "*", "*.wav"))
				if len(wavs) == 0 {
					t.Fatalf("no stored clips beside %s", r.Records)
				}
				rel, _ := filepath.Rel(f.dir, wavs[0])
				f.rewrite(rel, func(b []byte) []byte { b[len(b)-1] ^= 1; return b })
			}},
		{name: "bundle hashes replaced consistently in the evidence", forged: true,
			want: []string{"inputs recomputed differently", ".sha256_built: recomputed"},
			edit: func(t *testing.T, f *forger) {
				i, _ := f.result(asr, q, "")
				f.stage(asr, func(s *evidence.Stage) {
					b := &s.Results[i].Bundle
					sha := strings.Repeat("b", 64)
					b.SHA256Built, b.SHA256Gated, b.SHA256Served, b.SHA256After = sha, sha, sha, sha
					s.Results[i].Gate.BundleSHA = sha
				})
			}},
		{name: "the 2 slowest measured requests deleted everywhere and everything recomputed", forged: true,
			want: []string{"request counts disagree"},
			edit: func(t *testing.T, f *forger) {
				i, r := f.result(asr, q, "")
				exports, _ := f.served(r)
				drop := slowest(exports, 2)
				keep := func(m map[string]any) map[string]any {
					if drop[requestID(m)] {
						return nil
					}
					return m
				}
				for _, d := range f.runDirs(r) {
					f.jsonl(d+"/profile_export_raw.jsonl", keep)
					f.jsonl(d+"/profile_export.jsonl", keep)
				}
				f.jsonl(r.Records, keep)
				f.stage(asr, func(s *evidence.Stage) { f.recompute(&s.Results[i]) })
			}},
		{name: "every transcript set to the gold text everywhere and recomputed", forged: true,
			want: []string{"served transcript", "the gate's transcript of that clip is"},
			edit: func(t *testing.T, f *forger) {
				i, r := f.imperfect(asr) // a row whose transcripts differ from the gold text
				gold := map[string]string{}
				for _, o := range r.Outputs {
					gold[o.RequestID] = o.Gold
				}
				f.responses(r, func(id string, body map[string]any) {
					if g, ok := gold[id]; ok {
						body["text"] = g
					}
				})
				f.jsonl(r.Records, func(m map[string]any) map[string]any {
					if g, ok := gold[requestID(m)]; ok {
						m["output"].(map[string]any)["text"] = g
					}
					return m
				})
				f.stage(asr, func(s *evidence.Stage) {
					for j := range s.Results[i].Outputs {
						o := &s.Results[i].Outputs[j]
						o.HTTPOutput, o.Native = o.Gold, o.Gold
					}
					f.recompute(&s.Results[i])
				})
			}},
		{name: "timing figure edited", forged: true,
			want: []string{"figure", "recomputed"},
			edit: func(t *testing.T, f *forger) {
				i, _ := f.result(asr, q, "")
				f.stage(asr, func(s *evidence.Stage) { s.Results[i].Timing.Figures[0].Value /= 2 })
			}},
		{name: "a measured client latency edited in profile_export.jsonl", forged: true,
			// The first figure that differs is named: client_latency_* or client_minus_task_*, both
			// derived from the edited latency; which comes first depends on the run's values.
			want: []string{"timing recomputed differently", "figures[client_"},
			edit: func(t *testing.T, f *forger) {
				_, r := f.result(asr, q, "")
				done := false
				f.jsonl(f.runDirs(r)[0]+"/profile_export.jsonl", func(m map[string]any) map[string]any {
					if lat, ok := m["metrics"].(map[string]any)["request_latency"].(map[string]any); ok && !done && measured(m) {
						lat["value"], done = lat["value"].(float64)*3, true
					}
					return m
				})
			}},
		{name: "one stored HTTP output edited", forged: true,
			want: []string{"identity recomputed differently", "http_output"},
			edit: func(t *testing.T, f *forger) {
				i, _ := f.result(asr, q, "")
				f.stage(asr, func(s *evidence.Stage) { s.Results[i].Outputs[0].HTTPOutput += " (edited)" })
			}},
		{name: "a server record dropped", forged: true,
			want: []string{"join recomputed"},
			edit: func(t *testing.T, f *forger) {
				_, r := f.result(asr, q, "")
				dropped := false
				f.jsonl(r.Records, func(m map[string]any) map[string]any {
					if !dropped && m["route"] == r.Join.Route {
						dropped = true
						return nil
					}
					return m
				})
			}},
		{name: "a server record claims another input (input_sha256 replaced)", forged: true,
			want: []string{"server-records.jsonl", "the server recorded input_sha256 " + strings.Repeat("0", 64), "the payload AIPerf sent is"},
			edit: claimAnotherInput(asr, "0")},
		{name: "an image record claims another input (input_sha256 replaced)", forged: true,
			want: []string{"server-records.jsonl", "the server recorded input_sha256 " + strings.Repeat("1", 64), "the payload AIPerf sent is"},
			edit: claimAnotherInput(t2i, "1")},
		{name: "a prompt AIPerf was given replaced in its inputs.json", forged: true,
			want: []string{"inputs.json", `prompt "a forged prompt", pinned`},
			edit: func(t *testing.T, f *forger) {
				_, r := f.result(t2i, q, "")
				inputs, _ := filepath.Glob(f.path(r.AIPerf.Dir + "/" + aiperfexport.RunsDir + "/run_*/inputs.json"))
				if len(inputs) == 0 {
					t.Fatalf("no inputs.json under %s", r.AIPerf.Dir)
				}
				rel, _ := filepath.Rel(f.dir, inputs[0])
				prompt := regexp.MustCompile(`"prompt": ?"[^"]*"`)
				f.rewrite(rel, func(b []byte) []byte {
					if !prompt.Match(b) {
						t.Fatalf("%s has no prompt", rel)
					}
					done := false
					return prompt.ReplaceAllFunc(b, func(m []byte) []byte {
						if done {
							return m
						}
						done = true
						return []byte(`"prompt": "a forged prompt"`)
					})
				})
			}},
		{name: "planned claim: a family-validated row turned planned, keeping its results", forged: true,
			want: []string{"status planned but the row claims results"},
			edit: func(t *testing.T, f *forger) {
				i, _ := f.result(asr, fv, evidence.KindVariant)
				f.stage(asr, func(s *evidence.Stage) {
					s.Results[i].Status = evidence.StatusPlanned
					for j := range s.Inventory {
						if s.Inventory[j].Profile == s.Results[i].Profile {
							s.Inventory[j].Status = evidence.StatusPlanned
						}
					}
				})
			}},
		{name: "qualification.md edited", want: []string{"qualification.md", "does not match evidence.json"},
			edit: func(t *testing.T, f *forger) {
				f.rewrite("qualification.md", func(b []byte) []byte { return bytes.Replace(b, []byte("failed"), []byte("qualified"), 1) })
				f.rewrite("qualification.md", func(b []byte) []byte { return append(b, []byte("\nall good\n")...) })
			}},
		{name: "summary.json edited (verdict)", want: []string{"summary.json", "does not match evidence.json"},
			edit: func(t *testing.T, f *forger) {
				f.rewrite("summary.json", func(b []byte) []byte {
					var sum map[string]any
					json.Unmarshal(b, &sum)
					sum["verdict"] = "QUALIFIED (edited)"
					out, _ := evidence.EncodeJSON(sum)
					return out
				})
			}},
		{name: "AIPerf aggregate export edited (request count)", forged: true, want: []string{"profile_export_aiperf.json", "AIPerf's summary says 6 measured"},
			edit: func(t *testing.T, f *forger) {
				_, r := f.result(asr, q, "")
				f.rewrite(f.runDirs(r)[0]+"/profile_export_aiperf.json", func(b []byte) []byte {
					var agg map[string]any
					json.Unmarshal(b, &agg)
					agg["request_count"].(map[string]any)["avg"] = 6.0
					out, _ := json.Marshal(agg)
					return out
				})
			}},
		{name: "a latency figure edited", sigOnly: true, want: []string{"-latency.svg", "changed after signing"},
			edit: func(t *testing.T, f *forger) {
				_, r := f.result(asr, q, "")
				f.rewrite(report.FigureDir+"/asr-"+r.Profile+"-latency.svg", func(b []byte) []byte { return bytes.Replace(b, []byte("<svg"), []byte("<svg data-x=\"1\""), 1) })
			}},
		{name: "server.log deleted", sigOnly: true, want: []string{"server.log", "removed after signing"},
			edit: func(t *testing.T, f *forger) {
				_, r := f.result(asr, q, "")
				os.Remove(filepath.Join(filepath.Dir(f.path(r.Records)), "server.log"))
			}},
		{name: "a file added to the run", sigOnly: true, want: []string{"asr/extra-evidence.json", "added after signing"},
			edit: func(t *testing.T, f *forger) {
				os.WriteFile(f.path("asr/extra-evidence.json"), []byte("{}"), 0o644)
			}},
		{name: "envelope payload edited", sigOnly: true, want: []string{attest.EnvelopeFile, "signature does not verify"},
			edit: func(t *testing.T, f *forger) {
				f.rewrite(attest.EnvelopeFile, func(b []byte) []byte {
					var env map[string]any
					json.Unmarshal(b, &env)
					payload, _ := base64.StdEncoding.DecodeString(env["payload"].(string))
					env["payload"] = base64.StdEncoding.EncodeToString(bytes.Replace(payload, []byte(`"sha256"`), []byte(`"sha256" `), 1))
					out, _ := json.Marshal(env)
					return out
				})
			}},
	}
	return append(append(append(cases, copyForgeries()...), roundThreeForgeries()...), append(append(append(secondSourceForgeries(), roundFourForgeries()...), roundFiveForgeries()...), append(append(pictureForgeries(), roundSixForgeries()...), append(append(junitForgeries(), strippedForgeries()...), append(append(admissionForgeries(), admissionReviewForgeries()...), inventoryForgeries()...)...)...)...)...)
}

// TestTamperedRunsAreCaught edits a real reduced run, produced by the suites, in each way in
// the table; `qual verify --key` must name the file or figure each time. Consistent forgeries
// are re-signed by the forger (so only a pinned key catches them by signature) and must also be
// caught by the recomputations alone.
func TestTamperedRunsAreCaught(t *testing.T) {
	run := realRun(t)
	sig, ev := verifyAll(t, run.dir, run.pub)
	if len(sig)+len(ev) != 0 {
		t.Fatalf("the untouched reduced run does not verify: %v %v", sig, ev)
	}
	var table tamperTable
	t.Cleanup(func() { t.Logf("tamper table (%d kinds):\n%s", len(table.lines), strings.Join(table.sorted(), "\n")) })
	for _, c := range tampers() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // each case edits its own copy; two cores verify two at once
			if line := tamperCase(t, run, c); line != "" {
				table.add(line)
			}
		})
	}
	if len(tampers()) < 20 {
		t.Errorf("the table has %d kinds of edits; the issue asks for at least 20", len(tampers()))
	}
}

// tamperCase edits a copy of the run as c says, verifies it in full and returns the case's line
// of the table (the problem that caught it).
func tamperCase(t *testing.T, run *publishedRun, c tamper) string {
	dir := copyRun(t, run)
	f := &forger{t: t, dir: dir}
	var err error
	if f.e, err = evidence.Read(dir); err != nil {
		t.Fatal(err)
	}
	c.edit(t, f)
	if c.forged {
		forgerKey, _, err := attest.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := attest.Sign(context.Background(), dir, forgerKey); err != nil {
			t.Fatal(err)
		}
	}
	if c.check != nil {
		c.check(t, dir)
		if c.want == nil {
			return fmt.Sprintf("%-70s | (own check)", c.name)
		}
	}
	sig, ev := verifyAll(t, dir, run.pub)
	if len(sig) == 0 && c.name != "a signed run copied to another directory name" {
		t.Errorf("the pinned signature check passed an edited run")
	}
	if c.rerunWant != nil {
		rerunProblems := checkRerun(t, f, c)
		if c.want == nil {
			return fmt.Sprintf("%-70s | %s", c.name, rerunProblems)
		}
	}
	if c.forged && !containsAll(sig, attest.EnvelopeFile, "signature does not verify") {
		t.Errorf("re-signed forgery: signature problems %v", sig)
	}
	got := ev
	if c.sigOnly {
		got = sig
	}
	if !containsAll(got, c.want...) {
		t.Fatalf("no problem contains %q:\nsignature: %v\nevidence: %v", c.want, sig, ev)
	}
	for _, p := range got {
		if containsAll([]string{p}, c.want...) {
			return fmt.Sprintf("%-70s | %s", c.name, p)
		}
	}
	return ""
}

// tamperTable collects the cases' lines as they finish, in any order.
type tamperTable struct {
	mu    sync.Mutex
	lines []string
}

func (tt *tamperTable) add(line string) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	tt.lines = append(tt.lines, line)
}

func (tt *tamperTable) sorted() []string {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	return slices.Sorted(slices.Values(tt.lines))
}

// metricsExports rewrites profile_export.jsonl of every AIPerf run of a row.
func (f *forger) metricsExports(r evidence.Result, fn func(map[string]any) map[string]any) {
	f.t.Helper()
	for _, d := range f.runDirs(r) {
		f.jsonl(d+"/profile_export.jsonl", fn)
	}
}

// rawExports rewrites profile_export_raw.jsonl of every AIPerf run of a row.
func (f *forger) rawExports(r evidence.Result, fn func(map[string]any) map[string]any) {
	f.t.Helper()
	for _, d := range f.runDirs(r) {
		f.jsonl(d+"/profile_export_raw.jsonl", fn)
	}
}

// scaleTiming multiplies a trtmc_timing object's fields.
func scaleTiming(timing any, k float64) {
	if m, ok := timing.(map[string]any); ok {
		for name, v := range m {
			if x, ok := v.(float64); ok {
				m[name] = x * k
			}
		}
	}
}

// halveWindow halves a request's AIPerf window (end moves toward start).
func halveWindow(md map[string]any) {
	start, _ := md["request_start_ns"].(float64)
	end, _ := md["request_end_ns"].(float64)
	if end > start {
		md["request_end_ns"] = start + (end-start)/2
	}
}

func latencyOf(m map[string]any) map[string]any {
	metrics, _ := m["metrics"].(map[string]any)
	lat, _ := metrics["request_latency"].(map[string]any)
	return lat
}

// nativeBin is the trtmc-native `qual images` built for the real run; run alone, without that
// build (`go test ./harness/verify`), the same source built here.
func nativeBin(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(containerspec.HostBinDir(repoRootForTest(t)), "trtmc-native")
	if _, err := os.Stat(bin); err != nil {
		t.Logf("no %s (%v): building trtmc-native from this checkout", bin, err)
		return buildNative(t)
	}
	return bin
}

// copyForgeries are the forgeries that keep every recomputation consistent and leave another
// copy of the edited datum behind in the run, re-signed by the forger: unpinned verify names
// the file and the copies that disagree (or, for outputs nothing else holds, lists them as not
// re-derived and `--rerun` refuses them).
func copyForgeries() []tamper {
	asr, t2i := string(stage.ASR), string(stage.T2I)
	q, fv := evidence.StatusQualified, evidence.StatusFamilyValidated
	return []tamper{
		{name: "E01 only report.html edited: the verdict and lights", forged: true,
			want: []string{"report.html", "does not match evidence.json"},
			edit: func(t *testing.T, f *forger) {
				f.rewrite("report.html", func(b []byte) []byte {
					return bytes.Replace(b, []byte("<body>"), []byte("<body><h1>Verdict: QUALIFIED</h1>"), 1)
				})
			}},
		{name: "E02 a variant row's gate outputs set to the pinned upstream text, figures recomputed", forged: true,
			rerunWant: []string{"--rerun: gate item", "the native Task gives"},
			edit: func(t *testing.T, f *forger) {
				i, r := f.result(asr, fv, evidence.KindReduced)
				f.forgesGate(asr, r)
				f.stage(asr, func(s *evidence.Stage) {
					g := s.Results[i].Gate
					it := &g.Items[0] // "the model gave the upstream text" (or the gold text)
					switch {
					case it.Expected != it.Output:
						it.Output = it.Expected
					case it.Gold != it.Output:
						it.Output = it.Gold
					default:
						it.Output += " indeed"
					}
					rescoreASRGate(g)
				})
			},
			rerunRow: asr + "/sphinx-an4-l0"},
		{name: "E12 a row deleted from the evidence, its failed JUnit spec left", forged: true,
			want: []string{"junit/", "is failed, but the evidence has no row"},
			edit: func(t *testing.T, f *forger) {
				i, r := f.result(asr, fv, evidence.KindReduced)
				f.rewrite("junit/"+asr+".xml", func(b []byte) []byte {
					s := string(b)
					at := strings.Index(s, `classname="`+asr+`.`+r.Profile+`"`)
					if at < 0 {
						t.Fatalf("no spec of %s in junit/%s.xml", r.Profile, asr)
					}
					st := strings.Index(s[at:], `status="passed"`) + at
					return []byte(s[:st] + `status="failed"` + s[st+len(`status="passed"`):])
				})
				f.stage(asr, func(s *evidence.Stage) {
					s.Results = slices.Delete(s.Results, i, i+1)
					s.Inventory = slices.DeleteFunc(s.Inventory, func(row evidence.InventoryRow) bool { return row.Profile == r.Profile })
				})
			}},
		{name: "E10 every measured request duplicated with a fresh id, N doubled everywhere", forged: true,
			want: []string{"profile_export.jsonl", "requests in flight at once", "concurrency"},
			edit: func(t *testing.T, f *forger) {
				i, r := f.result(asr, q, evidence.KindFull)
				dup := func(fresh func(map[string]any) bool) func([]byte) []byte {
					return func(b []byte) []byte {
						var out bytes.Buffer
						for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
							out.WriteString(line + "\n")
							var m map[string]any
							json.Unmarshal([]byte(line), &m)
							if md, ok := m["metadata"].(map[string]any); !ok || md["benchmark_phase"] == "profiling" {
								if fresh(m) {
									c, _ := json.Marshal(m)
									out.Write(append(c, '\n'))
								}
							}
						}
						return out.Bytes()
					}
				}
				freshClient := func(m map[string]any) bool {
					md := m["metadata"].(map[string]any)
					id, _ := md["x_request_id"].(string)
					md["x_request_id"] = id + "-2"
					if h, ok := m["request_headers"].(map[string]any); ok {
						for k := range h {
							if strings.EqualFold(k, "X-Request-ID") {
								h[k] = id + "-2"
							}
						}
					}
					return true
				}
				measuredIDs := map[string]bool{}
				exports, _ := f.served(r)
				for _, m := range exports.Metrics {
					if m.Metadata.Phase == "profiling" {
						measuredIDs[m.Metadata.XRequestID] = true
					}
				}
				for _, d := range f.runDirs(r) {
					f.rewrite(d+"/profile_export.jsonl", dup(freshClient))
					f.rewrite(d+"/profile_export_raw.jsonl", dup(freshClient))
					f.rewrite(d+"/profile_export_aiperf.json", func(b []byte) []byte {
						var agg map[string]any
						json.Unmarshal(b, &agg)
						agg["request_count"].(map[string]any)["avg"] = float64(2 * r.AIPerf.Requests)
						out, _ := json.Marshal(agg)
						return out
					})
				}
				f.rewrite(r.Records, dup(func(m map[string]any) bool {
					id, _ := m["request_id"].(string)
					if !measuredIDs[id] {
						return false
					}
					m["request_id"] = id + "-2"
					return true
				}))
				f.stage(asr, func(s *evidence.Stage) {
					row := &s.Results[i]
					n := 2 * row.AIPerf.Requests
					for j, a := range row.AIPerf.Command {
						if a == "--request-count" && j+1 < len(row.AIPerf.Command) {
							row.AIPerf.Command[j+1] = fmt.Sprint(n)
						}
					}
					row.AIPerf.Requests, row.Settings["requests"] = n, float64(n)
					var extra []evidence.Output
					for _, o := range row.Outputs {
						if measuredIDs[o.RequestID] {
							o.RequestID += "-2"
							extra = append(extra, o)
						}
					}
					row.Outputs = append(row.Outputs, extra...)
					f.recompute(row)
				})
			}},
		{name: "E05 the slowest request's X-Request-ID removed from its raw line and its record deleted", forged: true,
			want: []string{"timing over", "runs × N"},
			edit: func(t *testing.T, f *forger) {
				i, r := f.result(asr, q, evidence.KindFull)
				exports, _ := f.served(r)
				drop := slowest(exports, 1)
				f.rawExports(r, func(m map[string]any) map[string]any {
					if drop[requestID(m)] {
						delete(m, "request_headers")
						m["metadata"].(map[string]any)["x_request_id"] = ""
					}
					return m
				})
				f.jsonl(r.Records, func(m map[string]any) map[string]any {
					if drop[requestID(m)] {
						return nil
					}
					return m
				})
				f.stage(asr, func(s *evidence.Stage) { f.recompute(&s.Results[i]) })
			}},
		{name: "E03 every time of one row halved (exports, timestamps, records, bodies), AIPerf's summary left", forged: true,
			want: []string{"profile_export_aiperf.json", "AIPerf's summary request_latency", "measured requests in profile_export.jsonl give"},
			edit: func(t *testing.T, f *forger) {
				i, r := f.result(asr, q, evidence.KindFull)
				f.metricsExports(r, func(m map[string]any) map[string]any {
					if lat := latencyOf(m); lat != nil {
						lat["value"] = lat["value"].(float64) / 2
					}
					halveWindow(m["metadata"].(map[string]any))
					return m
				})
				f.rawExports(r, func(m map[string]any) map[string]any {
					halveWindow(m["metadata"].(map[string]any))
					return m
				})
				f.responses(r, func(_ string, body map[string]any) { scaleTiming(body["trtmc_timing"], 0.5) })
				f.jsonl(r.Records, func(m map[string]any) map[string]any { scaleTiming(m["trtmc_timing"], 0.5); return m })
				f.stage(asr, func(s *evidence.Stage) { f.recompute(&s.Results[i]) })
			}},
		{name: "E19a request_latency halved only in profile_export.jsonl, its end − start left", forged: true,
			want: []string{"profile_export.jsonl", "request_latency", "request_end_ns − request_start_ns"},
			edit: func(t *testing.T, f *forger) {
				i, r := f.result(asr, q, evidence.KindFull)
				_, records := f.served(r)
				handler := map[string]float64{} // timing.Samples refuses a client latency below the Task's
				for _, rec := range records {
					handler[rec.RequestID] = rec.Timing.HandlerMS
				}
				f.metricsExports(r, func(m map[string]any) map[string]any {
					if lat := latencyOf(m); lat != nil {
						lat["value"] = max(lat["value"].(float64)/2, handler[requestID(m)])
					}
					return m
				})
				f.stage(asr, func(s *evidence.Stage) { f.recompute(&s.Results[i]) })
			}},
		{name: "E19b model_call_ms halved only in the server records", forged: true,
			want: []string{"server-records.jsonl", "trtmc_timing", "response body"},
			edit: func(t *testing.T, f *forger) {
				i, r := f.result(asr, q, evidence.KindFull)
				f.jsonl(r.Records, func(m map[string]any) map[string]any {
					if tm, ok := m["trtmc_timing"].(map[string]any); ok && m["route"] == r.Join.Route {
						tm["model_call_ms"] = tm["model_call_ms"].(float64) / 2
					}
					return m
				})
				f.stage(asr, func(s *evidence.Stage) { f.recompute(&s.Results[i]) })
			}},
		{name: "E20 the no-caching repeats' Task times cut to 1% in the evidence and their records, the verdict left passed", forged: true,
			want: []string{"no-caching check recomputed differently", "may cache results"},
			edit: func(t *testing.T, f *forger) {
				i, r := f.result(asr, q, evidence.KindFull)
				if r.NoCache == nil {
					t.Fatalf("%s has no no-caching check", r.Profile)
				}
				cut := map[string]bool{}
				f.stage(asr, func(s *evidence.Stage) {
					n := s.Results[i].NoCache
					for j := range n.Repeats {
						n.Repeats[j].TaskMS /= 100
						cut[n.Repeats[j].RequestID] = true
					}
				})
				f.jsonl(r.NoCache.Records, func(m map[string]any) map[string]any {
					if tm, ok := m["trtmc_timing"].(map[string]any); ok && cut[m["request_id"].(string)] {
						tm["model_call_ms"] = tm["model_call_ms"].(float64) / 100
					}
					return m
				})
			}},
		{name: "E21 a no-caching repeat's record deleted", forged: true,
			want: []string{"no-caching request", "has 0 records"},
			edit: func(t *testing.T, f *forger) {
				_, r := f.result(asr, q, evidence.KindFull)
				gone := r.NoCache.Repeats[0].RequestID
				f.jsonl(r.NoCache.Records, func(m map[string]any) map[string]any {
					if m["request_id"] == gone {
						return nil
					}
					return m
				})
			}},
		{name: "E04 audio_seconds doubled in the records, derived figures recomputed", forged: true,
			want: []string{"server-records.jsonl", "audio_seconds", "the WAV AIPerf uploaded"},
			edit: func(t *testing.T, f *forger) {
				i, r := f.result(asr, q, evidence.KindFull)
				f.jsonl(r.Records, func(m map[string]any) map[string]any {
					if out, ok := m["output"].(map[string]any); ok {
						if s, ok := out["audio_seconds"].(float64); ok {
							out["audio_seconds"] = 2 * s
						}
					}
					return m
				})
				f.stage(asr, func(s *evidence.Stage) { f.recompute(&s.Results[i]) })
			}},
		{name: "E08 one row's bundle replaced by another valid bundle, its hashes updated", forged: true,
			want: []string{".bundle", "bundle header says profile"},
			edit: func(t *testing.T, f *forger) {
				i, r := f.result(asr, q, evidence.KindFull)
				_, other := f.result(asr, fv, evidence.KindReduced)
				data, err := os.ReadFile(f.path(other.Bundle.Path))
				if err != nil {
					t.Fatal(err)
				}
				f.write(r.Bundle.Path, data)
				sha, _ := pinned.FileSHA256(f.path(r.Bundle.Path))
				f.jsonl(r.Records, func(m map[string]any) map[string]any {
					if m["bundle_sha256"] != nil {
						m["bundle_sha256"] = sha
					}
					return m
				})
				f.stage(asr, func(s *evidence.Stage) {
					b := &s.Results[i].Bundle
					b.SHA256Built, b.SHA256Gated, b.SHA256Served, b.SHA256After = sha, sha, sha, sha
					s.Results[i].Gate.BundleSHA = sha
				})
			}},
		{name: "E11 a reduced row relabelled full, its gap row deleted", forged: true,
			want: []string{"asr/stage.json", "inventory row sphinx-an4-l0 is not the row", `kind is "full", the rebuilt row's "reduced"`},
			edit: func(t *testing.T, f *forger) {
				i, r := f.result(asr, fv, evidence.KindReduced)
				f.stage(asr, func(s *evidence.Stage) {
					s.Results[i].Kind = evidence.KindFull
					var checkpoint string
					for j := range s.Inventory {
						if s.Inventory[j].Profile == r.Profile {
							s.Inventory[j].Kind, checkpoint = evidence.KindFull, s.Inventory[j].Checkpoint
						}
					}
					s.Inventory = slices.DeleteFunc(s.Inventory, func(row evidence.InventoryRow) bool {
						return row.Kind == evidence.KindGap && row.Checkpoint == checkpoint
					})
				})
			}},
		{name: "E09 aiperf 0.14.0, an H100 and 112 cores recorded", forged: true,
			want: []string{"evidence records aiperf 0.14.0"},
			edit: func(t *testing.T, f *forger) {
				for _, st := range []string{asr, t2i, string(stage.AudioQA)} {
					f.stage(st, func(s *evidence.Stage) {
						s.Versions["aiperf"] = "0.14.0"
						s.Hardware.GPU, s.Hardware.Cores = "NVIDIA H100 80GB HBM3", 112
						for j := range s.Results {
							if s.Results[j].AIPerf != nil {
								s.Results[j].AIPerf.Version = "0.14.0"
							}
						}
					})
				}
			}},
		{name: "E16 JUnit properties edited (a latency, a gate figure)", forged: true,
			want: []string{"junit/asr.xml", "property", "evidence row"},
			edit: func(t *testing.T, f *forger) {
				f.rewrite("junit/"+asr+".xml", func(b []byte) []byte {
					re := regexp.MustCompile(`(<property name="(client_latency_p50_ms|gate_gold_wer)" value=")([^"]*)(")`)
					if !re.Match(b) {
						t.Fatalf("junit/%s.xml has no client_latency_p50_ms or gate_gold_wer property", asr)
					}
					return re.ReplaceAll(b, []byte("${1}0.001${4}"))
				})
			}},
		{name: "E07 a whisper gate figure with a pinned bound set to 0, a record's audio_seconds 999", forged: true,
			want:      []string{"server-records.jsonl", "audio_seconds 999"},
			rerunWant: []string{"--rerun: gate figure gold_wer_normalized re-executed"}, rerunRow: asr + "/whisper-tiny-en",
			edit: func(t *testing.T, f *forger) {
				i, r := f.profile(asr, "whisper-tiny-en")
				f.forgesGate(asr, r)
				done := false
				f.jsonl(r.Records, func(m map[string]any) map[string]any {
					if out, ok := m["output"].(map[string]any); ok && !done && out["audio_seconds"] != nil {
						out["audio_seconds"], done = 999.0, true
					}
					return m
				})
				f.stage(asr, func(s *evidence.Stage) { s.Results[i].Gate.Figures["gold_wer_normalized"] = 0 })
			}},
		{name: "E17 a T2I variant's PSNR and SSIM raised (a row that serves no image)", forged: true,
			want:      []string{"junit/t2i.xml", "gate_psnr_min_db"},
			rerunWant: []string{"--rerun: gate figure psnr_min_db re-executed"},
			edit: func(t *testing.T, f *forger) {
				i, r := f.notServed(t2i)
				f.forgesGate(t2i, r)
				f.stage(t2i, func(s *evidence.Stage) {
					s.Results[i].Gate.Figures["psnr_min_db"] = 1e300
					s.Results[i].Gate.Figures["ssim_min"] = 1
				})
			}},
		{name: "E18 case-variant duplicate keys in stage.json and evidence.json", forged: true,
			want: []string{"is not canonical JSON", `key "Status"`},
			edit: func(t *testing.T, f *forger) {
				for _, rel := range []string{asr + "/stage.json", "evidence.json"} {
					f.rewrite(rel, func(b []byte) []byte {
						return bytes.Replace(b, []byte(`"status": "qualified",`), []byte(`"status": "qualified", "Status": "failed",`), 1)
					})
				}
			}},
		{name: "E13 thresholds loosened in pins shipped inside the run directory", forged: true,
			edit: func(t *testing.T, f *forger) {
				for _, rel := range []string{"golden/thresholds.sha256", "suites/targets/reference.yaml"} {
					data, err := os.ReadFile(filepath.Join(repoRoot(t), rel))
					if err != nil {
						t.Fatal(err)
					}
					os.MkdirAll(filepath.Dir(f.path("pins/"+rel)), 0o755)
					os.WriteFile(f.path("pins/"+rel), data, 0o644)
				}
			},
			check: func(t *testing.T, dir string) {
				opts := envOptions() // as with QUAL_ROOT set to the run's pins (a parallel case sets no environment)
				opts.Root, opts.RootFrom = filepath.Join(dir, "pins"), "QUAL_ROOT"
				if _, err := Check(dir, opts); err == nil || !strings.Contains(err.Error(), "is inside the run directory") {
					t.Fatalf("pins inside the run: %v", err)
				}
			}},
		{name: "a valid envelope with a second signature that does not verify", sigOnly: true,
			want: []string{attest.EnvelopeFile, "every signature must verify"},
			edit: func(t *testing.T, f *forger) {
				f.rewrite(attest.EnvelopeFile, func(b []byte) []byte {
					var env map[string]any
					json.Unmarshal(b, &env)
					sigs := env["signatures"].([]any)
					second := map[string]any{"keyid": "forger", "sig": base64.StdEncoding.EncodeToString([]byte("not a signature"))}
					env["signatures"] = append(sigs, second)
					out, _ := json.Marshal(env)
					return out
				})
			},
			check: func(t *testing.T, dir string) {
				rep, err := attest.Verify(context.Background(), dir, nil) // unpinned
				if err != nil || len(rep.Problems) == 0 || !strings.Contains(rep.Problems[0].String(), "every signature must verify") {
					t.Fatalf("unpinned verify of an envelope with a failing signature: %+v %v", rep, err)
				}
			}},
		{name: "an empty directory added to a signed run", sigOnly: true,
			want: []string{"asr/empty/", "directory added after signing"},
			edit: func(t *testing.T, f *forger) { os.MkdirAll(f.path("asr/empty"), 0o755) }},
		{name: "a signed run copied to another directory name",
			edit: func(t *testing.T, f *forger) {},
			check: func(t *testing.T, dir string) {
				renamed := filepath.Join(filepath.Dir(dir), "renamed-run")
				if err := os.Rename(dir, renamed); err != nil {
					t.Fatal(err)
				}
				defer os.Rename(renamed, dir)
				rep, err := Check(renamed, envOptions())
				if err != nil || !containsAll(rep.Notes, "is not the directory's name \"renamed-run\"") {
					t.Fatalf("a renamed run: %+v %v", rep, err)
				}
			}},
	}
}

// find finds the first row of a stage for which ok holds; what says what was looked for.
func (f *forger) find(stage, what string, ok func(evidence.Result) bool) (int, evidence.Result) {
	f.t.Helper()
	for _, s := range f.e.Stages {
		for i, r := range s.Results {
			if s.Stage == stage && ok(r) {
				return i, r
			}
		}
	}
	f.t.Fatalf("the published run has no %s row %s", stage, what)
	return 0, evidence.Result{}
}

// profile finds a stage's row by profile.
func (f *forger) profile(stage, profile string) (int, evidence.Result) {
	f.t.Helper()
	return f.find(stage, profile, func(r evidence.Result) bool { return r.Profile == profile })
}

// notServed finds a gated row of a stage that serves nothing.
func (f *forger) notServed(stage string) (int, evidence.Result) {
	f.t.Helper()
	return f.find(stage, "with a passed gate that serves nothing", func(r evidence.Result) bool {
		return r.Gate != nil && r.Gate.Passed && len(r.Outputs) == 0
	})
}

// checkRerun is `qual verify --rerun` on a forged run, scoped to the rows whose gate the forgery
// edits (every row when it names none): one re-executed gate's problem contains rerunWant, and
// nothing outside the scope was re-executed; a case refused by --rerun alone is listed by
// unpinned verify as not re-derived.
func checkRerun(t *testing.T, f *forger, c tamper) string {
	t.Helper()
	dir := f.dir
	res, err := RerunGates(context.Background(), dir, nativeBin(t), f.rerunRows, envOptions())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range res.Problems {
		got = append(got, p.String())
		if f.rerunRows != nil && !slices.Contains(f.rerunRows, p.Where) && !strings.HasSuffix(p.Where, ".bundle") {
			t.Errorf("--rerun=%v re-executed a row outside its scope: %v", f.rerunRows, p)
		}
	}
	for _, row := range res.Rows {
		if where, _, _ := strings.Cut(row, ":"); f.rerunRows != nil && !slices.Contains(f.rerunRows, where) {
			t.Errorf("--rerun=%v re-executed a row outside its scope: %s", f.rerunRows, row)
		}
	}
	if !containsAll(got, c.rerunWant...) {
		t.Fatalf("--rerun: no problem contains %q: %v", c.rerunWant, got)
	}
	if c.want == nil {
		rep, err := Check(dir, envOptions())
		if err != nil {
			t.Fatal(err)
		}
		listed := slices.ContainsFunc(rep.Recorded, func(r Recorded) bool { return r.Row == c.rerunRow && r.ByRerun })
		if !listed {
			t.Fatalf("unpinned verify does not list %s's outputs as not re-derived: %+v", c.rerunRow, rep.Recorded)
		}
	}
	for _, p := range got {
		if containsAll([]string{p}, c.rerunWant...) {
			return p
		}
	}
	return ""
}

// rescoreASRGate recomputes an ASR gate's figures from its items, as the family's gate does, so
// that a forged output leaves the gate consistent with itself.
func rescoreASRGate(g *evidence.GateResult) {
	var vsRef, vsGold []metrics.Pair
	for _, it := range g.Items {
		vsRef = append(vsRef, metrics.Pair{ID: it.ID, Expected: it.Expected, Hyp: it.Output})
		vsGold = append(vsGold, metrics.Pair{ID: it.ID, Expected: it.Gold, Hyp: it.Output})
	}
	ref := metrics.Score(vsRef, metrics.TRTMCFamily(), metrics.UnitCosts())
	gold := metrics.Score(vsGold, metrics.GoldWER(), metrics.UnitCosts())
	g.Figures["ned_max"] = ref.MaxNED()
	g.Figures["wer_vs_upstream"], _ = ref.WER()
	g.Figures["gold_wer"], _ = gold.WER()
	g.Figures["gold_cer"], _ = gold.CER()
}
