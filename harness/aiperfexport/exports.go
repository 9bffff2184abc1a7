// Package aiperfexport reads AIPerf 0.13.0's exports: the raw per-request records
// (profile_export_raw.jsonl, with request headers, status and response bodies) and the
// per-request metrics (profile_export.jsonl), joined to each other by x_request_id.
package aiperfexport

import (
	"bufio"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
)

// Phases AIPerf tags records with.
const (
	PhaseWarmup    = "warmup"
	PhaseProfiling = "profiling"
)

// Metadata is the per-request metadata AIPerf writes in both exports.
type Metadata struct {
	XRequestID     string `json:"x_request_id"`
	XCorrelationID string `json:"x_correlation_id"`
	ConversationID string `json:"conversation_id"`
	TurnIndex      int    `json:"turn_index"`
	SessionNum     int    `json:"session_num"`
	CreditIssuedNS int64  `json:"credit_issued_ns"` // when AIPerf's scheduler released the request: sent late, the client fell behind
	RequestStartNS int64  `json:"request_start_ns"`
	RequestEndNS   int64  `json:"request_end_ns"`
	Phase          string `json:"benchmark_phase"`
	WasCancelled   bool   `json:"was_cancelled"`
}

// RawRecord is one line of profile_export_raw.jsonl.
type RawRecord struct {
	Metadata       Metadata          `json:"metadata"`
	RequestHeaders map[string]string `json:"request_headers"`
	Status         int               `json:"status"`
	Responses      []struct {
		Text        string `json:"text"`
		ContentType string `json:"content_type"`
	} `json:"responses"`
	Payload map[string]any  `json:"payload"`
	Error   json.RawMessage `json:"error"`
	Line    int             `json:"-"` // 1-based line in the export, for failure messages
}

// HeaderRequestID is the X-Request-ID AIPerf sent (the join key).
func (r RawRecord) HeaderRequestID() string {
	for k, v := range r.RequestHeaders {
		if strings.EqualFold(k, "X-Request-ID") {
			return v
		}
	}
	return ""
}

// ResponseBody is the concatenated response text.
func (r RawRecord) ResponseBody() string {
	out := ""
	for _, resp := range r.Responses {
		out += resp.Text
	}
	return out
}

// HasError says AIPerf recorded an error for the request.
func (r RawRecord) HasError() bool {
	return len(r.Error) > 0 && string(r.Error) != "null"
}

// MetricRecord is one line of profile_export.jsonl.
type MetricRecord struct {
	Metadata Metadata `json:"metadata"`
	Metrics  map[string]struct {
		Value any    `json:"value"`
		Unit  string `json:"unit"`
	} `json:"metrics"`
	Error json.RawMessage `json:"error"`
}

// LatencyMS is AIPerf's request_latency in milliseconds (false when absent).
func (m MetricRecord) LatencyMS() (float64, bool) {
	v, ok := m.Metrics["request_latency"]
	if !ok {
		return 0, false
	}
	f, ok := v.Value.(float64)
	if !ok {
		return 0, false
	}
	switch v.Unit {
	case "ms", "":
		return f, true
	case "ns":
		return f / 1e6, true
	case "s", "sec":
		return f * 1e3, true
	}
	return 0, false
}

// Exports are one artifact directory's per-request records.
type Exports struct {
	Dir     string
	Raw     []RawRecord
	Metrics []MetricRecord
}

// Read loads both per-request exports of an artifact directory.
func Read(dir string) (Exports, error) {
	e := Exports{Dir: dir}
	if err := readJSONL(filepath.Join(dir, "profile_export_raw.jsonl"), func(line int, data []byte) error {
		var r RawRecord
		if err := json.Unmarshal(data, &r); err != nil {
			return err
		}
		r.Line = line
		e.Raw = append(e.Raw, r)
		return nil
	}); err != nil {
		return e, err
	}
	err := readJSONL(filepath.Join(dir, "profile_export.jsonl"), func(_ int, data []byte) error {
		var m MetricRecord
		if err := json.Unmarshal(data, &m); err != nil {
			return err
		}
		e.Metrics = append(e.Metrics, m)
		return nil
	})
	return e, err
}

// RunsDir is where each run of a repeated profile keeps its artifacts (AIPerf's multi-run layout).
const RunsDir = "profile_runs"

// ReadRuns loads every run of an artifact directory, in run order: each
// profile_runs/run_NNNN/ of a repeated profile, or the directory itself for a single run.
func ReadRuns(dir string) ([]Exports, error) {
	dirs, err := filepath.Glob(filepath.Join(dir, RunsDir, "run_*"))
	if err != nil {
		return nil, err
	}
	if len(dirs) == 0 {
		dirs = []string{dir}
	}
	sort.Strings(dirs) // run_0001 < run_0002: zero-padded
	out := make([]Exports, 0, len(dirs))
	for _, d := range dirs {
		e, err := Read(d)
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", filepath.Base(d), err)
		}
		out = append(out, e)
	}
	return out, nil
}

// Merge concatenates the runs' records (for the join, which needs every request of every run).
func Merge(dir string, runs []Exports) Exports {
	m := Exports{Dir: dir}
	for _, r := range runs {
		m.Raw = append(m.Raw, r.Raw...)
		m.Metrics = append(m.Metrics, r.Metrics...)
	}
	return m
}

func readJSONL(path string, each func(line int, data []byte) error) error {
	f, err := runfile.Open(path, runfile.Records)
	if err != nil {
		return fmt.Errorf("AIPerf export: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for n := 1; sc.Scan(); n++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		if err := each(n, sc.Bytes()); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	return sc.Err()
}
