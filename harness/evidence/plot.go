package evidence

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
)

// WriteLatencySVG draws the empirical CDF of client latency and of Task time (ms) for one
// checkpoint: the gap between the curves is the serving overhead.
func WriteLatencySVG(path, title string, clientMS, taskMS []float64) error {
	const w, h, pad = 640.0, 360.0, 50.0
	maxV := 0.0
	for _, v := range append(append([]float64(nil), clientMS...), taskMS...) {
		maxV = math.Max(maxV, v)
	}
	if maxV == 0 {
		maxV = 1
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12">`+"\n", w, h)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/><text x="%.0f" y="20">%s</text>`+"\n", pad, xmlEscape(title))
	fmt.Fprintf(&b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="black"/><line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="black"/>`+"\n",
		pad, h-pad, w-pad, h-pad, pad, pad, pad, h-pad)
	for i := 0; i <= 4; i++ {
		x := pad + float64(i)/4*(w-2*pad)
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" text-anchor="middle">%.0f</text>`+"\n", x, h-pad+16, maxV*float64(i)/4)
		y := h - pad - float64(i)/4*(h-2*pad)
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" text-anchor="end">%.2f</text>`+"\n", pad-4, y+4, float64(i)/4)
	}
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" text-anchor="middle">latency (ms)</text>`+"\n", w/2, h-10)
	for i, series := range []struct {
		name   string
		color  string
		values []float64
	}{{"client latency (AIPerf)", "#d62728", clientMS}, {"Task call (model_call_ms)", "#1f77b4", taskMS}} {
		s := append([]float64(nil), series.values...)
		sort.Float64s(s)
		var pts []string
		for k, v := range s {
			x := pad + v/maxV*(w-2*pad)
			y := h - pad - float64(k+1)/float64(len(s))*(h-2*pad)
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", series.color, strings.Join(pts, " "))
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" fill="%s">%s (n=%d)</text>`+"\n", w-pad-220, pad+float64(i)*16, series.color, series.name, len(s))
	}
	b.WriteString("</svg>\n")
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
