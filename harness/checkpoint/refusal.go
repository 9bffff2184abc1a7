package checkpoint

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// ProbeRefusal checks that the target's serving path refuses a request a checkpoint cannot
// answer, as the target documents. It serves a checkpoint without w's capability (row, a row of
// w.ProbeStage(), served as the checkpoint it is in RunDir/<stage>/probe-<profile>) and sends it
// w's probe request on w's route: the server must refuse it as the target documents
// (target.Traits.Refusal: the reference server with 400 unsupported_capability and a record of
// the refusal; TRTMC's app with 404 route_not_served and no record) and echo the request id. It
// returns its cleanups in start order.
func ProbeRefusal(ctx context.Context, env *Env, row evidence.InventoryRow, w workload.RefusalProber) (*evidence.Probe, []Cleanup, error) {
	c, err := NewIn(env, row, filepath.Join(env.Stage.Dir(env.RunDir), "probe-"+row.Profile))
	if err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return nil, nil, err
	}
	var cleanups []Cleanup
	if err := c.Build(ctx); err != nil {
		return nil, cleanups, err
	}
	stopNet, err := c.StartNetwork(ctx)
	if err != nil {
		return nil, cleanups, err
	}
	cleanups = append(cleanups, stopNet)
	stopSrv, err := c.StartServer(ctx)
	if stopSrv != nil {
		cleanups = append(cleanups, stopSrv) // in start order: a caller deferring each undoes them last-first
	}
	if err != nil {
		return nil, cleanups, err
	}
	if err := c.CheckServed(ctx); err != nil {
		return nil, cleanups, err
	}
	id, body, err := w.ProbeRequest(env.Root, row.Profile, filepath.Join(c.Dir, "probe-input"))
	if err != nil {
		return nil, cleanups, fmt.Errorf("probe request: %w", err)
	}
	base, err := c.Server().BaseURL(ctx)
	if err != nil {
		return nil, cleanups, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+w.Route(), bytes.NewReader(body))
	if err != nil {
		return nil, cleanups, err
	}
	req.Header.Set("Content-Type", "application/json")
	sent := string(w.Stage()) + "-probe-" + id
	req.Header.Set("X-Request-ID", sent)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, cleanups, fmt.Errorf("probe request: %w", err)
	}
	defer resp.Body.Close()
	var answer contract.TRTMCError // {"error": {"message", "type", "code"}}: ours and TRTMC's
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
		return nil, cleanups, fmt.Errorf("probe answer (HTTP %d) is not a JSON body: %w", resp.StatusCode, err)
	}
	rule := env.Target.Traits().Refusal() // what this target's server documents (TRTMC: 404, no record)
	p := &evidence.Probe{Model: row.Profile, Route: w.Route(), Status: resp.StatusCode, ErrorCode: answer.Error.Code,
		Message: answer.Error.Message, RequestID: resp.Header.Get(contract.HeaderRequestID), Expected: rule.String(), SentID: sent}
	records, err := c.Server().Records(ctx)
	if err != nil {
		return p, cleanups, err
	}
	recs, err := contract.ParseRecords(records)
	if err != nil {
		return p, cleanups, err
	}
	// A server that records refusals must hold this one, with its code; one that records only
	// executed operations (TRTMC's app) must hold no record at all under the probe's id.
	for _, r := range recs {
		p.Recorded = p.Recorded || (r.RequestID == sent && (!rule.Recorded || r.ErrorCode == rule.Code))
	}
	p.Passed = len(rule.Judge(p.Status, p.ErrorCode, p.Message, sent, p.RequestID, p.Recorded)) == 0
	return p, cleanups, nil
}
