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
	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
)

// ProbeAudioRefusal serves a transcription-only bundle (row, an ASR row: it is served as the
// ASR checkpoint it is, in RunDir/<stage>/probe-<profile>) and sends one pinned audio question
// to /v1/chat/completions: the server must refuse it as the target documents (contract.RefusalOf:
// the reference server with 400 unsupported_capability and a record of the refusal; TRTMC's app
// with 404 route_not_served and no record) and echo the request id. It returns its cleanups in
// start order.
func ProbeAudioRefusal(ctx context.Context, env *Env, row inventory.Row, pair dataset.QAPair) (*evidence.Probe, []Cleanup, error) {
	c, err := newIn(env, row, filepath.Join(env.RunDir, string(env.Stage), "probe-"+row.Profile))
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
	clip, _, err := workload.QAClip(env.Root, pair, filepath.Join(c.Dir, "qa"))
	if err != nil {
		return nil, cleanups, err
	}
	wav, err := os.ReadFile(clip)
	if err != nil {
		return nil, cleanups, err
	}
	body, err := workload.ProbeBody(row.Profile, pair, wav)
	if err != nil {
		return nil, cleanups, err
	}
	base, err := c.serving.server.BaseURL(ctx)
	if err != nil {
		return nil, cleanups, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/chat/completions", bytes.NewReader(body))
	if err != nil {
		return nil, cleanups, err
	}
	req.Header.Set("Content-Type", "application/json")
	sent := "audioqa-probe-" + pair.ID
	req.Header.Set("X-Request-ID", sent)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, cleanups, fmt.Errorf("probe request: %w", err)
	}
	defer resp.Body.Close()
	var answer contract.ErrorBody
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
		return nil, cleanups, fmt.Errorf("probe answer (HTTP %d) is not a JSON body: %w", resp.StatusCode, err)
	}
	rule := contract.RefusalOf(env.Target.Kind) // what this target's server documents (TRTMC: 404, no record)
	p := &evidence.Probe{Model: row.Profile, Route: "/v1/chat/completions", Status: resp.StatusCode, ErrorCode: answer.Error.Code,
		Message: answer.Error.Message, RequestID: resp.Header.Get("X-Request-ID"), Expected: rule.String(), SentID: sent}
	records, err := c.serving.server.Records(ctx)
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
