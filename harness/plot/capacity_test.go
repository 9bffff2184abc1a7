package plot

import "testing"

func TestCapacityPlotMarksLevelsTheClientDidNotKeepUpWith(t *testing.T) {
	pts := []Point{{Offered: 1, Throughput: 10, TLo: 9, THi: 11, ClientP95: 100, P95Lo: 95, P95Hi: 105, KeptUp: true},
		{Offered: 2, Throughput: 19, TLo: 18, THi: 20, ClientP95: 110, P95Lo: 100, P95Hi: 120, KeptUp: true}}
	if n := redPixels(t, Capacity{Title: "kept up", Points: pts, ObjectiveMS: 250, BoundRPS: 20}.PNG); n != 0 {
		t.Fatalf("%d cross pixels on a sweep the client kept up with", n)
	}
	pts[1].KeptUp = false
	if n := redPixels(t, Capacity{Title: "late", Points: pts, ObjectiveMS: 250, BoundRPS: 20}.PNG); n == 0 {
		t.Fatal("a level the client did not keep up with is not marked")
	}
	if _, err := (Capacity{Title: "empty"}).PNG(72); err == nil {
		t.Fatal("an empty sweep rendered")
	}
}
