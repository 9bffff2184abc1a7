package plot

import (
	"bytes"
	"fmt"
	"image/color"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
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
	Lanes int // the server's lanes; requests that overlap more are drawn on extra lanes
	Spans []Span
}

var (
	queueColor   = color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}
	handlerColor = color.RGBA{R: 0xb0, G: 0xb0, B: 0xb0, A: 0xff}
	warmupColor  = color.RGBA{R: 0xee, G: 0xee, B: 0xee, A: 0xff}
	failColor    = color.RGBA{R: 0xff, A: 0xff} // pure red: apart from the client curves' red
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

// PNG renders the timeline at dpi dots per inch.
func (t Timeline) PNG(dpi int) ([]byte, error) {
	if len(t.Spans) == 0 {
		return nil, fmt.Errorf("timeline %q has no requests", t.Title)
	}
	lanes, used := AssignLanes(t.Spans)
	rows := max(used, t.Lanes)
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s\n%d requests, %d lanes: Task blue, queue orange above it, rest of handler grey,\nwarmup shaded, failure ×", t.Title, len(t.Spans), t.Lanes)
	p.X.Label.Text = "seconds since the run's first arrival"
	p.X.Tick.Marker = plainTicks{}
	p.Y.Label.Text = "server lane"
	p.Y.Min, p.Y.Max = -0.6, float64(rows)-0.4
	var ticks []plot.Tick
	for l := range rows {
		label := fmt.Sprintf("lane %d", l+1)
		if l >= t.Lanes {
			label = fmt.Sprintf("over %d", l+1-t.Lanes)
		}
		ticks = append(ticks, plot.Tick{Value: float64(l), Label: label})
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.Add(plotter.NewGrid())
	p.Add(bars{spans: t.Spans, lanes: lanes, rows: rows})
	_, xmax, _, _ := bars{spans: t.Spans}.DataRange()
	p.X.Max = xmax * 1.02
	height := vg.Length(1.2+0.45*float64(rows)) * vg.Inch
	c := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(dpi), vgimg.UseBackgroundColor(color.White))
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("encode timeline PNG: %w", err)
	}
	return buf.Bytes(), nil
}

// bars draws the spans; gonum's bar charts start every bar at zero, a timeline's do not.
type bars struct {
	spans []Span
	lanes []int
	rows  int
}

func (b bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = 0, 0
	for _, s := range b.spans {
		xmin, xmax = min(xmin, s.ArrivalS), max(xmax, s.EndS)
	}
	return xmin, xmax, -0.6, float64(b.rows) - 0.4
}

func (b bars) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	rect := func(x0, x1, y0, y1 float64, col color.Color) {
		if x1 <= x0 {
			x1 = x0 + 1e-9
		}
		r := vg.Rectangle{Min: vg.Point{X: tx(x0), Y: ty(y0)}, Max: vg.Point{X: max(tx(x1), tx(x0)+vg.Points(0.8)), Y: ty(y1)}}
		c.SetColor(col)
		c.Fill(r.Path())
	}
	// Warmup: the band from the first warmup arrival to the last warmup answer.
	wlo, whi, warm := 0.0, 0.0, false
	for _, s := range b.spans {
		if s.Warmup {
			if !warm {
				wlo, whi, warm = s.ArrivalS, s.EndS, true
			}
			wlo, whi = min(wlo, s.ArrivalS), max(whi, s.EndS)
		}
	}
	if warm {
		rect(wlo, whi, -0.6, float64(b.rows)-0.4, warmupColor)
	}
	for i, s := range b.spans {
		y := float64(b.lanes[i])
		taskStart := s.ArrivalS + s.QueueS
		rect(s.ArrivalS, s.EndS, y-0.08, y+0.08, handlerColor)
		if s.QueueS > 0 {
			rect(s.ArrivalS, taskStart, y+0.32, y+0.44, queueColor) // above: it waited, on no lane yet
		}
		rect(taskStart, taskStart+s.TaskS, y-0.3, y+0.3, taskColor)
		if s.Failed {
			ls := draw.LineStyle{Color: failColor, Width: vg.Points(2)}
			x0, y0 := tx(s.ArrivalS), ty(y)
			d := vg.Points(5)
			c.StrokeLine2(ls, x0-d, y0-d, x0+d, y0+d)
			c.StrokeLine2(ls, x0-d, y0+d, x0+d, y0-d)
		}
	}
}
