package junit

import (
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"
)

// TestRecordReadsAsJSONEverywhere: a structured entry shows on the console as compact JSON (no
// pointer addresses, no map[...] or &{...} dumps), and JUnit's notes hold the same JSON as the
// bare value would give.
func TestRecordReadsAsJSONEverywhere(t *testing.T) {
	ms := 12.5
	value := struct {
		Input        string             `json:"input"`
		NativeTaskMS *float64           `json:"native_task_ms"`
		Figures      map[string]float64 `json:"figures"`
	}{"synth-1", &ms, map[string]float64{"wer": 0.1, "audio_seconds": 10.5}}
	want := `{"input":"synth-1","native_task_ms":12.5,"figures":{"audio_seconds":10.5,"wer":0.1}}`
	wrapped := types.WrapEntryValue(Record{Value: value})
	if got := wrapped.String(); got != want {
		t.Errorf("console: %s, want %s", got, want)
	}
	for _, dump := range []string{"0x", "map[", "&{"} {
		if strings.Contains(wrapped.String(), dump) {
			t.Errorf("console shows a Go value dump (%s): %s", dump, wrapped.String())
		}
	}
	_, viaRecord := entries(types.ReportEntries{{Name: "identity", Value: wrapped}})
	_, bare := entries(types.ReportEntries{{Name: "identity", Value: types.WrapEntryValue(value)}})
	if viaRecord != bare || viaRecord != "identity: "+want+"\n" {
		t.Errorf("JUnit notes: %q, bare value %q", viaRecord, bare)
	}
}
