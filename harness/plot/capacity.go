// Package plot draws the capacity sweep of `qual capacity` with gonum/plot: throughput and
// client p95 against offered load. A qualification run's pictures are not drawn here: the
// report draws them from the run's data (harness/report/chart), so that the cgo-free verifier
// can draw them again.
package plot

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Point is one level of a capacity sweep: its offered load (concurrency) and each figure's
// mean over runs with its interval (Lo = Hi = mean when there is none).
type Point struct {
	Offered                 float64
	Throughput, TLo, THi    float64
	ClientP95, P95Lo, P95Hi float64
	KeptUp                  bool
}

// Capacity is a row's sweep: throughput and client p95 against offered load, the objective
// and the lanes/Task-time bound drawn in.
type Capacity struct {
	Title       string
	Points      []Point
	ObjectiveMS float64
	BoundRPS    float64
}

// Size of the capacity figure: wide enough for a report column, two panels high.
const (
	width  = 7 * vg.Inch
	height = 6 * vg.Inch
)

var (
	clientColor = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
	taskColor   = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	boundColor  = color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff} // the objective and the bound
	lateColor   = color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff} // a level the client did not keep up with
)

// PNG renders the sweep at dpi dots per inch.
func (c Capacity) PNG(dpi int) ([]byte, error) {
	if len(c.Points) == 0 {
		return nil, fmt.Errorf("capacity plot %q has no levels", c.Title)
	}
	tp, err := c.panel("throughput (req/s)", taskColor,
		func(p Point) (float64, float64, float64) { return p.Throughput, p.TLo, p.THi }, c.BoundRPS, "lanes / Task time bound")
	if err != nil {
		return nil, err
	}
	tp.Title.Text = c.Title + "\nmean over runs with 95% interval; orange square: the client did not keep up"
	lat, err := c.panel("client latency p95 (ms)", clientColor,
		func(p Point) (float64, float64, float64) { return p.ClientP95, p.P95Lo, p.P95Hi }, c.ObjectiveMS, "objective")
	if err != nil {
		return nil, err
	}
	lat.X.Label.Text = "offered load (concurrency)"
	cv := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(dpi), vgimg.UseBackgroundColor(color.White))
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadY: vg.Points(6), PadTop: vg.Points(2), PadBottom: vg.Points(2), PadLeft: vg.Points(4), PadRight: vg.Points(8)}
	canvases := plot.Align([][]*plot.Plot{{tp}, {lat}}, tiles, draw.New(cv))
	tp.Draw(canvases[0][0])
	lat.Draw(canvases[1][0])
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: cv}).WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("encode capacity PNG: %w", err)
	}
	return buf.Bytes(), nil
}

// panel draws one figure per level with its interval, a dashed horizontal reference line
// (the objective or the bound, when > 0) and an orange square on levels the client did not keep up with.
func (c Capacity) panel(label string, col color.Color, value func(Point) (float64, float64, float64), ref float64, refName string) (*plot.Plot, error) {
	p := plot.New()
	p.Y.Label.Text = label
	p.Y.Tick.Marker = plainTicks{}
	var levels []plot.Tick // the offered loads themselves: concurrency is a whole number
	for _, pt := range c.Points {
		levels = append(levels, plot.Tick{Value: pt.Offered, Label: fmt.Sprintf("%g", pt.Offered)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(levels)
	p.Add(plotter.NewGrid())
	xys := make(plotter.XYs, len(c.Points))
	errs := make(plotter.YErrors, len(c.Points))
	var late plotter.XYs
	for i, pt := range c.Points {
		v, lo, hi := value(pt)
		xys[i] = plotter.XY{X: pt.Offered, Y: v}
		errs[i] = struct{ Low, High float64 }{v - lo, hi - v}
		if !pt.KeptUp {
			late = append(late, xys[i])
		}
	}
	line, points, err := plotter.NewLinePoints(xys)
	if err != nil {
		return nil, err
	}
	line.Color, points.Color = col, col
	bars, err := plotter.NewYErrorBars(struct {
		plotter.XYer
		plotter.YErrorer
	}{xys, errs})
	if err != nil {
		return nil, err
	}
	bars.Color = col
	p.Add(line, points, bars)
	p.Legend.Top, p.Legend.Left = true, true
	if ref > 0 {
		lo, hi := c.Points[0].Offered, c.Points[len(c.Points)-1].Offered
		refLine, err := plotter.NewLine(plotter.XYs{{X: lo, Y: ref}, {X: hi, Y: ref}})
		if err != nil {
			return nil, err
		}
		refLine.Color, refLine.Dashes, refLine.Width = boundColor, []vg.Length{vg.Points(5), vg.Points(3)}, vg.Points(2)
		p.Add(refLine)
		p.Legend.Add(refName+" "+strconv.FormatFloat(ref, 'f', max(0, 2-int(math.Floor(math.Log10(ref)))), 64), refLine) // three significant digits, no exponent
	}
	if len(late) > 0 {
		s, err := plotter.NewScatter(late)
		if err != nil {
			return nil, err
		}
		s.Shape, s.Color, s.Radius = draw.BoxGlyph{}, lateColor, vg.Points(4)
		p.Add(s)
	}
	p.Y.Min = 0
	if pad := 0.05 * (c.Points[len(c.Points)-1].Offered - c.Points[0].Offered); pad > 0 { // the end levels' bars off the axes
		p.X.Min, p.X.Max = c.Points[0].Offered-pad, c.Points[len(c.Points)-1].Offered+pad
	}
	return p, nil
}
