// Package chart draws the report's pictures as SVG from their data: the latency figure (the
// empirical CDF of client latency and of the Task call, and the per-request overhead between
// them) and one timeline per AIPerf run. The output is a pure function of the data, byte for
// byte, so `qual verify` draws every picture again from the run's stored exports and records
// and compares it with the one published: a redrawn picture is refused like an edited number.
//
// It is written here rather than with gonum/plot (which `qual capacity` still uses) because the
// verifier re-renders the pictures and must build without cgo and without a plotting library
// (harness/internal/shape), and because a picture verify compares byte for byte needs an output
// we control to the byte.
package chart

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
)

// svgDoc writes one SVG element of the given size: a picture that is valid inline in an HTML
// page (no XML declaration, no ids that two pictures on a page could share) and as a file.
type svgDoc struct {
	b strings.Builder
}

func (d *svgDoc) open(w, h float64, label string) {
	fmt.Fprintf(&d.b, `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="%s" width="%s" height="%s" viewBox="0 0 %s %s" font-family="sans-serif" font-size="12">`+"\n",
		esc(label), num(w), num(h), num(w), num(h))
	fmt.Fprintf(&d.b, `<rect width="%s" height="%s" fill="#fff"/>`+"\n", num(w), num(h))
}

func (d *svgDoc) close() []byte {
	d.b.WriteString("</svg>\n")
	return []byte(d.b.String())
}

// text writes a label; anchor is start, middle or end.
func (d *svgDoc) text(x, y float64, anchor, s string, extra string) {
	fmt.Fprintf(&d.b, `<text x="%s" y="%s" text-anchor="%s"%s>%s</text>`+"\n", num(x), num(y), anchor, extra, esc(s))
}

func (d *svgDoc) line(x0, y0, x1, y1 float64, stroke string, width float64) {
	fmt.Fprintf(&d.b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="%s"/>`+"\n", num(x0), num(y0), num(x1), num(y1), stroke, num(width))
}

// num is a coordinate: two decimals, a hundredth of a pixel, always written the same way.
func num(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

// exact is a datum as the shortest text that reads back as the same float64: written into the
// picture (a curve's description, a bar's tooltip) so that the picture is its data, and no two
// sample sets draw the same bytes.
func exact(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func esc(s string) string { return html.EscapeString(s) }

// finite refuses a value no axis can place.
func finite(what string, values []float64) error {
	for _, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s: %v is not a finite number", what, v)
		}
	}
	return nil
}
