package claim

import (
	"errors"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/accuracy"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

func gateOf(items ...evidence.GateItem) *evidence.GateResult {
	return &evidence.GateResult{Figures: map[string]float64{"gold_wer": 0.25}, Thresholds: map[string]float64{"gold_wer": 0.35}, Items: items}
}

// A stored bootstrap interval edited is named; the untouched evidence passes.
func TestAccuracyIntervalsAreRecomputed(t *testing.T) {
	gate := gateOf(evidence.GateItem{ID: "a", Gold: "one two", Output: "one two"}, evidence.GateItem{ID: "b", Gold: "three four", Output: "three for"})
	acc, err := accuracy.Gate(gate, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := Accuracy().Check(&Artifacts{Row: evidence.Result{Gate: gate, Accuracy: acc}}); len(got) != 0 {
		t.Fatalf("untouched evidence reported: %v", got)
	}
	acc[0].Upper = 0.3 // a narrower interval than the data give
	got := Accuracy().Check(&Artifacts{Row: evidence.Result{Gate: gate, Accuracy: acc}})
	if len(got) != 1 || !strings.Contains(got[0], "p95") {
		t.Errorf("tampered interval: %v", got)
	}
}

// The clusters are the given groups': evidence bootstrapped by clip when the dataset groups its
// clips (or the reverse) is derived differently, and groups that cannot be read are named.
func TestAccuracyClustersAreTheGivenGroups(t *testing.T) {
	gate := gateOf(evidence.GateItem{ID: "a", Gold: "one two", Output: "one two"}, evidence.GateItem{ID: "b", Gold: "three four", Output: "three for"},
		evidence.GateItem{ID: "c", Gold: "five six", Output: "five six"})
	groups := map[string]string{"a": "spk1", "b": "spk1"}
	grouped, err := accuracy.Gate(gate, groups)
	if err != nil {
		t.Fatal(err)
	}
	byClip, err := accuracy.Gate(gate, nil)
	if err != nil {
		t.Fatal(err)
	}
	given := Given{Groups: func() (map[string]string, error) { return groups, nil }}
	for _, c := range []struct {
		acc  []evidence.Accuracy
		want bool
	}{{grouped, false}, {byClip, true}} {
		got := Accuracy().Check(&Artifacts{Row: evidence.Result{Gate: gate, Accuracy: c.acc}, Given: given})
		if (len(got) > 0) != c.want {
			t.Errorf("clustered by %q: problems %v", c.acc[0].ClusterBy, got)
		}
	}
	given.Groups = func() (map[string]string, error) { return nil, errors.New("no dataset") }
	got := Accuracy().Check(&Artifacts{Row: evidence.Result{Gate: gate, Accuracy: grouped}, Given: given})
	if len(got) != 1 || !strings.Contains(got[0], "dataset groups: no dataset") {
		t.Errorf("unreadable groups: %v", got)
	}
}

// A row whose status says its gate step went through makes the accuracy claim even when it
// stores no intervals: intervals stripped from it are derived again and named; a row that failed
// before (a gate it stores, no status claimed) is not asked for them.
func TestAccuracyIntervalsStrippedAreNamed(t *testing.T) {
	gate := gateOf(evidence.GateItem{ID: "a", Gold: "one two", Output: "one two"}, evidence.GateItem{ID: "b", Gold: "three four", Output: "three for"})
	for _, status := range []evidence.Status{evidence.StatusQualified, evidence.StatusFamilyValidated} {
		got := Accuracy().Check(&Artifacts{Row: evidence.Result{Status: status, Gate: gate}})
		if len(got) != 1 || !strings.Contains(got[0], "accuracy intervals recomputed differently") {
			t.Errorf("%s row stripped of its intervals: %v", status, got)
		}
	}
	if got := Accuracy().Check(&Artifacts{Row: evidence.Result{Status: evidence.StatusFailed, Gate: gate}}); len(got) != 0 {
		t.Errorf("a failed row: %v", got)
	}
}
