package verify

import (
	"regexp"
	"strings"
	"testing"
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

// replaceOnce replaces the first old in s, failing the case when the report has none.
func replaceOnce(t *testing.T, s, old, new string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("the report has no %s", old)
	}
	return strings.Replace(s, old, new, 1)
}
