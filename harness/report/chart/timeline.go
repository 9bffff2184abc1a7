package chart

import (
	"fmt"
	"sort"
	"strings"
)

// Span is one request as the server recorded it, in seconds from the run's first arrival:
// it arrived, waited QueueS for a lane, ran the Task for TaskS, and was answered at EndS
// (decoding and encoding fill the rest).
type Span struct {
	ArrivalS, QueueS, TaskS, EndS float64
	Warmup, Failed                bool
}

// Timeline is one AIPerf run seen from the server: a lane per server lane, each request a bar
// from its arrival to its answer split into queue and Task, warmup shaded, failures marked.
type Timeline struct {
	Title string
	Label string // what the picture shows, for a reader who cannot see it
	Lanes int    // the server's lanes; requests that overlap more are drawn on extra lanes
	Spans []Span
}

// The timeline's colours (the Task's is the latency figure's Task colour).
const (
	queueColour   = "#ff7f0e"
	handlerColour = "#b0b0b0"
	warmupColour  = "#eeeeee"
	failColour    = "#ff0000" // pure red: apart from the client curve's red
)

// AssignLanes puts each span's Task on a lane: the lowest free one when its Task starts, so
// that a server of n lanes fills exactly n. It returns each span's lane and how many were used.
func AssignLanes(spans []Span) ([]int, int) {
	order := make([]int, len(spans))
	for i := range order {
		order[i] = i
	}
	start := func(i int) float64 { return spans[i].ArrivalS + spans[i].QueueS }
	sort.SliceStable(order, func(a, b int) bool { return start(order[a]) < start(order[b]) })
	lanes := make([]int, len(spans))
	var busyUntil []float64
	for _, i := range order {
		lane := -1
		for l, until := range busyUntil {
			if until <= start(i) {
				lane = l
				break
			}
		}
		if lane < 0 {
			lane = len(busyUntil)
			busyUntil = append(busyUntil, 0)
		}
		busyUntil[lane] = start(i) + spans[i].TaskS
		lanes[i] = lane
	}
	return lanes, len(busyUntil)
}

// Row height of one lane, in pixels.
const laneHeight = 36

// SVG draws the timeline: lane 1 on top, seconds since the run's first arrival across. Each
// request's tooltip holds its times exactly.
func (t Timeline) SVG() ([]byte, error) {
	if len(t.Spans) == 0 {
		return nil, fmt.Errorf("timeline %q has no requests", t.Title)
	}
	for i, s := range t.Spans {
		if err := finite(fmt.Sprintf("timeline %q request %d", t.Title, i+1), []float64{s.ArrivalS, s.QueueS, s.TaskS, s.EndS}); err != nil {
			return nil, err
		}
	}
	lanes, used := AssignLanes(t.Spans)
	rows := max(used, t.Lanes, 1)
	xmin, xmax := 0.0, 0.0
	for _, s := range t.Spans {
		xmin, xmax = min(xmin, s.ArrivalS), max(xmax, s.EndS, s.ArrivalS+s.QueueS+s.TaskS)
	}
	if xmax <= xmin {
		xmax = xmin + 1
	}
	const w, top = 720, 62
	height := float64(rows * laneHeight)
	var d svgDoc
	d.open(w, top+height+48, t.Label)
	d.text(w/2, 20, "middle", t.Title, ` font-size="14"`)
	d.text(w/2, 38, "middle", fmt.Sprintf("%d requests, %d lanes: Task blue, queue orange above it, rest of handler grey, warmup shaded, failure ×", len(t.Spans), t.Lanes), ` font-size="11"`)
	// y runs from lane 0 at the top (data 0) to the last lane at the bottom (data rows).
	p := newPanel(80, top, 610, height, axis{lo: xmin, hi: xmax * 1.02}, axis{lo: float64(rows), hi: 0})
	t.warmupBand(&d, p, rows)
	d.frame(p, "seconds since the run's first arrival", "")
	for l := range rows {
		label := fmt.Sprintf("lane %d", l+1)
		if l >= t.Lanes {
			label = fmt.Sprintf("over %d", l+1-t.Lanes)
		}
		d.text(p.left-6, p.y.at(float64(l)+0.5)+4, "end", label, "")
	}
	for i, s := range t.Spans {
		d.bar(p, i, s, float64(lanes[i])+0.5)
	}
	return d.close(), nil
}

// warmupBand shades the time from the first warmup arrival to the last warmup answer.
func (t Timeline) warmupBand(d *svgDoc, p panel, rows int) {
	lo, hi, warm := 0.0, 0.0, false
	for _, s := range t.Spans {
		if s.Warmup {
			if !warm {
				lo, hi, warm = s.ArrivalS, s.EndS, true
			}
			lo, hi = min(lo, s.ArrivalS), max(hi, s.EndS)
		}
	}
	if warm {
		d.rect(p, lo, hi, 0, float64(rows), warmupColour)
	}
}

// bar draws one request on its lane (centre y, in lanes): the handler's whole span thin, the
// queue above, the Task thick, a × on a failure.
func (d *svgDoc) bar(p panel, i int, s Span, y float64) {
	var tip strings.Builder
	fmt.Fprintf(&tip, "request %d: arrived %s s, queued %s s, Task %s s, answered %s s", i+1, exact(s.ArrivalS), exact(s.QueueS), exact(s.TaskS), exact(s.EndS))
	if s.Warmup {
		tip.WriteString(", warmup")
	}
	if s.Failed {
		tip.WriteString(", failed")
	}
	d.b.WriteString("<g><title>" + esc(tip.String()) + "</title>\n")
	taskStart := s.ArrivalS + s.QueueS
	d.rect(p, s.ArrivalS, s.EndS, y-0.08, y+0.08, handlerColour)
	if s.QueueS > 0 {
		d.rect(p, s.ArrivalS, taskStart, y-0.44, y-0.32, queueColour) // above: it waited, on no lane yet
	}
	d.rect(p, taskStart, taskStart+s.TaskS, y-0.3, y+0.3, taskColour)
	if s.Failed {
		x0, y0, r := p.x.at(s.ArrivalS), p.y.at(y), 5.0
		d.line(x0-r, y0-r, x0+r, y0+r, failColour, 2)
		d.line(x0-r, y0+r, x0+r, y0-r, failColour, 2)
	}
	d.b.WriteString("</g>\n")
}

// rect fills data x0…x1 × y0…y1 (in lanes), at least 0.8 px wide so that a short request shows.
func (d *svgDoc) rect(p panel, x0, x1, y0, y1 float64, fill string) {
	px0, px1 := p.x.at(x0), p.x.at(x1)
	py0, py1 := p.y.at(y0), p.y.at(y1)
	fmt.Fprintf(&d.b, `<rect x="%s" y="%s" width="%s" height="%s" fill="%s"/>`+"\n", num(px0), num(min(py0, py1)), num(max(px1-px0, 0.8)), num(abs(py1-py0)), fill)
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}
