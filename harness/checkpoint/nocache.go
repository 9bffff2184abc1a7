package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/claim"
	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/nocache"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// SendNoCacheProbe is the served half of MLPerf TEST04's check, made measurable
// (harness/nocache): on the warm server, at the row's concurrency, k repeats of the input of the
// run's first measured request are sent interleaved with k fresh variants of it of equal cost (the
// workload's FreshVariant), and every request is joined to its server record. NoCaching judges them
// once the native twins ran (after the server stopped: one model in GPU memory at a time).
func (c *Checkpoint) SendNoCacheProbe(ctx context.Context) error {
	const step = "no caching"
	defer c.timed(step)()
	defer c.beat(ctx, step)()
	if c.Result.Join == nil || !c.steps["join"] {
		return c.fail(step, fmt.Errorf("no clean join to repeat a request of"))
	}
	fv := c.W
	x, req, err := c.firstMeasured()
	if err != nil {
		return c.fail(step, err)
	}
	load := c.Env.Target.StageLoad(c.W.Stage())
	n := &evidence.NoCache{Input: req.Input, FirstRequestID: x.ID, Output: req.Output, Variant: fv.VariantRule(),
		Concurrency: max(1, load.Concurrency)}
	n.K = nocache.K(n.Concurrency)
	c.Result.NoCache = n
	plan, err := nocache.Plan(x.Client.Payload, func(i int) (map[string]any, error) { return fv.FreshVariant(x.Client.Payload, i) },
		"nocache-"+c.Manifest.Name, n.K)
	if err != nil {
		return c.fail(step, err)
	}
	base, err := c.serving.server.BaseURL(ctx)
	if err != nil {
		return c.fail(step, err)
	}
	client := &http.Client{Timeout: time.Duration(max(1, load.TimeoutSeconds)) * time.Second}
	answers := nocache.Send(ctx, client, base+c.serving.route, plan, n.Concurrency)
	if err := c.collectNoCache(ctx, n, answers); err != nil {
		return c.fail(step, err)
	}
	c.serving.nocacheReq = &req
	return nil
}

// NoCaching judges the probe SendNoCacheProbe sent: the row fails "may cache results" when the
// repeats are significantly more than 10% faster in Task time, or faster than half the native run
// on the input. It runs after identity (the outputs it compares are then known to be right).
func (c *Checkpoint) NoCaching(ctx context.Context) error {
	const step = "no caching"
	defer c.timed(step)()
	if c.Result.Identity == nil || !c.steps["identity"] {
		return c.fail(step, fmt.Errorf("identity did not pass"))
	}
	n := c.Result.NoCache
	if n == nil || c.serving.nocacheReq == nil {
		return c.fail(step, fmt.Errorf("the repeats were not sent to the server"))
	}
	var err error
	if n.NativeTaskMS, err = c.nativeTaskMS(ctx, *c.serving.nocacheReq); err != nil {
		return c.fail(step, err)
	}
	if _, err := c.derive(claim.NoCache()); err != nil { // judged from the records it kept
		return c.fail(step, err)
	}
	n = c.Result.NoCache
	c.logf("no caching: %s, %d repeats beside %d fresh variants at concurrency %d (%d pairs): median %.1f ms against %.1f ms, paired ratio − 1 %+.1f%% (%.0f%% interval %+.1f%% to %+.1f%%), native %s: passed %v",
		n.Input, len(n.Repeats), len(n.Fresh), n.Concurrency, n.Pairs, n.RepeatMedianMS, n.FreshMedianMS, 100*n.ShiftFraction, 100*n.Level,
		100*n.ShiftFractionCI.Lower, 100*n.ShiftFractionCI.Upper, fmtMS(n.NativeTaskMS), n.Passed)
	if !n.Passed {
		return c.fail(step, errors.New(strings.Join(n.Failures, "; ")))
	}
	c.done("nocache")
	return nil
}

func (c *Checkpoint) firstMeasured() (join.Pair, workload.Request, error) {
	pairs := append([]join.Pair(nil), c.pairs...)
	sort.SliceStable(pairs, func(i, j int) bool {
		return pairs[i].Client.Metadata.RequestStartNS < pairs[j].Client.Metadata.RequestStartNS
	})
	for _, p := range pairs {
		if p.Client.Metadata.Phase != "profiling" {
			continue
		}
		req, err := c.W.Request(p, c.serving.inputs)
		return p, req, err
	}
	return join.Pair{}, workload.Request{}, fmt.Errorf("no measured request to repeat")
}

// collectNoCache joins every answer to its server record (waiting briefly for records still
// being written), reads each repeat's output by the stage's rule, and keeps the records in
// nocache-records.jsonl (apart from server-records.jsonl, whose join qual verify re-checks).
func (c *Checkpoint) collectNoCache(ctx context.Context, n *evidence.NoCache, answers []nocache.Answer) error {
	var recs []contract.Record
	for try := 0; try < 10 && ctx.Err() == nil; try++ {
		raw, err := c.serving.server.Records(ctx)
		if err != nil {
			return fmt.Errorf("server records: %w", err)
		}
		if recs, err = contract.ParseRecords(raw); err != nil {
			return err
		}
		if nocache.Recorded(answers, recs) == len(answers) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	lines, err := nocache.Collect(n, answers, recs, func(a nocache.Answer, rec contract.Record) (string, error) {
		p := join.Pair{ID: a.RequestID, Server: rec}
		p.Client.Status, p.Client.Payload = a.Status, a.Payload
		p.Client.Responses = append(p.Client.Responses, struct {
			Text        string `json:"text"`
			ContentType string `json:"content_type"`
		}{Text: string(a.Body), ContentType: "application/json"})
		req, err := c.W.Request(p, c.serving.inputs)
		return req.Output, err
	})
	path := filepath.Join(c.Dir, "nocache-records.jsonl")
	if werr := os.WriteFile(path, lines, 0o644); werr != nil {
		return errors.Join(err, fmt.Errorf("keep no-caching records: %w", werr))
	}
	n.Records = evidence.RelPath(c.Env.RunDir, path)
	return err
}

// nativeTaskMS reads the wall time of the public Task call (public_task_call_wall_ms) of the
// native run on the input, which identity already made on the served bundle in the native
// container (run again only if it did not); nil when the target's native run prints none.
func (c *Checkpoint) nativeTaskMS(ctx context.Context, req workload.Request) (*float64, error) {
	out, err := c.nativeStdoutOnce(ctx, req)
	if err != nil {
		return nil, err
	}
	return workload.NativeTaskMS(out), nil
}

func fmtMS(ms *float64) string {
	if ms == nil {
		return "not printed by this target"
	}
	return fmt.Sprintf("%.1f ms", *ms)
}
