package checkpoint

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
)

// QAPair is one fixed audio question-answer pair from golden/audioqa/pairs.jsonl.
type QAPair struct {
	ID       string `json:"id"`
	Dataset  string `json:"dataset"`
	Clip     string `json:"clip"`
	Question string `json:"question"`
	Answer   string `json:"answer"`
}

// ReadQAPairs reads the pinned audio QA pairs.
func ReadQAPairs(path string) ([]QAPair, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read QA pairs: %w", err)
	}
	var out []QAPair
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var p QAPair
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, p)
	}
	return out, sc.Err()
}

// ProbeAudioRefusal returns its cleanups in start order. It serves a transcription-only bundle (row, of stage asr) and sends one pinned
// audio question to /v1/chat/completions: the server must refuse it with 400
// unsupported_capability, echo the request id, and record the refusal.
func ProbeAudioRefusal(ctx context.Context, env *Env, row inventory.Row, pair QAPair) (*evidence.Probe, []Cleanup, error) {
	asrEnv := *env
	asrEnv.Stage = inventory.StageASR
	c, err := New(&asrEnv, row)
	if err != nil {
		return nil, nil, err
	}
	c.Dir = filepath.Join(env.RunDir, env.Stage, "probe-"+row.Profile)
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
	set, err := dataset.ReadASR(filepath.Join(env.Root, pair.Dataset))
	if err != nil {
		return nil, cleanups, err
	}
	clips, err := set.Materialize(env.Root, filepath.Join(c.Dir, "qa"))
	if err != nil {
		return nil, cleanups, err
	}
	var wav []byte
	for _, cl := range clips {
		if cl.ID == pair.Clip {
			wav, err = os.ReadFile(cl.Path)
		}
	}
	if len(wav) == 0 {
		return nil, cleanups, fmt.Errorf("QA pair %s names clip %s, not in %s (%v)", pair.ID, pair.Clip, pair.Dataset, err)
	}
	body, _ := json.Marshal(map[string]any{"model": row.Profile, "messages": []any{map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "text", "text": pair.Question},
		map[string]any{"type": "input_audio", "input_audio": map[string]any{"data": base64.StdEncoding.EncodeToString(wav), "format": "wav"}},
	}}}})
	base, err := c.serving.server.BaseURL(ctx)
	if err != nil {
		return nil, cleanups, err
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/chat/completions", bytes.NewReader(body))
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

// Block marks the stage blocked with its reason and audit.
func (s *StageRun) Block(reason string, audit []inventory.AuditRow) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Evidence.Status, s.Evidence.Reason, s.Evidence.Audit = inventory.StatusBlocked, reason, audit
}

// SetProbe records the refusal probe.
func (s *StageRun) SetProbe(p *evidence.Probe) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Evidence.Probe = p
}
