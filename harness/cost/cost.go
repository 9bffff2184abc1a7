// Package cost accounts for what one row's qualification costs the harness: the row's wall
// time, the Task time its claims needed (served Task calls at the row's concurrency, native
// Task calls), and the difference step by step, so that a run says where its time went beyond
// the compute it measures.
package cost

import (
	"fmt"
	"strings"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// Rule states how a row's cost is split.
const Rule = "wall_s runs from preparing the checkpoint to settling its result; a step's task_s is the Task time it needed: " +
	"the served Task calls it sent (model_call_ms summed, over the row's concurrency: the wall time c lanes need at best) " +
	"and the native runs' public Task calls; overhead_s = wall_s − task_s; \"between steps\" is the wall time no step covered " +
	"(Ginkgo, cleanups not timed as steps)"

// Between names the wall time of the row that no step covered.
const Between = "between steps"

// Meter times a row's steps. The zero value is not ready: use Start.
type Meter struct {
	start time.Time
	now   func() time.Time
	order []string
	wall  map[string]time.Duration
	task  map[string]time.Duration
}

// Start begins timing a row now.
func Start() *Meter { return StartAt(time.Now) }

// StartAt begins timing a row with clock now (tests give their own clock).
func StartAt(now func() time.Time) *Meter {
	return &Meter{start: now(), now: now, wall: map[string]time.Duration{}, task: map[string]time.Duration{}}
}

// Time starts timing step and returns the function that stops it; a step timed twice (a
// container started and stopped) adds up.
func (m *Meter) Time(step string) func() {
	t0 := m.now()
	return func() { m.add(step, m.now().Sub(t0), 0) }
}

// Task adds Task time that step needed.
func (m *Meter) Task(step string, d time.Duration) { m.add(step, 0, d) }

func (m *Meter) add(step string, wall, task time.Duration) {
	if _, ok := m.wall[step]; !ok {
		m.order = append(m.order, step)
		m.wall[step] = 0
	}
	m.wall[step] += wall
	m.task[step] += task
}

// Cost is the row's cost until now: every step in the order first timed, then the wall time no
// step covered.
func (m *Meter) Cost() evidence.Cost {
	c := evidence.Cost{WallS: m.now().Sub(m.start).Seconds(), Rule: Rule}
	covered := 0.0
	for _, step := range m.order {
		s := evidence.StepCost{Step: step, WallS: m.wall[step].Seconds(), TaskS: m.task[step].Seconds()}
		s.OverheadS = s.WallS - s.TaskS
		covered += s.WallS
		c.TaskS += s.TaskS
		c.Steps = append(c.Steps, s)
	}
	c.Steps = append(c.Steps, evidence.StepCost{Step: Between, WallS: c.WallS - covered, OverheadS: c.WallS - covered})
	c.OverheadS = c.WallS - c.TaskS
	return c
}

// Line is the cost as one `[time]` line: wall, Task, overhead, and each step's overhead.
func Line(row string, c evidence.Cost) string {
	parts := make([]string, 0, len(c.Steps))
	for _, s := range c.Steps {
		if s.TaskS > 0 {
			parts = append(parts, fmt.Sprintf("%s %.1fs (of %.1fs, Task %.1fs)", s.Step, s.OverheadS, s.WallS, s.TaskS))
		} else {
			parts = append(parts, fmt.Sprintf("%s %.1fs", s.Step, s.OverheadS))
		}
	}
	return fmt.Sprintf("[time] row %s: wall %.1fs, Task %.1fs, harness overhead %.1fs: %s", row, c.WallS, c.TaskS, c.OverheadS, strings.Join(parts, ", "))
}

// Millis is a duration of ms milliseconds.
func Millis(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }
