package contract

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/trtmc-qual/trtmc-qual/harness/mediadigest"
)

// Timing is TRTMC's trtmc_timing object. ModelCallMS is the wall time of exactly one call
// through the public Task interface (public_task_call_wall); QueueMS is the wait for a lane;
// HandlerMS is the whole handler up to the response, decoding and encoding included.
type Timing struct {
	QueueMS     float64 `json:"queue_ms"`
	ModelCallMS float64 `json:"model_call_ms"`
	HandlerMS   float64 `json:"handler_ms"`
}

// Record is one JSONL line per request, accepted or rejected, in our spelling. It holds
// hashes, never raw audio or image bytes. ParseRecord also reads TRTMC's spellings into it.
type Record struct {
	RequestID       string        `json:"request_id"`
	ClientRequestID string        `json:"client_request_id,omitempty"` // a refused incoming id
	Method          string        `json:"method"`
	Route           string        `json:"route"`
	Model           string        `json:"model,omitempty"`
	BundleSHA256    string        `json:"bundle_sha256,omitempty"`
	InputSHA256     string        `json:"input_sha256,omitempty"`
	Output          *RecordOutput `json:"output,omitempty"`
	Status          int           `json:"status"`
	ErrorCode       string        `json:"error_code,omitempty"`
	StartUnixNS     int64         `json:"start_unix_ns"`
	EndUnixNS       int64         `json:"end_unix_ns"`
	Timing          Timing        `json:"trtmc_timing"`
	// Attempt counts the requests that carried RequestID, 1 for the first: a request refused as
	// retryable before any Task work leaves its id free for a retry, so (request_id, attempt) is
	// what is unique.
	Attempt int `json:"attempt,omitempty"`
}

// RecordOutput is what the Task produced.
type RecordOutput struct {
	Text         string        `json:"text,omitempty"`
	AudioSeconds float64       `json:"audio_seconds,omitempty"`
	Images       []RecordImage `json:"images,omitempty"`
	Steps        int           `json:"num_inference_steps,omitempty"`
	Guidance     *float64      `json:"guidance_scale,omitempty"`
	Seed         *int64        `json:"seed,omitempty"`
	Precision    string        `json:"precision,omitempty"`
	Count        int           `json:"n,omitempty"`
}

// RecordImage identifies one generated image: by its pixels (our records), or, as TRTMC's
// serving app records it, by the artifact it kept and that artifact's media digest (a 64×64
// thumbnail, apps/perf_serving/trtmc_perf_serving/digests.py).
type RecordImage struct {
	SHA256   string              `json:"sha256"`
	Width    int                 `json:"width"`
	Height   int                 `json:"height"`
	Artifact string              `json:"artifact,omitempty"`
	Digest   *mediadigest.Digest `json:"media_digest,omitempty"`
}

// trtmcRecord holds the fields other spellings use: TRTMC's serving app writes
// {"request_id","route","operation","backend","time","timing":{...},"observation"}; older
// exports name the id x_request_id, the route endpoint, the status status_code and carry the
// timing fields and the text at the top level.
type trtmcRecord struct {
	Timing      *Timing         `json:"timing"`
	Observation json.RawMessage `json:"observation"`
	XRequestID  string          `json:"x_request_id"`
	Endpoint    string          `json:"endpoint"`
	StatusCode  int             `json:"status_code"`
	QueueMS     *float64        `json:"queue_ms"`
	ModelCallMS *float64        `json:"model_call_ms"`
	HandlerMS   *float64        `json:"handler_ms"`
	Text        *string         `json:"text"`
}

// ParseRecord reads one records JSONL line in any of the spellings above. Our own fields win;
// the others fill what ours leave empty.
func ParseRecord(line []byte) (Record, error) {
	var r Record
	if err := json.Unmarshal(line, &r); err != nil {
		return r, fmt.Errorf("record: %w", err)
	}
	var alt trtmcRecord
	if err := json.Unmarshal(line, &alt); err != nil {
		return r, fmt.Errorf("record: %w", err)
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
	if r.Timing == (Timing{}) {
		r.Timing = alt.timing()
	}
	if r.Status == 0 && alt.Timing != nil && alt.Observation != nil {
		// TRTMC's serving app writes a record only after the operation ran (app.py execute):
		// its nested shape means a served request. (trtmc helper, minimal addition)
		r.Status = 200
	}
	if r.Output == nil {
		if text, ok := alt.text(); ok {
			r.Output = &RecordOutput{Text: text}
		} else if img, ok := alt.image(); ok {
			r.Output = &RecordOutput{Images: []RecordImage{img}}
		}
	}
	if r.RequestID == "" {
		return r, fmt.Errorf("record has neither request_id nor x_request_id")
	}
	return r, nil
}

// timing is the nested timing object, else the flat fields.
func (a trtmcRecord) timing() Timing {
	if a.Timing != nil {
		return *a.Timing
	}
	var t Timing
	if a.ModelCallMS == nil {
		return t
	}
	t.ModelCallMS = *a.ModelCallMS
	if a.QueueMS != nil {
		t.QueueMS = *a.QueueMS
	}
	if a.HandlerMS != nil {
		t.HandlerMS = *a.HandlerMS
	}
	return t
}

// text is the top-level text, else the observation's text. The observation's full schema is
// not in what we read of TRTMC's serving app, so only a "text" member is taken from it.
func (a trtmcRecord) text() (string, bool) {
	if a.Text != nil {
		return *a.Text, true
	}
	var obs struct {
		Text *string `json:"text"`
	}
	if len(a.Observation) > 0 && json.Unmarshal(a.Observation, &obs) == nil && obs.Text != nil {
		return *obs.Text, true
	}
	return "", false
}

// image is a generate_image observation: the artifact the app's _artifact_url answers as a
// file:// URL ("artifact", else "path") and the media_digest of the request's output PNG
// (app.py @1797a247 execute/_artifact_url; digests.py add_media_digests).
func (a trtmcRecord) image() (RecordImage, bool) {
	var obs struct {
		Artifact string              `json:"artifact"`
		Path     string              `json:"path"`
		Digest   *mediadigest.Digest `json:"media_digest"`
	}
	if len(a.Observation) == 0 || json.Unmarshal(a.Observation, &obs) != nil || obs.Digest == nil {
		return RecordImage{}, false
	}
	if obs.Artifact == "" {
		obs.Artifact = obs.Path
	}
	return RecordImage{Width: obs.Digest.Width, Height: obs.Digest.Height, Artifact: obs.Artifact, Digest: obs.Digest}, true
}

// ParseRecords reads a records JSONL file's contents; blank lines are skipped and a bad line
// is an error naming its line number.
func ParseRecords(data []byte) ([]Record, error) {
	var out []Record
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		r, err := ParseRecord(sc.Bytes())
		if err != nil {
			return nil, fmt.Errorf("server record line %d: %w", n, err)
		}
		out = append(out, r)
	}
	return out, sc.Err()
}

// CountRoute is how many complete records of data (a records file being written: a last line
// without its newline is not counted yet) are requests to route. Progress counts inference
// requests this way, so health checks and AIPerf's /metrics scrapes never count as answered.
func CountRoute(data []byte, route string) int {
	n := 0
	for len(data) > 0 {
		line, rest, complete := bytes.Cut(data, []byte("\n"))
		if !complete {
			break
		}
		data = rest
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if r, err := ParseRecord(line); err == nil && r.Route == route {
			n++
		}
	}
	return n
}
