package claim

import (
	"errors"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/stats"
	"github.com/trtmc-qual/trtmc-qual/harness/stats/schema"
	"github.com/trtmc-qual/trtmc-qual/harness/timing"
)

// served says whether a row served AIPerf's requests and joined them.
func served(r evidence.Result) bool { return r.AIPerf != nil && r.Join != nil }

// Join is the join of every AIPerf record (warmup included) to the server records of the
// stage's route by X-Request-ID (harness/join), computed once by Load.
func Join() Claim {
	return of("join", func(r *evidence.Result) **evidence.Join { return &r.Join }, served, deriveJoin)
}

func deriveJoin(a *Artifacts) (*evidence.Join, error) {
	if a.Row.AIPerf == nil {
		return nil, errors.New("no AIPerf run stored")
	}
	if a.servedErr != nil {
		return nil, a.servedErr
	}
	return JoinRecord(a.Join), nil
}

// JoinRecord is a join as the evidence records it (its pairs are the artifacts').
func JoinRecord(r join.Report) *evidence.Join {
	return &evidence.Join{Route: r.Route, ClientRecords: r.ClientRecords, ServerRecords: r.ServerRecords, Matched: r.Matched,
		ByPhase: r.ByPhase, UnmatchedClient: r.UnmatchedClient, UnmatchedServer: r.UnmatchedServer,
		DuplicateClient: r.DuplicateClient, DuplicateServer: r.DuplicateServer, MissingID: r.MissingID}
}

// Timing is the steady-state summary over the measured requests (harness/timing), every rate
// per AIPerf run.
func Timing() Claim {
	claimed := func(r evidence.Result) bool { return served(r) && r.Timing != nil }
	return of("timing", func(r *evidence.Result) **evidence.Timing { return &r.Timing }, claimed, deriveTiming)
}

func deriveTiming(a *Artifacts) (*evidence.Timing, error) {
	if _, err := deriveJoin(a); err != nil {
		return nil, err
	}
	if a.clipErr != nil {
		return nil, a.clipErr
	}
	samples, _, _, err := timing.RunSamples(a.timed, a.Runs)
	if err != nil {
		return nil, err
	}
	sum, err := timing.Summarize(samples)
	if sum.Requests == 0 {
		return nil, err
	}
	return TimingRecord(sum), err // kept when only some figures could not be derived
}

// TimingRecord is a timing summary as the evidence records it.
func TimingRecord(s timing.Summary) *evidence.Timing {
	out := &evidence.Timing{Requests: s.Requests}
	for _, f := range s.Figures {
		out.Figures = append(out.Figures, evidence.Figure{Name: f.Name, Value: f.Value, Unit: f.Unit, Formula: f.Formula,
			Interval: (*evidence.OrderInterval)(f.Interval)})
	}
	return out
}

// Repeated are the statistics over AIPerf runs (harness/stats), with one run none.
func Repeated() Claim {
	return of("repeated-run statistics", func(r *evidence.Result) **evidence.Repeated { return &r.Repeated }, served, deriveRepeated)
}

func deriveRepeated(a *Artifacts) (*evidence.Repeated, error) {
	if _, err := deriveJoin(a); err != nil {
		return nil, err
	}
	if len(a.Runs) <= 1 {
		return nil, nil
	}
	if a.clipErr != nil {
		return nil, a.clipErr
	}
	rep, err := stats.FromRuns(a.timed, a.Runs)
	if err != nil {
		return nil, err
	}
	return RepeatedRecord(rep), nil
}

// RepeatedRecord is harness/stats' repeated-run statistics as the evidence records them.
func RepeatedRecord(rep schema.Repeated) *evidence.Repeated {
	out := &evidence.Repeated{}
	for _, r := range rep.Runs {
		out.Runs = append(out.Runs, evidence.Run(r))
	}
	for _, f := range rep.Figures {
		iv := f.Interval
		rec := evidence.FigureInterval{Name: f.Name, Unit: f.Unit, Interval: evidence.Interval{N: iv.N, Mean: iv.Mean, SD: iv.SD,
			Level: iv.Level, HalfWidth: iv.HalfWidth, Inconclusive: iv.Inconclusive, Reason: iv.Reason, Rule: iv.Rule}}
		if iv.CI != nil {
			ci := evidence.Bounds(*iv.CI)
			rec.CI = &ci
		}
		out.Figures = append(out.Figures, rec)
	}
	return out
}
