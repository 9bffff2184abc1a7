package report

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/claim"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/timing"
)

// oneRunRow is a row of one AIPerf run of n measured requests (audioqa's default: one run), its
// figures computed as the checkpoint flow computes them.
func oneRunRow(t *testing.T, rng *rand.Rand, n int) evidence.Result {
	t.Helper()
	var samples []timing.Sample
	for j := range n {
		task := 2000 * math.Exp(0.3*rng.NormFloat64())
		samples = append(samples, timing.Sample{ClientMS: task + 5 + 10*rng.Float64(), TaskMS: task, StartNS: int64(j) * 4e9,
			EndNS: int64(j)*4e9 + int64(task*1e6) + 1, AudioSeconds: 5})
	}
	sum, err := timing.Summarize(samples)
	if err != nil {
		t.Fatal(err)
	}
	return evidence.Result{Profile: "qa", Kind: "full", Counted: true, Status: "aiperf-qualified", Timing: claim.TimingRecord(sum),
		AIPerf: &evidence.AIPerfRun{Runs: 1, Requests: n}}
}

// tailBounds reads a tail cell: its value, and its interval's sides (NaN when open), or
// tooSmall with the n it names.
func tailBounds(t *testing.T, cell string) (value, lower, upper float64, n int, tooSmall bool) {
	t.Helper()
	head, rest, _ := strings.Cut(cell, " ")
	value, err := strconv.ParseFloat(head, 64)
	if err != nil {
		t.Fatalf("tail cell %q: %v", cell, err)
	}
	if _, err := fmt.Sscanf(rest, "(n too small for a 95%% interval: n=%d)", &n); err == nil {
		return value, math.NaN(), math.NaN(), n, true
	}
	var lo, hi string
	if _, err := fmt.Sscanf(strings.NewReplacer("[", "", ",", " ", "]", "").Replace(rest), "%s %s n=%d", &lo, &hi, &n); err != nil {
		t.Fatalf("tail cell %q: %v", cell, err)
	}
	side := func(s string) float64 {
		if s == "open" {
			return math.NaN()
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("tail cell %q: side %q", cell, s)
		}
		return v
	}
	return value, side(lo), side(hi), n, false
}

// TestTailCellsHoldTheirValue: over n = 1…80 measured requests and random samples, every tail
// cell of the report (p95 and p99, client and Task) shows an interval that holds the value it
// shows, with its n; when no side can be bounded it says "n too small" with n instead of an
// interval. n = 2, audioqa's default load, once showed p99 3197 [3202, open].
func TestTailCellsHoldTheirValue(t *testing.T) {
	rng := rand.New(rand.NewPCG(44, 77))
	tooSmall := 0
	for n := 1; n <= 80; n++ {
		r := oneRunRow(t, rng, n)
		for _, name := range []string{"client_latency", "task_call"} {
			for _, p := range []int{95, 99} {
				cell := TailCell(r, name, p)
				v, lo, hi, got, small := tailBounds(t, cell)
				if got != n || (!math.IsNaN(lo) && lo > v) || (!math.IsNaN(hi) && hi < v) {
					t.Fatalf("n=%d %s p%d: %q does not hold its value with its n", n, name, p, cell)
				}
				if small {
					tooSmall++
					if !(n < 2) {
						t.Fatalf("n=%d %s p%d: %q: x(1) bounds a p%d from below from n = 2 on", n, name, p, cell, p)
					}
				}
			}
		}
	}
	if tooSmall == 0 {
		t.Fatal("the draws must hold a sample too small for any interval")
	}
}

// TestOneRunFiguresAreMarked: a row measured in one AIPerf run shows its figures over runs with
// the mark, never as a bare mean with no ±: in the Figures table (after its throughput) and in
// the Over runs table (after its runs × requests), in both renderings; a row of several runs
// carries no mark.
func TestOneRunFiguresAreMarked(t *testing.T) {
	one := oneRunRow(t, rand.New(rand.NewPCG(1, 2)), 2)
	several := repeatedRow(t)
	several.Profile = "five"
	s := evidence.Stage{Stage: "audioqa", Number: 9, Status: "qualified", Results: []evidence.Result{one, several}}
	e := evidence.Evidence{Stages: []evidence.Stage{s}}
	md, html := Markdown(e, nil), string(HTML(e, nil))
	p := PerfOf(one)
	for _, want := range []string{
		"| qa | " + p.ClientP50 + " | " + p.TaskP50 + " | " + p.Overhead + " | " + p.Throughput + " (1 run: no interval) | " + p.Rate + " |",
		"| qa | 1 × 2 (1 run: no interval) | " + FigureCell(one, "task_call_p50") + " | " + FigureCell(one, "client_minus_task_p50") + " | " + p.Throughput + " | " + p.Rate + " |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("qualification.md lacks\n%s\nin\n%s", want, md)
		}
	}
	if got := strings.Count(md, "(1 run: no interval)"); got != 2 {
		t.Errorf("qualification.md marks %d cells, want 2 (one per table that shows the one-run row)", got)
	}
	if got := strings.Count(html, "(1 run: no interval)"); got != 2 {
		t.Errorf("report.html marks %d cells, want 2", got)
	}
	if strings.Contains(PerfOf(several).Throughput+OneRunMark(several), "1 run") {
		t.Error("a row of five runs is marked as one")
	}
}
