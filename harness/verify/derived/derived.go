// Package derived recomputes the figures a row derives from its primary data (the stored AIPerf
// runs, the joined requests, the gate's items, the no-caching check's server records) with the
// same code that produced them, and names the first field where the evidence differs. It is
// verify's statistics half, apart from the rest of verify so that the verifier's own package
// stays a table of checks over few imports.
package derived

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

// Report receives a finding about the row at where.
type Report func(where, format string, args ...any)

// Repeated recomputes a row's repeated-run statistics from each stored AIPerf run.
func Repeated(where string, r evidence.Result, pairs []join.Pair, runs []aiperfexport.Exports, report Report) {
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
	if diff := FirstDifference(got, *r.Repeated); diff != "" {
		report(where, "repeated-run statistics recomputed differently: %s", diff)
	}
}

// Accuracy recomputes the gate's corpus figures with their bootstrap intervals, clustered by
// groups (the speaker/recording groups of the pinned dataset the run used).
func Accuracy(where string, r evidence.Result, groups map[string]string, report Report) {
	got, err := accuracy.Gate(r.Gate, groups)
	if err != nil {
		report(where, "accuracy intervals not recomputable: %v", err)
		return
	}
	if diff := FirstDifference(got, r.Accuracy); diff != "" {
		report(where, "accuracy intervals recomputed differently: %s", diff)
	}
}

// FirstDifference compares two values as their JSON (what the evidence stores; Go's float
// encoding round-trips exactly) and names the first differing field.
func FirstDifference(got, want any) string {
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
