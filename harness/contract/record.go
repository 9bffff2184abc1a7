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
	RequestID       string `json:"request_id"`
	ClientRequestID string `json:"client_request_id,omitempty"` // a refused incoming id
	Method          string `json:"method"`
	// MethodBytes is the length of the method as sent when Method holds only its first
	// MaxRecordedMethodBytes (a request line's method has no limit of its own in net/http).
	MethodBytes  int           `json:"method_bytes,omitempty"`
	Route        string        `json:"route"`
	Model        string        `json:"model,omitempty"`
	BundleSHA256 string        `json:"bundle_sha256,omitempty"`
	InputSHA256  string        `json:"input_sha256,omitempty"`
	Output       *RecordOutput `json:"output,omitempty"`
	Status       int           `json:"status"`
	ErrorCode    string        `json:"error_code,omitempty"`
	StartUnixNS  int64         `json:"start_unix_ns"`
	EndUnixNS    int64         `json:"end_unix_ns"`
	Timing       Timing        `json:"trtmc_timing"`
	// Attempt counts the requests that carried RequestID, 1 for the first: a request refused as
	// retryable before any Task work leaves its id free for a retry, so (request_id, attempt) is
	// what is unique.
	Attempt int `json:"attempt,omitempty"`
}

// MaxRecordedMethodBytes is how much of a request's method a record holds.
const MaxRecordedMethodBytes = 32

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

// ParseRecord reads one records JSONL line: ours, or TRTMC's serving app's
// {"request_id","route","operation","backend","time","timing":{...},"observation"} (app.py
// @1797a247 execute). A line with TRTMC's timing and observation is read through TRTMCRecord
// only: a key in our spelling on it (status, output, trtmc_timing...) is not TRTMC's, and is
// never taken for what TRTMC reported.
func ParseRecord(line []byte) (Record, error) {
	var t TRTMCRecord
	if err := json.Unmarshal(line, &t); err != nil {
		return Record{}, fmt.Errorf("record: %w", err)
	}
	if t.Timing != nil && t.Observation != nil {
		if t.RequestID == "" {
			return Record{}, fmt.Errorf("record has no request_id")
		}
		// The app writes a record only for a request it executed.
		return Record{RequestID: t.RequestID, Route: t.Route, Timing: *t.Timing, Status: 200, Output: t.Observation.output()}, nil
	}
	var r Record
	if err := json.Unmarshal(line, &r); err != nil {
		return r, fmt.Errorf("record: %w", err)
	}
	if r.RequestID == "" {
		return r, fmt.Errorf("record has no request_id")
	}
	return r, nil
}

// output is what the observation says the Task produced: a transcript (with the clip length
// the worker measured), or one image; nil when it holds neither.
func (o *TRTMCObservation) output() *RecordOutput {
	if o.Text != nil {
		out := &RecordOutput{Text: *o.Text}
		if o.InputAudioSeconds != nil {
			out.AudioSeconds = *o.InputAudioSeconds
		}
		return out
	}
	if o.Digest == nil {
		return nil
	}
	img := RecordImage{Width: o.Digest.Width, Height: o.Digest.Height, Artifact: o.artifact(), Digest: o.Digest}
	return &RecordOutput{Images: []RecordImage{img}}
}

// artifact is what app.py @1797a247 _artifact_url answers ("artifact", else "path"); when the
// worker names neither, the first of its image_artifacts (a file name beside the request's
// artifact base), marked as such for the reader to resolve under the request's directory.
func (o *TRTMCObservation) artifact() string {
	switch {
	case o.Artifact != "":
		return o.Artifact
	case o.Path != "":
		return o.Path
	case len(o.ImageArtifacts) > 0:
		return WorkerArtifactPrefix + o.ImageArtifacts[0]
	}
	return ""
}

// WorkerArtifactPrefix marks a RecordImage.Artifact that is only a worker's image_artifacts file
// name: the app answered no URL for it, and the file is in the request's scratch directory.
const WorkerArtifactPrefix = "worker-artifact:"

// ParseRecords reads a records JSONL file's contents; blank lines are skipped. A line that is
// not a record (torn by a failed write, or bytes another writer put there) does not discard the
// rest: every record is returned, with a *TornLines error naming the bad lines.
func ParseRecords(data []byte) ([]Record, error) {
	var out []Record
	var torn TornLines
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		r, err := ParseRecord(sc.Bytes())
		if err != nil {
			torn.Lines = append(torn.Lines, n)
			if torn.First == nil {
				torn.First = err
			}
			continue
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("server records: %w", err)
	}
	if len(torn.Lines) > 0 {
		return out, &torn
	}
	return out, nil
}

// TornLines names the lines of a records file that are not records.
type TornLines struct {
	Lines []int // 1-based line numbers
	First error // why the first of them is not a record
}

func (t *TornLines) Error() string {
	return fmt.Sprintf("server record line %d: %v (%d lines are not records)", t.Lines[0], t.First, len(t.Lines))
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
