// Package plot draws the figures of a qualification report with gonum/plot: the empirical CDF
// of client latency against the Task call's wall time, and below it the per-request serving
// overhead (client minus Task) that the first panel's gap only hints at.
package plot

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Size of the latency figure: wide enough for a report column, two panels high.
const (
	width        = 7 * vg.Inch
	height       = 6 * vg.Inch
	legendHeight = 0.45 * vg.Inch
)

// logDecades is the max/min ratio above which the latency axis turns logarithmic: two
// decades, where a linear axis squeezes the faster curve against the origin.
const logDecades = 100

var (
	clientColor = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
	taskColor   = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	overColor   = color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}
)

// Latency is one checkpoint's measured requests: ClientMS[i] and TaskMS[i] belong to the same
// request (AIPerf's request_latency and the server record's model_call_ms).
type Latency struct {
	Title    string
	ClientMS []float64
	TaskMS   []float64
}

// SVG renders the figure as SVG.
func (l Latency) SVG() ([]byte, error) {
	c := vgsvg.New(width, height)
	if err := l.draw(draw.New(c)); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("encode latency SVG: %w", err)
	}
	return buf.Bytes(), nil
}

// PNG renders the figure as a PNG at dpi dots per inch.
func (l Latency) PNG(dpi int) ([]byte, error) {
	c := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(dpi), vgimg.UseBackgroundColor(color.White))
	if err := l.draw(draw.New(c)); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("encode latency PNG: %w", err)
	}
	return buf.Bytes(), nil
}

func (l Latency) draw(dc draw.Canvas) error {
	if len(l.ClientMS) == 0 || len(l.ClientMS) != len(l.TaskMS) {
		return fmt.Errorf("latency plot needs one client and one Task time per request, got %d and %d", len(l.ClientMS), len(l.TaskMS))
	}
	cdf, legend, err := l.cdfPanel()
	if err != nil {
		return err
	}
	over, err := l.overheadPanel()
	if err != nil {
		return err
	}
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	// The legend gets its own strip above the panels so that it never covers a curve.
	top := draw.Crop(dc, 0, 0, dc.Size().Y-legendHeight, 0)
	legend.Draw(top)
	body := draw.Crop(dc, 0, 0, 0, -legendHeight)
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadY: vg.Points(6), PadTop: vg.Points(2), PadBottom: vg.Points(2), PadLeft: vg.Points(4), PadRight: vg.Points(8)}
	canvases := plot.Align([][]*plot.Plot{{cdf}, {over}}, tiles, body)
	cdf.Draw(canvases[0][0])
	over.Draw(canvases[1][0])
	return nil
}

func (l Latency) cdfPanel() (*plot.Plot, plot.Legend, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s\nempirical CDF of latency, %d measured requests", l.Title, len(l.ClientMS))
	p.Y.Label.Text = "fraction of requests ≤ x"
	p.Y.Min, p.Y.Max = 0, 1
	p.Add(plotter.NewGrid())
	legend := plot.NewLegend()
	legend.Top, legend.Left = true, true
	// Inset from the strip's top-left corner: at (0, 0) the first entry's text is cut off.
	legend.XOffs, legend.YOffs = vg.Points(6), -vg.Points(6)
	lo, hi := positiveRange(append(append([]float64(nil), l.ClientMS...), l.TaskMS...))
	logX := hi/lo >= logDecades
	for _, s := range []struct {
		name   string
		values []float64
		col    color.Color
	}{
		{"client latency (AIPerf request_latency)", l.ClientMS, clientColor},
		{"Task call (server model_call_ms)", l.TaskMS, taskColor},
	} {
		values := s.values
		if logX {
			values = clampBelow(values, lo)
		}
		line, err := stepLine(values, s.col)
		if err != nil {
			return nil, legend, err
		}
		if s.col == taskColor {
			// Dashed, so that the client curve shows through where the overhead is tiny.
			line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		p.Add(line)
		legend.Add(s.name, line)
	}
	if logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
		p.X.Label.Text = "latency (ms, log scale)"
		p.X.Min, p.X.Max = lo/1.2, hi*1.2
	} else {
		p.X.Tick.Marker = plainTicks{}
		p.X.Label.Text = "latency (ms)"
		pad := (hi - lo) * 0.05
		p.X.Min, p.X.Max = math.Max(0, lo-pad), hi+pad
		if p.X.Max <= p.X.Min {
			p.X.Max = p.X.Min + 1
		}
	}
	return p, legend, nil
}

func (l Latency) overheadPanel() (*plot.Plot, error) {
	over := make([]float64, len(l.ClientMS))
	for i := range over {
		over[i] = l.ClientMS[i] - l.TaskMS[i]
	}
	p := plot.New()
	p.Title.Text = "serving overhead per request: client latency − Task call"
	p.X.Label.Text = "client − Task (ms)"
	p.Y.Label.Text = "fraction of requests ≤ x"
	p.Y.Min, p.Y.Max = 0, 1
	p.Add(plotter.NewGrid())
	line, err := stepLine(over, overColor)
	if err != nil {
		return nil, err
	}
	p.Add(line)
	p.X.Tick.Marker = plainTicks{}
	sorted := sortedCopy(over)
	pad := (sorted[len(sorted)-1] - sorted[0]) * 0.05
	p.X.Min, p.X.Max = sorted[0]-pad, sorted[len(sorted)-1]+pad
	if p.X.Max <= p.X.Min {
		p.X.Min, p.X.Max = sorted[0]-0.5, sorted[0]+0.5
	}
	return p, nil
}

// stepLine is the empirical CDF as a post-step line: it stays at i/n until the next sample.
func stepLine(values []float64, col color.Color) (*plotter.Line, error) {
	s := sortedCopy(values)
	pts := make(plotter.XYs, 0, len(s)+1)
	pts = append(pts, plotter.XY{X: s[0], Y: 0})
	for i, v := range s {
		pts = append(pts, plotter.XY{X: v, Y: float64(i+1) / float64(len(s))})
	}
	line, err := plotter.NewLine(pts)
	if err != nil {
		return nil, fmt.Errorf("latency plot: %w", err)
	}
	line.StepStyle = plotter.PostStep
	line.Color = col
	line.Width = vg.Points(1.6)
	return line, nil
}

func sortedCopy(values []float64) []float64 {
	s := append([]float64(nil), values...)
	sort.Float64s(s)
	return s
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

// clampBelow raises values under lo to lo, so that a 0 ms Task call still shows on a log axis.
func clampBelow(values []float64, lo float64) []float64 {
	out := make([]float64, len(values))
	for i, v := range values {
		out[i] = math.Max(v, lo)
	}
	return out
}
