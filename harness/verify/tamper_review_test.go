package verify

import (
	"regexp"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
)

// junitForgeries edit a stage's JUnit report, the suites' rendering of the evidence, where its
// comparison with the evidence's rendering looked one way only: a property dropped, a suite's
// stage property removed (its cases then belonged to no stage), a suite marked one shard of
// several (whose hardware and versions may differ honestly, its target never).
func junitForgeries() []tamper {
	return []tamper{
		{name: "RV JUnit suite's stage property removed, a gate figure and the target kind edited", forged: true,
			want: []string{"junit/asr.xml", "holds the cases of stage asr", `stage property is ""`},
			edit: func(t *testing.T, f *forger) {
				f.rewrite("junit/asr.xml", func(b []byte) []byte {
					s := replaceOnce(t, string(b), `<property name="stage" value="asr"></property>`, "")
					s = replaceOnce(t, s, `<property name="target_kind" value="reference">`, `<property name="target_kind" value="trtmc">`)
					return []byte(regexp.MustCompile(`(<property name="gate_gold_wer" value=")[^"]*`).ReplaceAllString(s, "${1}0.01"))
				})
			}},
		{name: "RV JUnit suite marked a shard of two, its target kind edited", forged: true,
			want: []string{"junit/asr.xml", "suite property target_kind is \"trtmc\"", "says \"reference\""},
			edit: func(t *testing.T, f *forger) {
				f.rewrite("junit/asr.xml", func(b []byte) []byte {
					s := replaceOnce(t, string(b), `<property name="shard" value="1/1">`, `<property name="shard" value="1/2">`)
					return []byte(replaceOnce(t, s, `<property name="target_kind" value="reference">`, `<property name="target_kind" value="trtmc">`))
				})
			}},
		{name: "RV JUnit gate figure and suite target kind removed", forged: true,
			want: []string{"junit/asr.xml", "carries gate figures of evidence row asr/", "but not gate_gold_wer="},
			edit: func(t *testing.T, f *forger) {
				f.rewrite("junit/asr.xml", func(b []byte) []byte {
					s := replaceOnce(t, string(b), `<property name="target_kind" value="reference"></property>`, "")
					return []byte(regexp.MustCompile(`\s*<property name="gate_gold_wer" value="[^"]*"></property>`).ReplaceAllString(s, ""))
				})
			}},
		{name: "RV JUnit suite property removed", forged: true,
			want: []string{"junit/asr.xml", "suite property target_kind is missing", `says "reference"`},
			edit: func(t *testing.T, f *forger) {
				f.rewrite("junit/asr.xml", func(b []byte) []byte {
					return []byte(replaceOnce(t, string(b), `<property name="target_kind" value="reference"></property>`, ""))
				})
			}},
	}
}

// strippedForgeries remove a claim's record from a row that claims its step went through,
// where the claim was asked for only when a record was stored.
func strippedForgeries() []tamper {
	return []tamper{
		{name: "RV accuracy intervals removed from every ASR row (the report's inconclusive intervals with them)", forged: true,
			want: []string{"asr/", "accuracy intervals recomputed differently"},
			edit: func(t *testing.T, f *forger) {
				f.stage(string(stage.ASR), func(s *evidence.Stage) {
					for i := range s.Results {
						s.Results[i].Accuracy = nil
					}
				})
			}},
		{name: "RV dataset.path emptied on every served ASR row: its stored inputs tied to no pins", forged: true,
			want: []string{"asr/", "inputs not recomputable", "names no dataset"},
			edit: func(t *testing.T, f *forger) {
				f.stage(string(stage.ASR), func(s *evidence.Stage) {
					for i := range s.Results {
						if s.Results[i].AIPerf != nil {
							s.Results[i].Dataset.Path = ""
						}
					}
				})
			}},
		{name: "RV a family-validated row's stored bundle edited, its sha256_built emptied", forged: true,
			want: []string{"sphinx-an4-l0", "inputs recomputed differently", ".sha256_built: recomputed"},
			edit: func(t *testing.T, f *forger) {
				i, r := f.result(string(stage.ASR), evidence.StatusFamilyValidated, evidence.KindReduced)
				f.rewrite(r.Bundle.Path, func(b []byte) []byte { b[len(b)-1] ^= 1; return b })
				f.stage(string(stage.ASR), func(s *evidence.Stage) { s.Results[i].Bundle.SHA256Built = "" })
			}},
		{name: "RV one stage's target renamed, in its stage.json and JUnit report", forged: true,
			want: []string{"asr/stage.json", "target suites/targets/trtmc.yaml (reference), but the run's is suites/targets/reference.yaml"},
			edit: func(t *testing.T, f *forger) {
				f.rewrite("junit/asr.xml", func(b []byte) []byte {
					return []byte(replaceOnce(t, string(b), `<property name="target" value="suites/targets/reference.yaml">`, `<property name="target" value="suites/targets/trtmc.yaml">`))
				})
				f.stage(string(stage.ASR), func(s *evidence.Stage) { s.Target = "suites/targets/trtmc.yaml" })
			}},
	}
}

// replaceOnce replaces the first old in s, failing the case when the report has none.
func replaceOnce(t *testing.T, s, old, new string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("the report has no %s", old)
	}
	return strings.Replace(s, old, new, 1)
}
