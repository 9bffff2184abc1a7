package plot

import (
	"strings"
	"testing"
)

// Tick labels carry no needless decimals ("2500", not "2500.00"), and keep those a label needs.
func TestTickLabelsHaveNoNeedlessDecimals(t *testing.T) {
	for _, tc := range []struct {
		min, max float64
		bad      string
	}{{2400, 2600, ".00"}, {74.6, 194.6, ".00"}, {2474.6, 2594.6, ".00"}} {
		for _, tick := range (plainTicks{}).Ticks(tc.min, tc.max) {
			if strings.HasSuffix(tick.Label, tc.bad) {
				t.Errorf("[%g, %g]: label %q", tc.min, tc.max, tick.Label)
			}
		}
	}
	var labels []string
	for _, tick := range (plainTicks{}).Ticks(2.05, 2.3) {
		if tick.Label != "" {
			labels = append(labels, tick.Label)
		}
	}
	if len(labels) < 2 || labels[0] == labels[1] || !strings.Contains(labels[0], ".") {
		t.Errorf("fine labels lost their decimals: %v", labels)
	}
}
