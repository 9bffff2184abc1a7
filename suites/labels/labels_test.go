package labels

import (
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// Every stage of the workload registry is a label (the suites label each stage's specs with it).
func TestEveryStageIsALabel(t *testing.T) {
	have := map[string]bool{}
	for _, l := range All() {
		have[l] = true
	}
	for _, s := range workload.Stages() {
		if !have[string(s)] {
			t.Errorf("stage %s has no label", s)
		}
	}
}

func TestUnknownLabels(t *testing.T) {
	for filter, want := range map[string]string{
		"":                           "",
		"asr":                        "",
		"asr && !slow":               "",
		"(t2i || audioqa) && !gpu":   "",
		"speech":                     "speech",
		"asr && contianers":          "contianers",
		"/a.r/":                      "",
		"Containers":                 "Containers",
		"asr, t2i":                   "",
		"!slow && (asr||speechtext)": "speechtext",
	} {
		got := Unknown(filter)
		if (want == "" && len(got) != 0) || (want != "" && (len(got) != 1 || got[0] != want)) {
			t.Errorf("Unknown(%q) = %v, want %q", filter, got, want)
		}
	}
}
