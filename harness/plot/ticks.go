package plot

import (
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

// plainTicks are gonum's default ticks with labels written with no more decimals than some
// label needs: gonum gives every label the precision of the finest step, so a range of
// 2400–2600 ms read "2500.00".
type plainTicks struct{}

func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	decimals := 0
	for _, t := range ticks {
		if t.Label == "" {
			continue
		}
		if _, frac, ok := strings.Cut(t.Label, "."); ok {
			decimals = max(decimals, len(strings.TrimRight(frac, "0")))
		}
	}
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'f', decimals, 64)
		}
	}
	return ticks
}
