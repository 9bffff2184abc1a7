package plot

import (
	"bytes"
	"image/color"
	"image/png"
	"testing"
)

// pixels counts the pixels of exactly col in a PNG.
func pixels(t *testing.T, data []byte, col color.RGBA) int {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if color.RGBAModel.Convert(img.At(x, y)) == col {
				n++
			}
		}
	}
	return n
}

func TestCapacityPlotMarksLevelsTheClientDidNotKeepUpWith(t *testing.T) {
	pts := []Point{{Offered: 1, Throughput: 10, TLo: 9, THi: 11, ClientP95: 100, P95Lo: 95, P95Hi: 105, KeptUp: true},
		{Offered: 2, Throughput: 19, TLo: 18, THi: 20, ClientP95: 110, P95Lo: 100, P95Hi: 120, KeptUp: true}}
	kept, err := Capacity{Title: "kept up", Points: pts, ObjectiveMS: 250, BoundRPS: 20}.PNG(96)
	if err != nil {
		t.Fatal(err)
	}
	if n := pixels(t, kept, lateColor); n != 0 {
		t.Fatalf("%d late-marker pixels on a sweep the client kept up with", n)
	}
	if n := pixels(t, kept, boundColor); n == 0 {
		t.Fatal("neither the objective nor the bound is drawn")
	}
	noRefs, err := Capacity{Title: "no lines", Points: pts}.PNG(96)
	if err != nil {
		t.Fatal(err)
	}
	if n := pixels(t, noRefs, boundColor); n != 0 {
		t.Fatalf("%d reference-line pixels with no objective and no bound", n)
	}
	pts[1].KeptUp = false
	late, err := Capacity{Title: "late", Points: pts, ObjectiveMS: 250, BoundRPS: 20}.PNG(96)
	if err != nil {
		t.Fatal(err)
	}
	if n := pixels(t, late, lateColor); n == 0 {
		t.Fatal("a level the client did not keep up with is not marked")
	}
	if _, err := (Capacity{Title: "empty"}).PNG(72); err == nil {
		t.Fatal("an empty sweep rendered")
	}
}
