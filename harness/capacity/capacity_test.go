package capacity

import (
	"strings"
	"testing"
)

// closedLoop is n requests of taskMS each on lanes lanes at concurrency c, sent on time
// (lateMS after their credit): requests beyond the lanes queue.
func closedLoop(n, c, lanes int, taskMS, lateMS float64) []Request {
	var out []Request
	busy := make([]float64, lanes) // ms when each lane frees
	slot := make([]float64, c)     // ms when each client slot may send again
	for i := range n {
		s := i % c
		send := slot[s]
		lane := 0
		for l := range busy {
			if busy[l] < busy[lane] {
				lane = l
			}
		}
		start := max(send, busy[lane])
		end := start + taskMS
		busy[lane], slot[s] = end, end
		out = append(out, Request{ClientMS: end - send, TaskMS: taskMS, QueueMS: start - send,
			CreditNS: int64((send - lateMS) * 1e6), StartNS: int64(send * 1e6), EndNS: int64(end * 1e6)})
	}
	return out
}

func level(t *testing.T, c int, o Objective, lateMS float64) Level {
	t.Helper()
	var runs []Run
	for range 3 {
		r, err := Figures(closedLoop(24, c, 2, 100, lateMS), o)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	l, err := NewLevel(c, runs, true)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestCapacityIsTheHighestLevelMeetingTheObjective(t *testing.T) {
	o := Objective{ClientP95MS: 250}
	levels := []Level{level(t, 1, o, 0), level(t, 2, o, 0), level(t, 4, o, 0)}
	// 2 lanes of 100 ms: concurrency 2 answers in 100 ms at 20 req/s; 4 queues to 200 ms at the
	// same 20 req/s, still within 250 ms.
	res := Analyze("m", "asr", o, 2, levels)
	if res.Capacity != 4 || res.Knee != 2 {
		t.Fatalf("capacity %d knee %d, want 4 and 2 (%+v)", res.Capacity, res.Knee, res.Levels)
	}
	if res.Bound != 20 || res.BoundShare < 0.95 || res.BoundShare > 1.0001 {
		t.Fatalf("bound %.3f share %.3f, want 20 req/s and ≈ 1", res.Bound, res.BoundShare)
	}
	if res.Throughput == nil || res.Throughput.N != 3 {
		t.Fatalf("capacity throughput without its interval over 3 runs: %+v", res.Throughput)
	}
	tight := Objective{ClientP95MS: 150}
	res = Analyze("m", "asr", tight, 2, []Level{level(t, 1, tight, 0), level(t, 2, tight, 0), level(t, 4, tight, 0)})
	if res.Capacity != 2 {
		t.Fatalf("capacity %d under a 150 ms objective, want 2 (4 queues to 200 ms)", res.Capacity)
	}
	if g := res.Levels[2].Runs[0].Goodput; g >= res.Levels[2].Runs[0].Throughput {
		t.Fatalf("goodput %.2f not below throughput at a level that misses the objective", g)
	}
}

func TestALevelTheClientCouldNotKeepUpWithIsNeverCapacity(t *testing.T) {
	o := Objective{ClientP95MS: 250}
	late := level(t, 4, o, 40) // sent 40 ms after each credit: 40% of a 100 ms p50
	if late.ClientKeptUp || late.Meets {
		t.Fatalf("a late client's level is marked kept up %v / meets %v", late.ClientKeptUp, late.Meets)
	}
	res := Analyze("m", "asr", o, 2, []Level{level(t, 1, o, 0), level(t, 2, o, 1), late})
	if res.Capacity != 2 || !strings.Contains(strings.Join(res.Notes, " "), "did not keep up") {
		t.Fatalf("capacity %d notes %v", res.Capacity, res.Notes)
	}
}

func TestACapacityLevelServingLessThanALowerOneIsNoted(t *testing.T) {
	mk := func(c int, tp float64) Level {
		l, err := NewLevel(c, []Run{{Throughput: tp, ClientP95MS: 100, TaskP50MS: 100, ClientKeptUp: true, MeetsObjective: true}}, true)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	res := Analyze("m", "asr", Objective{ClientP95MS: 250}, 2, []Level{mk(1, 0.76), mk(2, 0.56)})
	if res.Capacity != 2 || res.Knee != 1 || !strings.Contains(strings.Join(res.Notes, " "), "served more (0.76 req/s)") {
		t.Fatalf("capacity %d knee %d notes %v", res.Capacity, res.Knee, res.Notes)
	}
}

func TestUncheckedOrFailingLevelsDoNotCount(t *testing.T) {
	o := Objective{ClientP95MS: 250}
	reqs := closedLoop(10, 1, 2, 100, 0)
	reqs[3].Failed = true
	r, err := Figures(reqs, o)
	if err != nil || r.Failures != 1 || r.MeetsObjective {
		t.Fatalf("a failure within the objective's latency met it: %+v %v", r, err)
	}
	l, _ := NewLevel(1, []Run{{Throughput: 10, ClientP95MS: 100, ClientKeptUp: true, MeetsObjective: true}}, false)
	if l.Meets {
		t.Fatal("a level whose requests were not all joined and identity-checked met the objective")
	}
	if err := (Sweep{Concurrency: []int{2, 1}, Requests: 4, Objective: o}).Validate(); err == nil {
		t.Fatal("descending levels accepted")
	}
}
