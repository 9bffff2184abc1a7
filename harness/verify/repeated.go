package verify

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/trtmc-qual/trtmc-qual/harness/accuracy"
	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/stats"
)

// The statistics checks (issue #19), kept apart from the rest of verify: every interval, light
// input and tail a row reports is recomputed from the stored AIPerf runs, the joined requests and
// the gate's items, with the same code that produced it.

// checkRepeated recomputes a row's repeated-run statistics from each stored AIPerf run.
func checkRepeated(where string, r evidence.Result, pairs []join.Pair, runs []aiperfexport.Exports, report func(string, string, ...any)) {
	if r.Repeated == nil {
		if len(runs) > 1 {
			report(where, "%d AIPerf runs stored but no repeated-run statistics", len(runs))
		}
		return
	}
	got, err := stats.FromRuns(pairs, runs)
	if err != nil {
		report(where, "repeated-run statistics not recomputable: %v", err)
		return
	}
	if diff := firstDifference(got, *r.Repeated); diff != "" {
		report(where, "repeated-run statistics recomputed differently: %s", diff)
	}
}

// accuracyCheck recomputes each row's accuracy intervals.
func accuracyCheck(r *Run) []Problem {
	return r.eachRow(func(row *Row, report reporter) { checkAccuracy(r.Pins, row.Stage, row.Where, row.Result, report) })
}

// checkAccuracy recomputes the gate's corpus figures with their bootstrap intervals, clustered
// by the speaker/recording groups of the repository's copy of the pinned dataset (the same
// groups the run used, or the recomputation differs).
func checkAccuracy(p pins, s evidence.Stage, where string, r evidence.Result, report func(string, string, ...any)) {
	if len(r.Accuracy) == 0 {
		return
	}
	groups, err := p.GateGroups(s, r)
	if err != nil {
		report(where, "accuracy intervals not recomputable: dataset groups: %v", err)
		return
	}
	got, err := accuracy.Gate(r.Gate, groups)
	if err != nil {
		report(where, "accuracy intervals not recomputable: %v", err)
		return
	}
	if diff := firstDifference(got, r.Accuracy); diff != "" {
		report(where, "accuracy intervals recomputed differently: %s", diff)
	}
}

// firstDifference compares two values as their JSON (what the evidence stores; Go's float
// encoding round-trips exactly) and names the first differing field.
func firstDifference(got, want any) string {
	g, w := asJSON(got), asJSON(want)
	if reflect.DeepEqual(g, w) {
		return ""
	}
	return describe("", g, w)
}

func asJSON(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		return err.Error()
	}
	return out
}

func describe(path string, g, w any) string {
	switch gv := g.(type) {
	case map[string]any:
		if wv, ok := w.(map[string]any); ok {
			for k, x := range gv {
				if !reflect.DeepEqual(x, wv[k]) {
					return describe(path+"."+k, x, wv[k])
				}
			}
			for k := range wv {
				if _, ok := gv[k]; !ok {
					return fmt.Sprintf("%s.%s: evidence has %v, recomputed nothing", path, k, wv[k])
				}
			}
		}
	case []any:
		if wv, ok := w.([]any); ok && len(wv) == len(gv) {
			for i := range gv {
				if !reflect.DeepEqual(gv[i], wv[i]) {
					return describe(fmt.Sprintf("%s[%d]", path, i), gv[i], wv[i])
				}
			}
		}
	}
	return fmt.Sprintf("%s: recomputed %v, evidence says %v", path, g, w)
}
