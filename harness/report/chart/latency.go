package chart

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// logDecades is the max/min ratio above which the latency axis turns logarithmic: two
// decades, where a linear axis squeezes the faster curve against the origin.
const logDecades = 100

// The series' colours.
const (
	clientColour = "#d62728"
	taskColour   = "#1f77b4"
	overColour   = "#2ca02c"
)

// Latency is one row's measured requests: ClientMS[i] and TaskMS[i] are the same request
// (AIPerf's request_latency and the server record's model_call_ms).
type Latency struct {
	Title    string
	Label    string // what the picture shows, for a reader who cannot see it
	ClientMS []float64
	TaskMS   []float64
}

// SVG draws the figure: above, the empirical CDF of client latency and of the Task call
// (a log axis when they span two decades); below, the CDF of each request's overhead, client
// minus Task, which the first panel's gap only hints at.
func (l Latency) SVG() ([]byte, error) {
	if len(l.ClientMS) == 0 || len(l.ClientMS) != len(l.TaskMS) {
		return nil, fmt.Errorf("latency figure needs one client and one Task time per request, got %d and %d", len(l.ClientMS), len(l.TaskMS))
	}
	if err := finite("client latency", l.ClientMS); err != nil {
		return nil, err
	}
	if err := finite("Task time", l.TaskMS); err != nil {
		return nil, err
	}
	var d svgDoc
	d.open(latencyWidth, latencyHeight, l.Label)
	d.text(latencyWidth/2, 20, "middle", l.Title, ` font-size="14"`)
	d.text(latencyWidth/2, 38, "middle", fmt.Sprintf("empirical CDF of latency, %d measured requests", len(l.ClientMS)), "")
	d.legend(80, 58, []legendEntry{{"client latency (AIPerf's request latency)", clientColour, ""}, {"Task call (the server's model call time)", taskColour, "5 3"}})
	l.cdfPanel(&d)
	l.overheadPanel(&d)
	return d.close(), nil
}

// The latency figure's size and its panels' place. It is drawn narrow enough that a page shows
// two side by side at their own size (1 unit = 1 px): a figure scaled down to fit shrinks its
// labels below reading size.
const (
	latencyWidth, latencyHeight = 560, 616
	panelLeft, panelWidth       = 80, 450
)

type legendEntry struct{ name, colour, dashes string }

func (d *svgDoc) legend(x, y float64, entries []legendEntry) {
	for _, e := range entries {
		d.b.WriteString(`<line x1="` + num(x) + `" y1="` + num(y-4) + `" x2="` + num(x+28) + `" y2="` + num(y-4) + `" stroke="` + e.colour + `" stroke-width="2"` + dashAttr(e.dashes) + "/>\n")
		d.text(x+34, y, "start", e.name, "")
		y += 18 // one entry a line: side by side they would not fit the figure's width
	}
}

func dashAttr(dashes string) string {
	if dashes == "" {
		return ""
	}
	return ` stroke-dasharray="` + dashes + `"`
}

func (l Latency) cdfPanel(d *svgDoc) {
	lo, hi := positiveRange(append(append([]float64(nil), l.ClientMS...), l.TaskMS...))
	x := axis{lo: lo / 1.2, hi: hi * 1.2, log: true}
	xlabel := "latency (ms, log scale)"
	drawn := func(v float64) float64 { return math.Max(v, lo) } // a 0 ms Task call still shows on a log axis
	if hi/lo < logDecades {
		drawn = func(v float64) float64 { return v }
		all := append(append([]float64(nil), l.ClientMS...), l.TaskMS...)
		x, xlabel = paddedLinear(all, true), "latency (ms)"
	}
	p := newPanel(panelLeft, 96, panelWidth, 230, x, axis{lo: 0, hi: 1})
	d.frame(p, xlabel, "fraction of requests ≤ x")
	d.step(p, "client latency ms", l.ClientMS, drawn, clientColour, "")
	d.step(p, "Task call ms", l.TaskMS, drawn, taskColour, "5 3")
}

func (l Latency) overheadPanel(d *svgDoc) {
	over := make([]float64, len(l.ClientMS))
	for i := range over {
		over[i] = l.ClientMS[i] - l.TaskMS[i]
	}
	d.text(panelLeft+panelWidth/2, 398, "middle", "serving overhead per request: client latency − Task call", "")
	p := newPanel(panelLeft, 411, panelWidth, 150, paddedLinear(over, false), axis{lo: 0, hi: 1})
	d.frame(p, "client − Task (ms)", "fraction ≤ x")
	d.step(p, "client − Task ms", over, func(v float64) float64 { return v }, overColour, "")
}

// step draws values' empirical CDF as a post-step line (it stays at i/n until the next
// sample), each value placed where drawn puts it; its description holds the values themselves,
// exactly.
func (d *svgDoc) step(p panel, what string, values []float64, drawn func(float64) float64, colour, dashes string) {
	s := append([]float64(nil), values...)
	sort.Float64s(s)
	var path, desc strings.Builder
	fmt.Fprintf(&path, "M%s,%s", num(p.x.at(drawn(s[0]))), num(p.y.at(0)))
	for i, v := range s {
		fmt.Fprintf(&path, " H%s V%s", num(p.x.at(drawn(v))), num(p.y.at(float64(i+1)/float64(len(s)))))
		if i > 0 {
			desc.WriteByte(' ')
		}
		desc.WriteString(exact(v))
	}
	fmt.Fprintf(&d.b, `<path d="%s" fill="none" stroke="%s" stroke-width="1.6"%s><desc>%s, sorted: %s</desc></path>`+"\n",
		path.String(), colour, dashAttr(dashes), esc(what), desc.String())
}

// paddedLinear is a linear axis over values with 5% to spare each side (not below 0 when
// nonNegative and no value is), one unit wide when they are all equal.
func paddedLinear(values []float64, nonNegative bool) axis {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range values {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if hi <= lo {
		return axis{lo: lo - 0.5, hi: lo + 0.5}
	}
	pad := (hi - lo) * 0.05
	a := axis{lo: lo - pad, hi: hi + pad}
	if nonNegative && lo >= 0 {
		a.lo = math.Max(0, a.lo)
	}
	return a
}

// positiveRange is the smallest positive and the largest value: a log axis cannot show 0.
func positiveRange(values []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), 0
	for _, v := range values {
		if v > 0 {
			lo = math.Min(lo, v)
		}
		hi = math.Max(hi, v)
	}
	if math.IsInf(lo, 1) {
		lo = 1
	}
	if hi < lo {
		hi = lo
	}
	return lo, hi
}
