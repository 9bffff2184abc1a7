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

// nestedRecord is a request as the reference server times it: a span, a handler inside it, a
// queue and a Task inside the handler, each written to the nanosecond in milliseconds.
func nestedRecord(r *rand.Rand, id string) join.Pair {
	ms := func(v float64) float64 { return math.Round(v*1e6) / 1e6 }
	queue, task := ms(r.Float64()*r.Float64()*3000), ms(r.Float64()*20000)
	handler := ms(queue + task + r.Float64()*50)
	start := int64(1_796_300_000_000_000_000) + r.Int64N(1e12)
	end := start + int64(handler*1e6) + r.Int64N(1e6)
	return join.Pair{ID: id, Server: contract.Record{StartUnixNS: start, EndUnixNS: end,
		Timing: contract.Timing{QueueMS: queue, ModelCallMS: task, HandlerMS: handler}}}
}

// Honest nested times pass; every way out of the nesting (queue or Task grown past the handler,
// the handler past its span, a negative time) is named by request; a target whose records
// carry no span is not compared.
func TestRecordTimesNest(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 1))
	breaks := []struct {
		name, want string
		edit       func(*contract.Record)
	}{
		{"queue grown", "exceed its handler", func(c *contract.Record) { c.Timing.QueueMS += c.Timing.HandlerMS - c.Timing.ModelCallMS + 1 }},
		{"Task grown", "exceed its handler", func(c *contract.Record) { c.Timing.ModelCallMS = c.Timing.HandlerMS + 0.01 }},
		{"handler past its span", "longer than the record's own span", func(c *contract.Record) {
			c.Timing.HandlerMS += float64(c.EndUnixNS-c.StartUnixNS)/1e6 - c.Timing.HandlerMS + 0.01
		}},
		{"negative queue", "negative", func(c *contract.Record) { c.Timing.QueueMS = -c.Timing.QueueMS - 1 }},
	}
	for i := range 300 {
		row := &Row{Where: "asr/row", Stage: evidence.Stage{TargetKind: string(target.Reference)}}
		for k := range 1 + r.IntN(30) {
			row.Pairs = append(row.Pairs, nestedRecord(r, fmt.Sprintf("q%d", k)))
		}
		if got := recordTimesCheck(&Run{Rows: []*Row{row}}); len(got) != 0 {
			t.Fatalf("honest row %d refused: %v", i, got)
		}
		b, k := breaks[i%len(breaks)], r.IntN(len(row.Pairs))
		b.edit(&row.Pairs[k].Server)
		got := recordTimesCheck(&Run{Rows: []*Row{row}})
		if len(got) != 1 || !strings.Contains(got[0].What, b.want) || !strings.Contains(got[0].What, row.Pairs[k].ID) {
			t.Fatalf("row %d, %s: %v", i, b.name, got)
		}
		row.Stage.TargetKind = string(target.TRTMC)
		if got := recordTimesCheck(&Run{Rows: []*Row{row}}); len(got) != 0 {
			t.Fatalf("row %d: a TRTMC row compared: %v", i, got)
		}
	}
}
