// Package contract is the serving wire contract, a leaf every side imports: the records JSONL
// (Record, Timing), the typed response bodies, serving info and the stable error codes, and the
// parsers that read what a server keeping TRTMC's contract returns and records —
// trtmc_timing, Server-Timing, X-Request-ID, the records — the same way for trtmc-server and
// for TRTMC's own serving app. It imports only the standard library, so the offline verifier
// and the join build without cgo.
package contract

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Response is the contract part of one HTTP answer.
type Response struct {
	RequestID       string
	Timing          Timing
	ServerTimingMS  float64 // Server-Timing model;dur=
	HasServerTiming bool
	HasBodyTiming   bool
}

// ParseResponse reads X-Request-ID, Server-Timing and the body's trtmc_timing.
func ParseResponse(h http.Header, body []byte) (Response, error) {
	r := Response{RequestID: h.Get("X-Request-ID")}
	r.ServerTimingMS, r.HasServerTiming = ServerTimingModel(h.Get("Server-Timing"))
	var b struct {
		Timing *Timing `json:"trtmc_timing"`
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

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
