package plot

import (
	"bytes"
	"image/png"
	"testing"
)

func TestAssignLanesFillsFreeLanesFirst(t *testing.T) {
	spans := []Span{
		{ArrivalS: 0, TaskS: 2, EndS: 2},                // lane 0
		{ArrivalS: 0, TaskS: 1, EndS: 1},                // lane 1
		{ArrivalS: 0.5, QueueS: 0.5, TaskS: 1, EndS: 2}, // waits for lane 1
		{ArrivalS: 2, TaskS: 1, EndS: 3},                // lane 0 again (lowest free)
	}
	lanes, used := AssignLanes(spans)
	if want := []int{0, 1, 1, 0}; used != 2 || !equal(lanes, want) {
		t.Fatalf("lanes %v (%d used), want %v on 2", lanes, used, want)
	}
	// Three Tasks at once need a third lane: the timeline shows the overlap, not a wrong fit.
	if _, used := AssignLanes([]Span{{TaskS: 1}, {TaskS: 1}, {TaskS: 1}}); used != 3 {
		t.Fatalf("three overlapping Tasks on %d lanes", used)
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// redPixels counts pixels of the failure colour in a rendered figure: a failure (or a level the
// client did not keep up with) is marked, a clean figure is not.
func redPixels(t *testing.T, render func(dpi int) ([]byte, error)) int {
	t.Helper()
	data, err := render(72)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return countColor(img, failColor)
}

func TestTimelineMarksFailures(t *testing.T) {
	spans := []Span{{ArrivalS: 0, TaskS: 1, EndS: 1.1, Warmup: true}, {ArrivalS: 1.2, QueueS: 0.3, TaskS: 1, EndS: 2.6}, {ArrivalS: 1.3, TaskS: 0.8, EndS: 2.2}}
	if n := redPixels(t, Timeline{Title: "clean", Lanes: 2, Spans: spans}.PNG); n != 0 {
		t.Fatalf("a run without failures has %d failure pixels", n)
	}
	spans[2].Failed = true
	if n := redPixels(t, Timeline{Title: "one failure", Lanes: 2, Spans: spans}.PNG); n == 0 {
		t.Fatal("a failed request is not marked")
	}
	if _, err := (Timeline{Title: "empty", Lanes: 2}).PNG(72); err == nil {
		t.Fatal("an empty timeline rendered")
	}
}
