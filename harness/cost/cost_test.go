package cost

import (
	"math"
	"strings"
	"testing"
	"time"
)

// A fake clock the test advances by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

// Every second of the row is counted once: steps' wall times and the time between them add up
// to the row's wall time, Task time is subtracted only where a step needed it, a step timed
// twice adds up, and the line names every step with its overhead.
func TestCostSplitsTheRowsWallTimeByStep(t *testing.T) {
	clk := &clock{t: time.Unix(1000, 0)}
	m := StartAt(clk.now)
	stop := m.Time("build")
	clk.advance(3 * time.Second)
	stop()
	clk.advance(500 * time.Millisecond) // Ginkgo between specs
	stop = m.Time("container start")
	clk.advance(2 * time.Second)
	stop()
	stop = m.Time("AIPerf")
	clk.advance(10 * time.Second)
	stop()
	m.Task("AIPerf", Millis(1500))
	stop = m.Time("container start") // the stop, counted with the start
	clk.advance(1 * time.Second)
	stop()
	c := m.Cost()
	want := map[string][3]float64{"build": {3, 0, 3}, "container start": {3, 0, 3}, "AIPerf": {10, 1.5, 8.5}, Between: {0.5, 0, 0.5}}
	if len(c.Steps) != len(want) {
		t.Fatalf("steps %+v, want %d", c.Steps, len(want))
	}
	sum := 0.0
	for _, s := range c.Steps {
		w := want[s.Step]
		if math.Abs(s.WallS-w[0]) > 1e-9 || math.Abs(s.TaskS-w[1]) > 1e-9 || math.Abs(s.OverheadS-w[2]) > 1e-9 {
			t.Errorf("%s: wall %v task %v overhead %v, want %v", s.Step, s.WallS, s.TaskS, s.OverheadS, w)
		}
		sum += s.WallS
	}
	if math.Abs(c.WallS-16.5) > 1e-9 || math.Abs(sum-c.WallS) > 1e-9 || math.Abs(c.TaskS-1.5) > 1e-9 || math.Abs(c.OverheadS-15) > 1e-9 {
		t.Errorf("row wall %v (steps sum %v), Task %v, overhead %v; want 16.5, 16.5, 1.5, 15", c.WallS, sum, c.TaskS, c.OverheadS)
	}
	line := Line("asr/sphinx-tidigits", c)
	for _, part := range []string{"[time] row asr/sphinx-tidigits: wall 16.5s, Task 1.5s, harness overhead 15.0s", "build 3.0s", "AIPerf 8.5s (of 10.0s, Task 1.5s)", "between steps 0.5s"} {
		if !strings.Contains(line, part) {
			t.Errorf("line %q lacks %q", line, part)
		}
	}
}
