package verify

// timeSlackMS is the rounding the server's times carry: each is written in milliseconds with six
// decimals, so three of them summed may exceed the span they lie in by a few nanoseconds.
const timeSlackMS = 1e-3

// recordTimesCheck: the reference server measures a request's three times as nested intervals
// (server/server.go): the wait for a lane, then the Task call, both inside the handler, which
// lies inside the record's own span. The timeline draws each request from them (its queue
// above, its Task from arrival + queue_ms), and no other copy bounds queue_ms: a forger who
// rewrites it in the records and the response bodies alike moves every Task bar of the
// picture, or shows a queue the server never had. Nested, queue_ms cannot exceed the slack the
// handler leaves beside the Task. A target whose records carry no span (TRTMC's app) does not
// document how its times nest and is not compared.
func recordTimesCheck(r *Run) []Problem {
	return r.eachRow(func(row *Row, report reporter) {
		if !kindOf(row.Stage.TargetKind).RecordsCarrySpans() {
			return
		}
		for _, p := range row.Pairs {
			t, rec := p.Server.Timing, p.Server
			wallMS := float64(rec.EndUnixNS-rec.StartUnixNS) / 1e6
			switch {
			case t.QueueMS < 0 || t.ModelCallMS < 0 || t.HandlerMS < 0:
				report(recordsWhere(row), "request %s: queue %v ms, Task %v ms, handler %v ms: a time is negative", p.ID, t.QueueMS, t.ModelCallMS, t.HandlerMS)
			case t.QueueMS+t.ModelCallMS > t.HandlerMS+timeSlackMS:
				report(recordsWhere(row), "request %s: queue %v ms + Task %v ms exceed its handler's %v ms, which holds both", p.ID, t.QueueMS, t.ModelCallMS, t.HandlerMS)
			case rec.StartUnixNS != 0 && t.HandlerMS > wallMS+timeSlackMS:
				report(recordsWhere(row), "request %s: handler %v ms is longer than the record's own span %v ms", p.ID, t.HandlerMS, wallMS)
			}
		}
	})
}
