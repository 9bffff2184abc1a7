// Package contract parses what a server that keeps TRTMC's serving contract returns and
// records — trtmc_timing, Server-Timing, X-Request-ID, the records JSONL — the same way for
// trtmc-server and for TRTMC's own serving app, whose records name the id x_request_id and may
// carry the timing fields at the top level.
package contract

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/server"
)

// Response is the contract part of one HTTP answer.
type Response struct {
	RequestID       string
	Timing          server.Timing
	ServerTimingMS  float64 // Server-Timing model;dur=
	HasServerTiming bool
	HasBodyTiming   bool
}

// ParseResponse reads X-Request-ID, Server-Timing and the body's trtmc_timing.
func ParseResponse(h http.Header, body []byte) (Response, error) {
	r := Response{RequestID: h.Get("X-Request-ID")}
	r.ServerTimingMS, r.HasServerTiming = ServerTimingModel(h.Get("Server-Timing"))
	var b struct {
		Timing *server.Timing `json:"trtmc_timing"`
	}
	if json.Unmarshal(body, &b) == nil && b.Timing != nil {
		r.Timing, r.HasBodyTiming = *b.Timing, true
	}
	switch {
	case r.RequestID == "":
		return r, fmt.Errorf("response has no X-Request-ID")
	case !r.HasServerTiming:
		return r, fmt.Errorf("response has no Server-Timing model;dur=")
	case r.HasBodyTiming && abs(r.Timing.ModelCallMS-r.ServerTimingMS) > 0.001+1e-6*r.ServerTimingMS:
		return r, fmt.Errorf("Server-Timing model;dur=%v disagrees with trtmc_timing.model_call_ms=%v", r.ServerTimingMS, r.Timing.ModelCallMS)
	}
	return r, nil
}

// ServerTimingModel reads the "model" metric's dur from a Server-Timing header
// ("model;dur=12.5, queue;dur=0").
func ServerTimingModel(header string) (float64, bool) {
	for _, metric := range strings.Split(header, ",") {
		parts := strings.Split(strings.TrimSpace(metric), ";")
		if len(parts) == 0 || strings.TrimSpace(parts[0]) != "model" {
			continue
		}
		for _, p := range parts[1:] {
			if v, ok := strings.CutPrefix(strings.TrimSpace(p), "dur="); ok {
				f, err := strconv.ParseFloat(strings.Trim(v, `"`), 64)
				return f, err == nil
			}
		}
	}
	return 0, false
}

// ParseRecord reads one records JSONL line in either spelling.
func ParseRecord(line []byte) (server.Record, error) {
	var r server.Record
	if err := json.Unmarshal(line, &r); err != nil {
		return r, err
	}
	var alt struct {
		XRequestID  string   `json:"x_request_id"`
		Endpoint    string   `json:"endpoint"`
		StatusCode  int      `json:"status_code"`
		QueueMS     *float64 `json:"queue_ms"`
		ModelCallMS *float64 `json:"model_call_ms"`
		HandlerMS   *float64 `json:"handler_ms"`
		Text        *string  `json:"text"`
	}
	if err := json.Unmarshal(line, &alt); err != nil {
		return r, err
	}
	if r.RequestID == "" {
		r.RequestID = alt.XRequestID
	}
	if r.Route == "" {
		r.Route = alt.Endpoint
	}
	if r.Status == 0 {
		r.Status = alt.StatusCode
	}
	if alt.ModelCallMS != nil && r.Timing == (server.Timing{}) {
		r.Timing.ModelCallMS = *alt.ModelCallMS
		if alt.QueueMS != nil {
			r.Timing.QueueMS = *alt.QueueMS
		}
		if alt.HandlerMS != nil {
			r.Timing.HandlerMS = *alt.HandlerMS
		}
	}
	if r.Output == nil && alt.Text != nil {
		r.Output = &server.RecordOutput{Text: *alt.Text}
	}
	if r.RequestID == "" {
		return r, fmt.Errorf("record has neither request_id nor x_request_id")
	}
	return r, nil
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
