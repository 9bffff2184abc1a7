package verify

import (
	"fmt"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/native/family"
)

// TestAccuracyIntervalsAreRecomputed tampers with a stored bootstrap interval and requires verify
// to name the field; the untouched evidence passes.
func TestAccuracyIntervalsAreRecomputed(t *testing.T) {
	gate := &family.GateResult{Figures: map[string]float64{"gold_wer": 0.25}, Thresholds: map[string]float64{"gold_wer": 0.35},
		Items: []family.GateItem{{ID: "a", Gold: "one two", Output: "one two"}, {ID: "b", Gold: "three four", Output: "three for"}}}
	acc, err := evidence.GateAccuracy(gate)
	if err != nil {
		t.Fatal(err)
	}
	var problems []string
	report := func(where, format string, args ...any) { problems = append(problems, where+": "+format) }
	checkAccuracy("asr/p", evidence.Result{Gate: gate, Accuracy: acc}, report)
	if len(problems) != 0 {
		t.Fatalf("untouched evidence reported: %v", problems)
	}
	acc[0].Upper = 0.3 // a narrower interval than the data give
	checkAccuracy("asr/p", evidence.Result{Gate: gate, Accuracy: acc}, func(where, format string, args ...any) {
		problems = append(problems, where+": "+strings.TrimSpace(fmt.Sprintf(format, args...)))
	})
	if len(problems) != 1 || !strings.Contains(problems[0], "p95") {
		t.Errorf("tampered interval: %v", problems)
	}
}
