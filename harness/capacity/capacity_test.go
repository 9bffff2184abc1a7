package capacity

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/stats/schema"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
)

const ms = int64(1e6)

// steady is n requests sent back to back, each clientMS long and taskMS of Task, sent lateMS
// after their credit, on one lane.
func steady(n int, clientMS, taskMS, lateMS float64) []Request {
	var out []Request
	t := int64(1e9)
	for range n {
		credit := t
		start := credit + int64(lateMS*float64(ms))
		end := start + int64(clientMS*float64(ms))
		out = append(out, Request{ClientMS: clientMS, TaskMS: taskMS, CreditNS: credit, StartNS: start, EndNS: end, AudioSeconds: 2})
		t = end
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(b)) }

func TestFigures(t *testing.T) {
	o := target.Objective{ClientP95MS: 600, MaxRTF: 0.5}
	r, err := Figures(steady(4, 500, 400, 0), o)
	if err != nil {
		t.Fatal(err)
	}
	// 4 requests of 500 ms back to back: 2 s, 2 req/s; all within 600 ms and RTF 0.2.
	if r.Requests != 4 || !near(r.DurationS, 2) || !near(r.Throughput, 2) || !near(r.Goodput, 2) || !near(r.InFlight, 1) {
		t.Fatalf("figures %+v", r)
	}
	if !near(r.RTF, 0.2) || !near(r.ClientP95MS, 500) || !near(r.TaskP50MS, 400) || !near(r.OfferedRPS, 2) {
		t.Fatalf("figures %+v", r)
	}
	if !r.ClientKeptUp || !r.Meets {
		t.Fatalf("a run within its objective, sent on time: kept up %v, meets %v", r.ClientKeptUp, r.Meets)
	}

	// Over the RTF bound: throughput stays, goodput is zero, the run misses.
	slow, _ := Figures(steady(4, 500, 1200, 0), o)
	if slow.Meets || slow.Goodput != 0 || !near(slow.Throughput, 2) {
		t.Fatalf("RTF 0.6 against max 0.5: %+v", slow)
	}
	// Over the latency objective on one request in four: p95 is above it.
	reqs := steady(4, 500, 400, 0)
	reqs[3].ClientMS = 900
	if late, _ := Figures(reqs, o); late.Meets || !near(late.Goodput*late.DurationS, 3) {
		t.Fatalf("one request over the objective: %+v", late)
	}
	// A failure: not answered, not in the percentiles, and over max_failures 0.
	reqs = steady(4, 500, 400, 0)
	reqs[1].Failed = true
	if f, _ := Figures(reqs, o); f.Failures != 1 || f.Meets || !near(f.Throughput, 1.5) {
		t.Fatalf("one failure: %+v", f)
	}
	o.MaxFailures = 1
	if f, _ := Figures(reqs, o); !f.Meets {
		t.Fatalf("one failure with max_failures 1: %+v", f)
	}
	if _, err := Figures(nil, o); err == nil {
		t.Fatal("a run without requests has figures")
	}
}

// The client keeps up when its sends are late by at most max(late_ms, late_share × client p50),
// and a run without AIPerf's credit times cannot show it did.
func TestClientKeptUp(t *testing.T) {
	o := target.Objective{ClientP95MS: 1e6}
	for _, tc := range []struct {
		name           string
		clientMS, late float64
		o              target.Objective
		kept           bool
	}{
		{"on time", 500, 1, o, true},
		{"late by more than 5 ms on a 50 ms request", 50, 6, o, false},
		{"late by 20 ms on a 500 ms request: within 5%", 500, 20, o, true},
		{"late by 30 ms on a 500 ms request: beyond 5%", 500, 30, o, false},
		{"the target's own bound", 500, 30, target.Objective{ClientP95MS: 1e6, LateMS: 40}, true},
	} {
		r, err := Figures(steady(5, tc.clientMS, 1, tc.late), tc.o)
		if err != nil {
			t.Fatal(err)
		}
		if r.ClientKeptUp != tc.kept || !near(r.LatenessP95MS, tc.late) {
			t.Errorf("%s: kept up %v (lateness p95 %.3g, bound %.3g), want %v", tc.name, r.ClientKeptUp, r.LatenessP95MS, r.LateBoundMS, tc.kept)
		}
	}
	// Late sends with every lane busy anyway: the median request waited for a lane (here 40 ms
	// against a 100 ms Task), so the server set the pace; a wait of 5 ms (5%) does not saturate.
	for _, tc := range []struct {
		queueMS float64
		kept    bool
	}{{40, true}, {10, true}, {5, false}, {0, false}} {
		reqs := steady(5, 200, 100, 30)
		for i := range reqs {
			reqs[i].QueueMS = tc.queueMS
		}
		r, err := Figures(reqs, o)
		if err != nil {
			t.Fatal(err)
		}
		if r.ClientKeptUp != tc.kept || r.Saturated != tc.kept {
			t.Errorf("late by 30 ms, queue %v ms on a 100 ms Task: kept up %v, saturated %v, want %v", tc.queueMS, r.ClientKeptUp, r.Saturated, tc.kept)
		}
	}
	reqs := steady(3, 500, 1, 0)
	reqs[2].CreditNS = 0
	if r, _ := Figures(reqs, o); r.ClientKeptUp {
		t.Error("a run with a request without its credit time is said to have kept up")
	}
}

func run(tp float64, meets, kept bool) Run {
	return Run{Throughput: tp, Goodput: tp, ClientP95MS: 100, TaskP50MS: 1000, Meets: meets, ClientKeptUp: kept}
}

func level(t *testing.T, c int, failure string, runs ...Run) Level {
	t.Helper()
	l, err := NewLevel(c, runs, failure)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestLevelMeetsOnlyWhenEveryRunDoesCheckedAndKeptUp(t *testing.T) {
	if l := level(t, 1, "", run(1, true, true), run(1.2, true, true)); !l.Meets || !l.Checked || !near(l.Throughput.Mean, 1.1) || l.Throughput.CI == nil {
		t.Fatalf("two good runs: %+v", l)
	}
	for name, l := range map[string]Level{
		"one run misses":          level(t, 1, "", run(1, true, true), run(1, false, true)),
		"the client fell behind":  level(t, 1, "", run(1, true, true), run(1, true, false)),
		"its identity check fail": level(t, 1, "identity: 1 of 4 requests differ", run(1, true, true)),
		"no runs":                 level(t, 1, ""),
	} {
		if l.Meets {
			t.Errorf("%s: the level meets the objective", name)
		}
	}
}

func TestAnalyze(t *testing.T) {
	o := target.Objective{ClientP95MS: 100}
	levels := []Level{
		level(t, 1, "", run(1, true, true), run(1, true, true)),
		level(t, 2, "", run(1.9, true, true), run(1.9, true, true)),
		level(t, 4, "", run(2.0, true, true), run(2.0, true, true)),
		level(t, 8, "", run(2.0, false, true), run(2.0, false, true)), // over the objective
		level(t, 16, "", run(9, true, false), run(9, true, false)),    // the client fell behind: never the capacity, never the knee
	}
	res := Analyze("p", "s", o, 2, levels)
	if res.Capacity != 4 || res.Throughput == nil || !near(res.Throughput.Mean, 2) {
		t.Fatalf("capacity %d %+v, want 4 at 2 req/s", res.Capacity, res.Throughput)
	}
	if res.Knee != 2 { // 1.9 ≥ 90% of 2.0; the unkept level's 9 does not count
		t.Fatalf("knee %d, want 2", res.Knee)
	}
	if !near(res.Bound, 2) || !near(res.BoundShare, 1) { // 2 lanes × 1/1 s
		t.Fatalf("bound %.3g share %.3g, want 2 and 1", res.Bound, res.BoundShare)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "concurrency 16: the client did not keep up") {
		t.Fatalf("notes %q do not mark the level the client did not keep up with", res.Notes)
	}

	none := Analyze("p", "s", o, 2, levels[3:4])
	if none.Capacity != 0 || none.Throughput != nil || !strings.Contains(strings.Join(none.Notes, "\n"), "no level met") {
		t.Fatalf("no level meets: %+v", none)
	}
	// A level whose checks failed (answers wrong, fast) sets neither the knee nor the bound.
	failed := level(t, 1, "identity: 3 of 6 outputs differ", run(50, true, true))
	failed.TaskP50MS.Mean = 1 // a Task that answers garbage at once
	withFailed := Analyze("p", "s", o, 2, append([]Level{failed}, levels[:3]...))
	if withFailed.Knee != 2 || !near(withFailed.Bound, 2) {
		t.Fatalf("a failed level at 50 req/s: knee %d bound %.3g, want 2 and 2 (from the checked levels)", withFailed.Knee, withFailed.Bound)
	}
	// The highest meeting level is the capacity even when a lower one served more.
	dip := Analyze("p", "s", o, 1, []Level{level(t, 1, "", run(3, true, true)), level(t, 2, "", run(2, true, true))})
	if dip.Capacity != 2 || !strings.Contains(strings.Join(dip.Notes, "\n"), "concurrency 1 served more") {
		t.Fatalf("throughput fell at the capacity level: %+v", dip)
	}
}

func TestGoodputDisagreementIsNoted(t *testing.T) {
	o := target.Objective{ClientP95MS: 100}
	r := run(2, true, true)
	r.AIPerfGoodput = 2.05
	if res := Analyze("p", "s", o, 1, []Level{level(t, 1, "", r)}); strings.Contains(strings.Join(res.Notes, "\n"), "by AIPerf") {
		t.Fatalf("goodputs within 10%% noted: %q", res.Notes)
	}
	r.AIPerfGoodput = 1.5
	if res := Analyze("p", "s", o, 1, []Level{level(t, 1, "", r)}); !strings.Contains(strings.Join(res.Notes, "\n"), "2 req/s here, 1.5 by AIPerf: AIPerf divides") {
		t.Fatalf("goodputs 2 and 1.5 not noted: %q", res.Notes)
	}
}

// Over random sweeps: every level that ran and missed the objective below the capacity level is
// named in a note (the capacity then rests on a non-monotone sweep), and no other level is; every
// interval of every level is non-negative, whatever the runs' spread (a goodput of 0 in some runs).
func TestEveryLevelMissedBelowTheCapacityIsNotedAndNoIntervalIsNegative(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	o := target.Objective{ClientP95MS: 100}
	for trial := range 500 {
		var levels []Level
		for c := 1; c <= 1<<rng.IntN(5); c *= 2 {
			var runs []Run
			for range rng.IntN(4) {
				r := run(rng.Float64()*3, rng.IntN(3) > 0, rng.IntN(5) > 0)
				if rng.IntN(3) == 0 {
					r.Goodput = 0 // every request out of the objective
				}
				runs = append(runs, r)
			}
			failure := ""
			if rng.IntN(6) == 0 {
				failure = "identity: 1 of 4 outputs differ"
			}
			levels = append(levels, level(t, c, failure, runs...))
		}
		res := Analyze("p", "s", o, 2, levels)
		notes := strings.Join(res.Notes, "\n")
		for _, l := range levels {
			noted := strings.Contains(notes, fmt.Sprintf("concurrency %d did not meet the objective, below the capacity level", l.Concurrency))
			if want := res.Capacity > 0 && l.Concurrency < res.Capacity && !l.Meets && len(l.Runs) > 0 && l.Checked && l.ClientKeptUp; noted != want {
				t.Fatalf("trial %d: level %d (meets %v, %d runs) below capacity %d: noted %v, want %v\n%s", trial, l.Concurrency, l.Meets, len(l.Runs), res.Capacity, noted, want, notes)
			}
			for name, iv := range map[string]schema.Interval{"throughput": l.Throughput, "goodput": l.Goodput, "client p95": l.ClientP95MS, "Task p50": l.TaskP50MS} {
				if iv.CI != nil && iv.CI.Lower < 0 {
					t.Fatalf("trial %d: level %d %s interval [%g, %g] reaches below 0", trial, l.Concurrency, name, iv.CI.Lower, iv.CI.Upper)
				}
			}
		}
	}
}
