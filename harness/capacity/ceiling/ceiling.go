// Package ceiling measures the harness's own ceiling: the same AIPerf image and profile as a
// capacity sweep, with a row's inputs, against a server that answers at once
// (server/peerbench/peer.py). The throughput it reaches is the most any sweep on this machine
// can show; its lateness says when AIPerf itself fell behind.
package ceiling

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"

	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/harness/capacity"
	"github.com/trtmc-qual/trtmc-qual/harness/checkpoint"
	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/plan"
	"github.com/trtmc-qual/trtmc-qual/harness/serving"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
)

// ErrRoute is a row whose route the instant server does not answer.
var ErrRoute = errors.New("the instant server answers " + serving.PeerRoute + " only")

// Measure runs AIPerf at each of the sweep's levels (one run each) against the instant server
// with row's inputs, in dir; it returns each level's figures (no objective: every answered
// request counts).
func Measure(ctx context.Context, env *checkpoint.Env, row evidence.InventoryRow, s target.Sweep, dir string) (runs []capacity.Run, err error) {
	w, err := workload.Get(row.Stage)
	if err != nil {
		return nil, err
	}
	if w.Route() != serving.PeerRoute {
		return nil, fmt.Errorf("%w, not %s (%s)", ErrRoute, w.Route(), row.Stage)
	}
	m, err := manifest.Read(row.Manifest)
	if err != nil {
		return nil, err
	}
	if len(m.Testcases) == 0 {
		return nil, fmt.Errorf("manifest %s has no testcase", m.Name)
	}
	inputs, err := w.Inputs(env.Root, m, m.Testcases[0], dir)
	if err != nil {
		return nil, err
	}
	load, err := w.AIPerf(inputs, m, m.Testcases[0])
	if err != nil {
		return nil, err
	}
	nw, err := serving.NewNetwork(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, nw.Remove(context.WithoutCancel(ctx))) }()
	srv, err := nw.StartPeer(ctx, env.Images.AIPerf, filepath.Join(env.Root, "server", "peerbench", "peer.py"))
	defer func() { err = errors.Join(err, srv.Terminate(context.WithoutCancel(ctx))) }()
	if err != nil {
		return nil, fmt.Errorf("instant server: %w", err)
	}
	for _, n := range s.Concurrency {
		r, err := level(ctx, env, nw, w, m.Name, srv.InternalURL(), load, n, s, filepath.Join(dir, fmt.Sprintf("concurrency-%02d", n)))
		if err != nil {
			return runs, fmt.Errorf("ceiling at concurrency %d: %w", n, err)
		}
		runs = append(runs, r)
	}
	return runs, nil
}

func level(ctx context.Context, env *checkpoint.Env, nw *serving.Network, w workload.Workload, profile, url string, l workload.Load,
	n int, s target.Sweep, dir string) (capacity.Run, error) {
	p := plan.AIPerfProfile(env.Target, w, profile, url, l)
	p.Concurrency, p.WarmupCount, p.RequestCount, p.Runs, p.Goodput = n, s.Warmup, s.Requests, 1, ""
	none := func(context.Context) (int, error) { return 0, nil } // the instant server keeps no records to count
	res, err := nw.RunAIPerf(ctx, env.Images.AIPerf, p, dir, s.Warmup+s.Requests, none, func(string, ...any) {}, 0)
	if err == nil && res.ExitCode != 0 {
		err = fmt.Errorf("aiperf exited %d (see %s)", res.ExitCode, res.Dir)
	}
	if err == nil {
		err = res.ReadExports()
	}
	if err != nil {
		return capacity.Run{}, err
	}
	return capacity.Figures(clientRequests(res.Exports), target.Objective{ClientP95MS: math.MaxFloat64})
}

// clientRequests are a run's measured requests from AIPerf's side alone (the instant server
// keeps no records): latency from its metrics, the Task time from the answer's trtmc_timing.
func clientRequests(ex aiperfexport.Exports) []capacity.Request {
	latency := map[string]float64{}
	for _, m := range ex.Metrics {
		if v, ok := m.LatencyMS(); ok {
			latency[m.Metadata.XRequestID] = v
		}
	}
	var out []capacity.Request
	for _, r := range ex.Raw {
		if r.Metadata.Phase != aiperfexport.PhaseProfiling {
			continue
		}
		var body contract.Timed
		_ = json.Unmarshal([]byte(r.ResponseBody()), &body) // no timing: a failed request, counted as such
		lat, ok := latency[r.Metadata.XRequestID]
		req := capacity.Request{ClientMS: lat, CreditNS: r.Metadata.CreditIssuedNS, StartNS: r.Metadata.RequestStartNS, EndNS: r.Metadata.RequestEndNS,
			Failed: !ok || r.Status != 200 || r.HasError() || body.Timing == nil}
		if body.Timing != nil {
			req.TaskMS = body.Timing.ModelCallMS
		}
		out = append(out, req)
	}
	return out
}
