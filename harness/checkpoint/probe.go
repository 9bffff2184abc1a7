package checkpoint

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
)

// ProbeAudioRefusal serves a transcription-only bundle (row, an ASR row: it is served as the
// ASR checkpoint it is, in RunDir/<stage>/probe-<profile>) and sends one pinned audio question
// to /v1/chat/completions: the server must refuse it with 400 unsupported_capability, echo the
// request id, and record the refusal. It returns its cleanups in start order.
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
	req.Header.Set("X-Request-ID", "audioqa-probe-"+pair.ID)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, cleanups, fmt.Errorf("probe request: %w", err)
	}
	defer resp.Body.Close()
	var answer contract.ErrorBody
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
		return nil, cleanups, fmt.Errorf("probe answer (HTTP %d) is not a JSON body: %w", resp.StatusCode, err)
	}
	p := &evidence.Probe{Model: row.Profile, Route: "/v1/chat/completions", Status: resp.StatusCode, ErrorCode: answer.Error.Code,
		Message: answer.Error.Message, RequestID: resp.Header.Get("X-Request-ID")}
	records, err := c.serving.server.Records(ctx)
	if err != nil {
		return p, cleanups, err
	}
	recs, err := contract.ParseRecords(records)
	if err != nil {
		return p, cleanups, err
	}
	for _, r := range recs {
		p.Recorded = p.Recorded || (r.RequestID == p.RequestID && r.ErrorCode == contract.CodeUnsupportedCapability)
	}
	p.Passed = p.Status == http.StatusBadRequest && p.ErrorCode == contract.CodeUnsupportedCapability &&
		p.RequestID == "audioqa-probe-"+pair.ID && p.Recorded && strings.Contains(p.Message, "audio_text_to_text")
	return p, cleanups, nil
}
