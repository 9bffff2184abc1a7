package chart

import (
	"math"
	"strconv"
)

// axis maps data values to pixels, linearly or by their logarithm: lo is drawn at p0, hi at p1.
type axis struct {
	lo, hi float64
	log    bool
	p0, p1 float64
}

func (a axis) at(v float64) float64 {
	t := (v - a.lo) / (a.hi - a.lo)
	if a.log {
		t = (math.Log10(v) - math.Log10(a.lo)) / (math.Log10(a.hi) - math.Log10(a.lo))
	}
	return a.p0 + t*(a.p1-a.p0)
}

// tick is a value the axis marks; an empty label is a minor tick (a log axis' 2…9).
type tick struct {
	v     float64
	label string
}

// ticks are about five round values (1, 2 or 5 times a power of ten apart) on a linear axis, and
// every power of ten with the multiples between them on a log axis.
func (a axis) ticks() []tick {
	if a.log {
		return logTicks(a.lo, a.hi)
	}
	step := niceStep((a.hi - a.lo) / 5)
	decimals := max(0, int(-math.Floor(math.Log10(step)+1e-9)))
	var out []tick
	for k := math.Ceil(a.lo/step - 1e-9); k*step <= a.hi+step*1e-9; k++ {
		v := k * step
		if v == 0 {
			v = 0 // never "-0"
		}
		out = append(out, tick{v, strconv.FormatFloat(v, 'f', decimals, 64)})
	}
	return out
}

// niceStep is the smallest of 1, 2, 5 or 10 times a power of ten that is at least raw.
func niceStep(raw float64) float64 {
	if raw <= 0 || math.IsNaN(raw) || math.IsInf(raw, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw*(1-1e-12) {
			return m * p
		}
	}
	return 10 * p
}

func logTicks(lo, hi float64) []tick {
	var out []tick
	for k := math.Floor(math.Log10(lo)); k <= math.Ceil(math.Log10(hi)); k++ {
		p := math.Pow(10, k)
		for m := 1.0; m < 10; m++ {
			v := m * p
			if v < lo || v > hi {
				continue
			}
			label := ""
			if m == 1 {
				label = strconv.FormatFloat(v, 'f', max(0, int(-k)), 64)
			}
			out = append(out, tick{v, label})
		}
	}
	return out
}

// panel is a plotting area with its two axes.
type panel struct {
	x, y                     axis
	left, top, width, height float64
}

func newPanel(left, top, width, height float64, x, y axis) panel {
	x.p0, x.p1 = left, left+width
	y.p0, y.p1 = top+height, top
	return panel{x: x, y: y, left: left, top: top, width: width, height: height}
}

// frame draws the panel's grid, box, tick labels and axis labels.
func (d *svgDoc) frame(p panel, xlabel, ylabel string) {
	for _, t := range p.x.ticks() {
		x := p.x.at(t.v)
		colour := "#e4e4e4"
		if t.label == "" {
			colour = "#f2f2f2"
		}
		d.line(x, p.top, x, p.top+p.height, colour, 1)
		if t.label != "" {
			d.text(x, p.top+p.height+15, "middle", t.label, "")
		}
	}
	for _, t := range p.y.ticks() {
		y := p.y.at(t.v)
		d.line(p.left, y, p.left+p.width, y, "#e4e4e4", 1)
		d.text(p.left-6, y+4, "end", t.label, "")
	}
	d.b.WriteString(`<rect x="` + num(p.left) + `" y="` + num(p.top) + `" width="` + num(p.width) + `" height="` + num(p.height) + `" fill="none" stroke="#555"/>` + "\n")
	d.text(p.left+p.width/2, p.top+p.height+32, "middle", xlabel, "")
	if ylabel != "" {
		cx, cy := p.left-44, p.top+p.height/2
		d.text(cx, cy, "middle", ylabel, ` transform="rotate(-90 `+num(cx)+" "+num(cy)+`)"`)
	}
}
