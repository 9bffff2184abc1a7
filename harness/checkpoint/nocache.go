package checkpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	harnessaiperf "github.com/trtmc-qual/trtmc-qual/harness/aiperf"
	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/nocache"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// NoCaching sends the input of the run's first fresh measured request again, 2 × the stage's
// concurrency times with that many in flight (the load its first occurrence was served under),
// and fails the row "may cache results" when even the slowest repeat's Task time is more than
// 10% below both that first occurrence's and the native Task's on the same input (nocache.Judge).
// It runs after timing: it needs the joined first occurrence and runs the native Task itself.
func (c *Checkpoint) NoCaching(ctx context.Context) error {
	const step = "no caching"
	if c.Result.Identity == nil || !c.steps["identity"] {
		return c.fail(step, fmt.Errorf("identity did not pass"))
	}
	first, req, err := c.firstFresh()
	if err != nil {
		return c.fail(step, err)
	}
	load := c.Env.Target.StageLoad(string(c.W.Stage()))
	check := &nocache.Check{Input: req.Input, FirstRequestID: first.ID, FirstPhase: first.Client.Metadata.Phase,
		FirstTaskMS: first.Server.Timing.ModelCallMS, FirstOutput: req.Output, Concurrency: max(1, load.Concurrency)}
	base, err := c.serving.server.BaseURL(ctx)
	if err != nil {
		return c.fail(step, err)
	}
	client := &http.Client{Timeout: time.Duration(max(1, load.TimeoutSeconds)) * time.Second}
	answers := nocache.Send(ctx, client, base+c.serving.route, first.Client.Payload, "nocache-"+c.Manifest.Name, 2*check.Concurrency, check.Concurrency)
	if check.Repeats, err = c.repeats(ctx, answers, first.Client.Payload); err != nil {
		return c.fail(step, err)
	}
	if check.NativeTaskMS, err = c.nativeTaskMS(ctx, req); err != nil {
		return c.fail(step, err)
	}
	check.Records = relTo(c.Env.RunDir, filepath.Join(c.Dir, "nocache-records.jsonl"))
	nocache.Judge(check)
	c.Result.NoCache = check
	c.logf("no caching: %s repeated %d× at concurrency %d: model_call_ms slowest %.1f, median %.1f; first occurrence %.1f, native %v: passed %v",
		check.Input, len(check.Repeats), check.Concurrency, check.SlowestRepeat, check.RepeatMedianMS, check.FirstTaskMS, fmtMS(check.NativeTaskMS), check.Passed)
	if !check.Passed {
		return c.fail(step, errors.New(strings.Join(check.Failures, "; ")))
	}
	c.done("nocache")
	return nil
}

// firstFresh is the earliest measured request whose input no earlier request (warmup
// included) sent: a first occurrence served on a warm lane, so that a repeat has nothing to
// gain from warming up and everything from a cache. When every input was already sent during
// warmup (a testcase with one prompt) it is the earliest measured request, marked so: a cache
// may then have served it too, and the native Task's time is the baseline that still holds.
func (c *Checkpoint) firstFresh() (join.Pair, workload.Request, error) {
	pairs := append([]join.Pair(nil), c.Result.Join.Pairs...)
	sortByStart(pairs)
	seen := map[string]bool{}
	var fallback *join.Pair
	for _, p := range pairs {
		req, err := c.W.Request(p, c.serving.inputs)
		if err != nil {
			return p, req, err
		}
		if p.Client.Metadata.Phase == harnessaiperf.PhaseProfiling {
			if !seen[req.Input] {
				return p, req, nil
			}
			if fallback == nil {
				fallback = &p
			}
		}
		seen[req.Input] = true
	}
	if fallback == nil {
		return join.Pair{}, workload.Request{}, fmt.Errorf("no measured request to repeat")
	}
	req, err := c.W.Request(*fallback, c.serving.inputs)
	fallback.Client.Metadata.Phase += " (its input also sent during warmup)"
	return *fallback, req, err
}

func sortByStart(pairs []join.Pair) {
	sort.SliceStable(pairs, func(i, j int) bool {
		return pairs[i].Client.Metadata.RequestStartNS < pairs[j].Client.Metadata.RequestStartNS
	})
}

// repeats joins each answer to its server record (waiting briefly for records still being
// written), reads its output by the stage's rule and keeps the records in nocache-records.jsonl.
func (c *Checkpoint) repeats(ctx context.Context, answers []nocache.Answer, payload map[string]any) ([]nocache.Repeat, error) {
	var recs []contract.Record
	for try := 0; try < 10 && ctx.Err() == nil; try++ {
		raw, err := c.serving.server.Records(ctx)
		if err != nil {
			return nil, fmt.Errorf("server records: %w", err)
		}
		if recs, err = contract.ParseRecords(raw); err != nil {
			return nil, err
		}
		if nocache.Recorded(answers, recs) == len(answers) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	out, lines, err := nocache.Collect(answers, recs, func(a nocache.Answer, rec contract.Record) (string, error) {
		pair := join.Pair{ID: a.RequestID, Server: rec, Client: harnessaiperf.RawRecord{Status: a.Status, Payload: payload}}
		pair.Client.Responses = append(pair.Client.Responses, struct {
			Text        string `json:"text"`
			ContentType string `json:"content_type"`
		}{Text: string(a.Body), ContentType: "application/json"})
		req, err := c.W.Request(pair, c.serving.inputs)
		return req.Output, err
	})
	if werr := os.WriteFile(filepath.Join(c.Dir, "nocache-records.jsonl"), lines, 0o644); werr != nil {
		return nil, errors.Join(err, fmt.Errorf("keep no-caching records: %w", werr))
	}
	return out, err
}

// nativeTaskMS runs the native Task on the input once more and reads the wall time of its
// public Task call (public_task_call_wall_ms); nil when the target's native run does not print it.
func (c *Checkpoint) nativeTaskMS(ctx context.Context, req workload.Request) (*float64, error) {
	out, err := c.nativeStdout(ctx, req)
	if err != nil {
		return nil, err
	}
	i := strings.Index(out, "{")
	if i < 0 {
		return nil, nil
	}
	var timed struct {
		MS *float64 `json:"public_task_call_wall_ms"`
	}
	if json.Unmarshal([]byte(out[i:]), &timed) != nil {
		return nil, nil
	}
	return timed.MS, nil
}

func fmtMS(ms *float64) string {
	if ms == nil {
		return "not printed"
	}
	return fmt.Sprintf("%.1f ms", *ms)
}
