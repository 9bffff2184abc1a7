package chart

import (
	"bytes"
	"encoding/xml"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// sampleSet is a random row's measured requests: a Task time of 0 ms to a few seconds (some
// rows' Task takes 0 ms, some decades apart) and a few ms of overhead, sometimes negative.
func sampleSet(r *rand.Rand) Latency {
	n := 1 + r.IntN(60)
	scale := math.Pow(10, float64(r.IntN(4)))
	l := Latency{Title: "p", Label: "latency of p"}
	for range n {
		task := scale * r.Float64() * 4
		if r.IntN(10) == 0 {
			task = 0
		}
		l.TaskMS = append(l.TaskMS, task)
		l.ClientMS = append(l.ClientMS, task+r.NormFloat64()*3+5)
	}
	return l
}

func mustSVG(t *testing.T, draw func() ([]byte, error)) []byte {
	t.Helper()
	svg, err := draw()
	if err != nil {
		t.Fatal(err)
	}
	wellFormed(t, svg)
	return svg
}

func wellFormed(t *testing.T, svg []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svg))
	for {
		if _, err := dec.Token(); err == io.EOF {
			return
		} else if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, svg)
		}
	}
}

// A latency figure is a function of its requests: the same requests, in any order, draw the
// same bytes; a different value of any one sample (client or Task, by a little or a lot, into
// another decade or to 0) or two requests' client times swapped draws different bytes. Over 300
// random sample sets.
func TestLatencyFigureIsItsData(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 42))
	for range 300 {
		l := sampleSet(r)
		svg := mustSVG(t, l.SVG)
		if again := mustSVG(t, l.SVG); !bytes.Equal(svg, again) {
			t.Fatal("two drawings of the same requests differ")
		}
		perm := Latency{Title: l.Title, Label: l.Label}
		for _, i := range r.Perm(len(l.ClientMS)) {
			perm.ClientMS, perm.TaskMS = append(perm.ClientMS, l.ClientMS[i]), append(perm.TaskMS, l.TaskMS[i])
		}
		if !bytes.Equal(svg, mustSVG(t, perm.SVG)) {
			t.Fatal("the same requests in another order draw another picture")
		}
		i := r.IntN(len(l.ClientMS))
		for name, change := range map[string]func(float64) float64{
			"next float": func(v float64) float64 { return math.Nextafter(v, math.Inf(1)) },
			"+1 ms":      func(v float64) float64 { return v + 1 },
			"×100":       func(v float64) float64 { return v*100 + 1 },
			"to 0":       func(v float64) float64 { return map[bool]float64{true: 1, false: 0}[v == 0] },
		} {
			for side, values := range map[string][]float64{"client": l.ClientMS, "Task": l.TaskMS} {
				old := values[i]
				values[i] = change(old)
				if bytes.Equal(svg, mustSVG(t, l.SVG)) {
					t.Errorf("%s sample %d of %d changed (%s: %v → %v): same picture", side, i, len(values), name, old, values[i])
				}
				values[i] = old
			}
		}
		if j := r.IntN(len(l.ClientMS)); l.ClientMS[i]-l.TaskMS[i] != l.ClientMS[j]-l.TaskMS[j] && l.TaskMS[i] != l.TaskMS[j] {
			l.ClientMS[i], l.ClientMS[j] = l.ClientMS[j], l.ClientMS[i]
			if bytes.Equal(svg, mustSVG(t, l.SVG)) {
				t.Errorf("requests %d and %d's client times swapped: same picture", i, j)
			}
		}
	}
}

// randomRun is a random AIPerf run seen from the server.
func randomRun(r *rand.Rand) Timeline {
	tl := Timeline{Title: "p: AIPerf run 1 of 1", Label: "timeline of p", Lanes: 1 + r.IntN(4)}
	for range 1 + r.IntN(30) {
		a := r.Float64() * 20
		q, task := r.Float64()*r.Float64(), r.Float64()*3
		tl.Spans = append(tl.Spans, Span{ArrivalS: a, QueueS: q, TaskS: task, EndS: a + q + task + r.Float64()*0.1,
			Warmup: r.IntN(5) == 0, Failed: r.IntN(20) == 0})
	}
	return tl
}

// A timeline is a function of its run's requests: drawn twice it is the same bytes; any field of
// any request changed (a bar moved by the least float or by a second, a queue or Task
// lengthened, a request relabelled warmup or failed) draws different bytes. Over 300 random runs.
func TestTimelineIsItsData(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	for range 300 {
		tl := randomRun(r)
		svg := mustSVG(t, tl.SVG)
		if !bytes.Equal(svg, mustSVG(t, tl.SVG)) {
			t.Fatal("two drawings of the same run differ")
		}
		i := r.IntN(len(tl.Spans))
		for name, change := range map[string]func(*Span){
			"arrival by the least float": func(s *Span) { s.ArrivalS = math.Nextafter(s.ArrivalS, 100) },
			"moved by a second":          func(s *Span) { s.ArrivalS, s.EndS = s.ArrivalS+1, s.EndS+1 },
			"queue":                      func(s *Span) { s.QueueS += 0.25 },
			"Task":                       func(s *Span) { s.TaskS = math.Nextafter(s.TaskS, 100) },
			"answer":                     func(s *Span) { s.EndS += 1e-6 },
			"warmup":                     func(s *Span) { s.Warmup = !s.Warmup },
			"failed":                     func(s *Span) { s.Failed = !s.Failed },
		} {
			old := tl.Spans[i]
			change(&tl.Spans[i])
			if bytes.Equal(svg, mustSVG(t, tl.SVG)) {
				t.Errorf("request %d of %d changed (%s): same picture", i, len(tl.Spans), name)
			}
			tl.Spans[i] = old
		}
	}
}

// What a run's data puts into a picture is text, never markup; a value no axis can place is an
// error, not a picture.
func TestChartsEscapeTextAndRefuseNonFinite(t *testing.T) {
	hostile := `</text><script>alert(1)</script>&"'`
	l := Latency{Title: hostile, Label: hostile, ClientMS: []float64{1, 2}, TaskMS: []float64{0.5, 1}}
	tl := Timeline{Title: hostile, Label: hostile, Lanes: 1, Spans: []Span{{ArrivalS: 0, TaskS: 1, EndS: 1}}}
	for _, svg := range [][]byte{mustSVG(t, l.SVG), mustSVG(t, tl.SVG)} {
		if strings.Contains(string(svg), "<script") {
			t.Errorf("markup from the title reached the picture:\n%s", svg)
		}
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1)} {
		if _, err := (Latency{ClientMS: []float64{bad}, TaskMS: []float64{1}}).SVG(); err == nil {
			t.Errorf("client latency %v drawn", bad)
		}
		if _, err := (Timeline{Lanes: 1, Spans: []Span{{EndS: bad}}}).SVG(); err == nil {
			t.Errorf("answer at %v drawn", bad)
		}
	}
	if _, err := (Latency{ClientMS: []float64{1}, TaskMS: nil}).SVG(); err == nil {
		t.Error("unpaired requests drawn")
	}
}

// Lanes fill lowest first: a server of n lanes shows exactly n.
func TestAssignLanesFillsFreeLanesFirst(t *testing.T) {
	spans := []Span{{ArrivalS: 0, TaskS: 2}, {ArrivalS: 0.5, TaskS: 1}, {ArrivalS: 1.6, TaskS: 1}, {ArrivalS: 2.1, TaskS: 1}}
	lanes, used := AssignLanes(spans)
	if want := []int{0, 1, 1, 0}; used != 2 || !equal(lanes, want) {
		t.Fatalf("lanes %v (%d used), want %v (2)", lanes, used, want)
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
