package labels

import "testing"

// A stage named like a resource label (a stage "gpu") would make --label-filter=gpu select a
// whole stage's slow specs: every label is one thing.
func TestLabelsAreDistinct(t *testing.T) {
	seen := map[string]bool{}
	for _, l := range All() {
		if seen[l] {
			t.Errorf("label %q is registered twice (a stage named like a resource label?)", l)
		}
		seen[l] = true
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
