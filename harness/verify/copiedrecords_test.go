package verify

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
)

// timedRows are rows of requests whose server times are drawn to the nanosecond, as the
// reference server writes them (milliseconds with six decimals).
func timedRows(r *rand.Rand, kind target.Kind) []*Row {
	ns := func(lo, hi float64) float64 { return math.Round((lo+r.Float64()*(hi-lo))*1e6) / 1e6 }
	var rows []*Row
	for k := range 2 + r.IntN(4) {
		row := &Row{Where: fmt.Sprintf("asr/row%d", k), Stage: evidence.Stage{TargetKind: string(kind)}}
		for i := range 2 + r.IntN(40) {
			task := ns(1, 6000)
			row.Pairs = append(row.Pairs, join.Pair{ID: fmt.Sprintf("r%d-%d", k, i),
				Server: contract.Record{Timing: contract.Timing{ModelCallMS: task, HandlerMS: task + ns(0.01, 10)}}})
		}
		rows = append(rows, row)
	}
	return rows
}

// Honest rows pass; a request's record copied under a fresh id, into its own row or another,
// is named; a target whose records carry no span is not compared; calls under a millisecond
// (a readiness poll's zero) are not compared.
func TestCopiedRecordsAreNamed(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 14))
	for i := range 500 {
		rows := timedRows(r, target.Reference)
		if got := copiedRecordsCheck(&Run{Rows: rows}); len(got) != 0 {
			t.Fatalf("honest rows %d refused: %v", i, got)
		}
		from, to := rows[r.IntN(len(rows))], rows[r.IntN(len(rows))]
		c := from.Pairs[r.IntN(len(from.Pairs))]
		c.ID += "-copy"
		to.Pairs = append(to.Pairs, c)
		got := copiedRecordsCheck(&Run{Rows: rows})
		if len(got) != 1 || !strings.Contains(got[0].What, "a copy of that request's record") {
			t.Fatalf("rows %d: a record copied from %s to %s: %v", i, from.Where, to.Where, got)
		}
	}
	for _, c := range []struct {
		name string
		kind target.Kind
		task float64
	}{{"TRTMC records carry no span", target.TRTMC, 2425.784607}, {"a call under a millisecond", target.Reference, 0}} {
		row := &Row{Where: "asr/row", Stage: evidence.Stage{TargetKind: string(c.kind)}}
		for _, id := range []string{"a", "b"} {
			row.Pairs = append(row.Pairs, join.Pair{ID: id, Server: contract.Record{Timing: contract.Timing{ModelCallMS: c.task, HandlerMS: 3}}})
		}
		if got := copiedRecordsCheck(&Run{Rows: []*Row{row}}); len(got) != 0 {
			t.Errorf("%s: %v", c.name, got)
		}
	}
}
