package verify

import (
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// A row's recorded lanes, which its timelines are drawn against, are the target's: any other
// value or type is named; a row that records no settings claims none.
func TestRecordedLanesAreTheTargets(t *testing.T) {
	for _, tc := range []struct {
		settings map[string]any
		refused  bool
	}{
		{map[string]any{"lanes": 2.0}, false},
		{nil, false},
		{map[string]any{"lanes": 1.0}, true},
		{map[string]any{"lanes": 3.0}, true},
		{map[string]any{"lanes": "2"}, true},
		{map[string]any{"lanes": nil}, true},
	} {
		var got []string
		checkLanes("asr/p", evidence.Result{Settings: tc.settings}, 2, func(where, format string, args ...any) { got = append(got, where) })
		if (len(got) > 0) != tc.refused {
			t.Errorf("settings %v against 2 lanes: problems %v, refused want %v", tc.settings, got, tc.refused)
		}
	}
}
