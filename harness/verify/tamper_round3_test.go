package verify

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/report"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
)

// roundThreeForgeries are kinds of the third red team's forgeries and bad inputs: a served image
// that is a decompression bomb, bundles removed with their paths (and --rerun on them), Task
// times and throughput edited against their second sources, and a failed refusal probe under a
// qualified stage. Each is re-signed by a forger.
func roundThreeForgeries() []tamper {
	return []tamper{
		{name: "R3 bundle.path emptied in every row and the bundles deleted", forged: true,
			want:      []string{"bundle.path is empty", "the stored bundle must be in the run"},
			rerunWant: []string{"--rerun cannot re-execute the gate", "bundle.path is empty"},
			edit: func(t *testing.T, f *forger) {
				for _, name := range stageNames(f.e) {
					f.stage(name, func(s *evidence.Stage) {
						for i := range s.Results {
							if p := s.Results[i].Bundle.Path; p != "" {
								if err := os.Remove(f.path(p)); err != nil {
									t.Fatal(err)
								}
								s.Results[i].Bundle.Path = ""
							}
						}
					})
				}
			}},
		{name: "R3 a served T2I image replaced by an 8192×8192 PNG of 70 KB (a decompression bomb)", forged: true,
			want: []string{"over the 4194304-pixel cap"},
			edit: func(t *testing.T, f *forger) {
				_, r := f.result(string(stage.T2I), evidence.StatusQualified, "")
				target := r.Outputs[len(r.Outputs)-1].RequestID
				var buf bytes.Buffer
				if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 8192, 8192))); err != nil {
					t.Fatal(err)
				}
				bomb := base64.StdEncoding.EncodeToString(buf.Bytes())
				f.responses(r, func(id string, body map[string]any) {
					if id == target {
						body["data"] = []any{map[string]any{"b64_json": bomb}}
					}
				})
			}},
		{name: "R3 every Task time of a row halved in the records and bodies, figures recomputed, the /metrics scrape left", forged: true,
			want: []string{"server_metrics_export.json", "the server's /metrics counted"},
			edit: func(t *testing.T, f *forger) {
				i, r := f.result(string(stage.ASR), evidence.StatusQualified, "")
				f.jsonl(r.Records, func(m map[string]any) map[string]any {
					halveTaskTime(m["trtmc_timing"])
					return m
				})
				f.responses(r, func(_ string, body map[string]any) { halveTaskTime(body["trtmc_timing"]) })
				f.stage(string(stage.ASR), func(s *evidence.Stage) { f.recompute(&s.Results[i]) })
				f.junitTiming(string(stage.ASR), i)
			}},
		{name: "R3 throughput doubled by compressing only the raw export's timestamps, figures recomputed", forged: true,
			want: []string{"profile_export_raw.jsonl", "but profile_export.jsonl has"},
			edit: func(t *testing.T, f *forger) {
				i, r := f.result(string(stage.ASR), evidence.StatusQualified, "")
				for _, d := range f.runDirs(r) {
					t0 := -1.0
					f.jsonl(d+"/profile_export_raw.jsonl", func(m map[string]any) map[string]any {
						md := m["metadata"].(map[string]any)
						if t0 < 0 {
							t0 = md["request_start_ns"].(float64)
						}
						for _, k := range []string{"request_start_ns", "request_end_ns"} {
							md[k] = t0 + (md[k].(float64)-t0)/2
						}
						return m
					})
				}
				f.stage(string(stage.ASR), func(s *evidence.Stage) { f.recompute(&s.Results[i]) })
				f.junitTiming(string(stage.ASR), i)
			}},
		{name: "R3 the stage-9 refusal probe answered 200 (failed), the stage left qualified", forged: true,
			want: []string{string(stage.AudioQA), "the refusal probe failed"},
			edit: func(t *testing.T, f *forger) {
				qa := string(stage.AudioQA)
				f.stage(qa, func(s *evidence.Stage) {
					if s.Probe == nil || s.Probe.Planned != "" {
						t.Fatalf("the reduced run's stage %s has no probe that ran: %+v", qa, s.Probe)
					}
					s.Probe.Status, s.Probe.ErrorCode, s.Probe.Message, s.Probe.Passed = 200, "", "", false
				})
				forceStageStatus(t, f, qa, evidence.StageQualified)
			}},
	}
}

func stageNames(e evidence.Evidence) []string {
	var out []string
	for _, s := range e.Stages {
		out = append(out, s.Stage)
	}
	return out
}

// forceStageStatus writes a stage's status over what the status rule settled, in stage.json and
// evidence.json, and re-renders the reports from it: a forger who keeps the verdict.
func forceStageStatus(t *testing.T, f *forger, name string, status evidence.Status) {
	t.Helper()
	for i := range f.e.Stages {
		if s := &f.e.Stages[i]; s.Stage == name {
			s.Status, s.Reason = status, "forced"
			if err := evidence.WriteJSON(f.path(name+"/stage.json"), *s); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := evidence.WriteJSON(f.path("evidence.json"), f.e); err != nil {
		t.Fatal(err)
	}
	if err := report.Write(f.dir, f.e); err != nil {
		t.Fatal(err)
	}
}

// halveTaskTime halves a trtmc_timing object's model_call_ms.
func halveTaskTime(timing any) {
	if m, ok := timing.(map[string]any); ok {
		if v, ok := m["model_call_ms"].(float64); ok {
			m["model_call_ms"] = v / 2
		}
	}
}

// junitTiming rewrites the row's timing properties in the stage's JUnit report (the
// `<figure>_<unit>` properties of its test cases) to the evidence's recomputed figures, so that
// the JUnit copy agrees with the forgery.
func (f *forger) junitTiming(stageName string, i int) {
	f.junitRow(stageName, i, func(r evidence.Result) map[string]float64 {
		props := map[string]float64{}
		for _, fig := range r.Timing.Figures {
			props[regexp.QuoteMeta(fig.Name)+`(?:_(?:ms|s|s_per_s|req_per_s|img_per_s))?`] = fig.Value
		}
		return props
	})
}

// junitRow rewrites the values of the row's properties in the stage's JUnit report: props maps a
// property-name pattern to the evidence's value.
func (f *forger) junitRow(stageName string, i int, props func(evidence.Result) map[string]float64) {
	f.t.Helper()
	var r evidence.Result
	for _, s := range f.e.Stages {
		if s.Stage == stageName {
			r = s.Results[i]
		}
	}
	class := regexp.MustCompile(`(?s)<testcase [^>]*classname="` + regexp.QuoteMeta(stageName+"."+r.Profile) + `".*?</testcase>`)
	values := props(r)
	f.rewrite("junit/"+stageName+".xml", func(b []byte) []byte {
		return class.ReplaceAllFunc(b, func(tc []byte) []byte {
			for name, v := range values {
				prop := regexp.MustCompile(`(<property name="` + name + `" value=")[^"]*(")`)
				tc = prop.ReplaceAll(tc, []byte("${1}"+strconv.FormatFloat(v, 'g', -1, 64)+"${2}"))
			}
			return tc
		})
	})
}
