package checkpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"

	"github.com/testcontainers/testcontainers-go"

	"github.com/trtmc-qual/trtmc-qual/containers/aiperf"
	"github.com/trtmc-qual/trtmc-qual/containers/trtmcserver"
	harnessaiperf "github.com/trtmc-qual/trtmc-qual/harness/aiperf"
	"github.com/trtmc-qual/trtmc-qual/harness/capacity"
	"github.com/trtmc-qual/trtmc-qual/harness/contract"
)

// instantAlias is the instant server's name on the run's network.
const instantAlias = "instant-server"

// InstantRoute is the one route the instant server (server/peerbench/peer.py) answers.
const InstantRoute = "/v1/audio/transcriptions"

// Ceiling measures the harness's own ceiling: the same AIPerf image, profile and inputs as this
// row's sweep, against a server that answers at once (server/peerbench/peer.py: the
// transcription route around a no-op Task, run with the AIPerf image's own FastAPI and uvicorn).
// Whatever throughput it reaches is the most any level of a sweep can show; lateness says when
// AIPerf itself fell behind. Call it after StartNetwork; it starts and stops its own server.
func (c *Checkpoint) Ceiling(ctx context.Context, levels []int, s capacity.Sweep, dir string) (runs []capacity.Run, err error) {
	if c.serving == nil || c.serving.network == nil {
		return nil, fmt.Errorf("no network: StartNetwork first")
	}
	inputs, err := c.loadInputs()
	if err != nil {
		return nil, err
	}
	peer := filepath.Join(c.Env.Root, "server", "peerbench", "peer.py")
	srv, err := trtmcserver.Run(ctx, c.Env.Images.AIPerf, trtmcserver.WithNetwork(c.serving.network, instantAlias),
		trtmcserver.WithFile(peer, "/peer/peer.py"), trtmcserver.WithEntrypoint("/opt/aiperf/bin/python"),
		trtmcserver.WithCommand("-m", "uvicorn", "peer:app", "--app-dir", "/peer", "--host", "0.0.0.0", "--port", "8000", "--log-level", "warning"))
	defer func() {
		if srv != nil && srv.DockerContainer != nil {
			err = errors.Join(err, testcontainers.TerminateContainer(srv))
		}
	}()
	if err != nil {
		return nil, fmt.Errorf("instant server: %w", err)
	}
	l, err := c.W.AIPerf(inputs, c.Manifest, c.Testcase)
	if err != nil {
		return nil, err
	}
	for _, n := range levels {
		p := AIPerfProfile(c.Env.Target, c.W, c.Manifest.Name, "http://"+instantAlias+":8000", l)
		p.Concurrency, p.WarmupCount, p.RequestCount, p.Runs = n, s.Warmup, s.Requests, 1
		res, err := aiperf.Run(ctx, c.Env.Images.AIPerf, p, filepath.Join(dir, fmt.Sprintf("concurrency-%02d", n)), aiperf.WithNetwork(c.serving.network))
		if err == nil && res.ExitCode != 0 {
			err = fmt.Errorf("aiperf exited %d (see %s)", res.ExitCode, res.Dir)
		}
		if err != nil {
			return runs, fmt.Errorf("ceiling at concurrency %d: %w", n, err)
		}
		ex, err := harnessaiperf.Read(res.ArtifactDir)
		if err != nil {
			return runs, err
		}
		r, err := capacity.Figures(clientRequests(ex), capacity.Objective{ClientP95MS: math.MaxFloat64})
		if err != nil {
			return runs, fmt.Errorf("ceiling at concurrency %d: %w", n, err)
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// clientRequests are a run's measured requests from AIPerf's side alone (the instant server
// keeps no records): latency from its metrics, the Task time from the answer's trtmc_timing.
func clientRequests(ex harnessaiperf.Exports) []capacity.Request {
	latency := map[string]float64{}
	for _, m := range ex.Metrics {
		if v, ok := m.LatencyMS(); ok {
			latency[m.Metadata.XRequestID] = v
		}
	}
	var out []capacity.Request
	for _, r := range ex.Raw {
		if r.Metadata.Phase != harnessaiperf.PhaseProfiling {
			continue
		}
		var body contract.Timed
		_ = json.Unmarshal([]byte(r.ResponseBody()), &body) // no timing: a failed request, counted as such
		req := capacity.Request{ClientMS: latency[r.Metadata.XRequestID], StartNS: r.Metadata.RequestStartNS, EndNS: r.Metadata.RequestEndNS,
			CreditNS: r.Metadata.CreditIssuedNS, Failed: r.Status != 200 || r.HasError() || body.Timing == nil}
		if body.Timing != nil {
			req.TaskMS = body.Timing.ModelCallMS
		}
		out = append(out, req)
	}
	return out
}
