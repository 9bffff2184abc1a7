package plot

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// realistic is a checkpoint like sphinx-en-us: Task calls of 1–4 s and a few ms of overhead.
func realistic(n int) Latency {
	r := rand.New(rand.NewPCG(1, 2))
	l := Latency{Title: "sphinx-en-us"}
	for range n {
		task := 1000 + 3000*r.Float64()
		l.TaskMS = append(l.TaskMS, task)
		l.ClientMS = append(l.ClientMS, task+2+3*r.Float64())
	}
	return l
}

func TestLatencyPNGShowsThreeCurves(t *testing.T) {
	raw, err := realistic(50).PNG(96)
	if err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("QUAL_PLOT_OUT"); dir != "" { // for looking at it
		_ = os.WriteFile(filepath.Join(dir, "latency.png"), raw, 0o644)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 7*96 || b.Dy() != 6*96 {
		t.Fatalf("size %v, want 672x576", b)
	}
	for name, want := range map[string]color.RGBA{"client": clientColor, "task": taskColor, "overhead": overColor} {
		if n := countColor(img, want); n < 200 {
			t.Errorf("%s curve: %d pixels of its colour, want a drawn line", name, n)
		}
	}
}

func countColor(img image.Image, want color.RGBA) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if near(r, want.R) && near(g, want.G) && near(bl, want.B) {
				n++
			}
		}
	}
	return n
}

func near(v uint32, want uint8) bool {
	d := int(v>>8) - int(want)
	return d > -24 && d < 24
}

func TestLatencySVGLabelsAxesAndScale(t *testing.T) {
	linear, err := realistic(20).SVG()
	if err != nil {
		t.Fatal(err)
	}
	wide := Latency{Title: "tidigits", ClientMS: []float64{5, 20, 900, 4000}, TaskMS: []float64{0, 15, 880, 3990}}
	logged, err := wide.SVG()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"empirical CDF", "fraction of requests ≤ x", "latency (ms)", "client − Task (ms)", "client latency (AIPerf request_latency)", "Task call (server model_call_ms)"} {
		if !strings.Contains(string(linear), want) {
			t.Errorf("linear SVG lacks %q", want)
		}
	}
	if strings.Contains(string(linear), "log scale") || !strings.Contains(string(logged), "latency (ms, log scale)") {
		t.Error("the x axis must be logarithmic exactly when the values span two decades")
	}
}

func TestLatencyRefusesUnpairedRequests(t *testing.T) {
	if _, err := (Latency{ClientMS: []float64{1, 2}, TaskMS: []float64{1}}).SVG(); err == nil {
		t.Fatal("unpaired client and Task times must be refused")
	}
	if _, err := (Latency{}).SVG(); err == nil {
		t.Fatal("an empty plot must be refused")
	}
}

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
