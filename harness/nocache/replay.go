package nocache

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
)

// Request builds the HTTP request AIPerf 0.13.0 sent for a recorded payload
// (profile_export_raw.jsonl's "payload"): multipart/form-data when a field carries a file as
// {"b64_data","filename","content_type"} (aiperf/transports/aiohttp_transport.py@0.13.0,
// _build_form_data: files decoded, booleans lower-cased, other values as text), JSON otherwise.
// Replaying the recorded payload sends exactly the input the run sent, for any workload.
func Request(ctx context.Context, url string, payload map[string]any, requestID string) (*http.Request, error) {
	body, contentType, err := encode(payload)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Request-ID", requestID)
	return req, nil
}

func encode(payload map[string]any) ([]byte, string, error) {
	if !hasFile(payload) {
		body, err := json.Marshal(payload)
		return body, "application/json", err
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	keys := make([]string, 0, len(payload))
	for k := range payload {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		if err := writeField(mw, key, payload[key]); err != nil {
			return nil, "", fmt.Errorf("payload field %q: %w", key, err)
		}
	}
	if err := mw.Close(); err != nil {
		return nil, "", err
	}
	return buf.Bytes(), mw.FormDataContentType(), nil
}

func hasFile(payload map[string]any) bool {
	for _, v := range payload {
		if f, ok := v.(map[string]any); ok {
			if _, ok := f["b64_data"].(string); ok {
				return true
			}
		}
	}
	return false
}

func writeField(mw *multipart.Writer, key string, value any) error {
	switch v := value.(type) {
	case nil:
		return nil
	case bool:
		return mw.WriteField(key, strconv.FormatBool(v))
	case string:
		return mw.WriteField(key, v)
	case float64:
		return mw.WriteField(key, strconv.FormatFloat(v, 'f', -1, 64))
	case map[string]any:
		if b64, ok := v["b64_data"].(string); ok {
			data, err := base64.StdEncoding.DecodeString(b64)
			if err != nil {
				return fmt.Errorf("b64_data is not base64: %w", err)
			}
			name, _ := v["filename"].(string)
			ctype, _ := v["content_type"].(string)
			if name == "" {
				name = key
			}
			if ctype == "" {
				ctype = "application/octet-stream"
			}
			h := textproto.MIMEHeader{}
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, key, name))
			h.Set("Content-Type", ctype)
			w, err := mw.CreatePart(h)
			if err != nil {
				return err
			}
			_, err = w.Write(data)
			return err
		}
	}
	text, err := json.Marshal(value)
	if err != nil {
		return err
	}
	return mw.WriteField(key, string(text))
}

// Answer is one replayed request's HTTP answer.
type Answer struct {
	RequestID string
	Status    int
	Body      []byte
	ClientMS  float64
	Err       error
}

// Send replays payload n times to url, concurrency requests in flight at once, each with its
// own X-Request-ID (prefix-1 … prefix-n), and returns the answers in request order.
func Send(ctx context.Context, client *http.Client, url string, payload map[string]any, prefix string, n, concurrency int) []Answer {
	out := make([]Answer, n)
	slots := make(chan struct{}, max(1, concurrency))
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			out[i] = sendOne(ctx, client, url, payload, fmt.Sprintf("%s-%d", prefix, i+1))
		}()
	}
	wg.Wait()
	return out
}

func sendOne(ctx context.Context, client *http.Client, url string, payload map[string]any, id string) Answer {
	a := Answer{RequestID: id}
	req, err := Request(ctx, url, payload, id)
	if err != nil {
		a.Err = err
		return a
	}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		a.Err = fmt.Errorf("request %s: %w", id, err)
		return a
	}
	defer resp.Body.Close()
	a.Body, a.Err = io.ReadAll(resp.Body)
	a.ClientMS = float64(time.Since(start).Microseconds()) / 1e3
	a.Status = resp.StatusCode
	return a
}

// Output reads a replayed answer's comparable output by the stage's identity rule, given its
// server record.
type Output func(a Answer, rec contract.Record) (string, error)

// Collect joins each answer to its server record by X-Request-ID and reads its Task time and
// output. It returns the repeats, the matched records as JSONL (kept as evidence), and an
// error naming an answer that failed to arrive or has no record.
func Collect(answers []Answer, records []contract.Record, output Output) ([]Repeat, []byte, error) {
	byID := map[string]contract.Record{}
	for _, r := range records {
		byID[r.RequestID] = r
	}
	var out []Repeat
	var lines []byte
	for _, a := range answers {
		if a.Err != nil {
			return nil, lines, a.Err
		}
		rec, ok := byID[a.RequestID]
		if !ok {
			return nil, lines, fmt.Errorf("repeat %s (HTTP %d) has no server record", a.RequestID, a.Status)
		}
		line, err := json.Marshal(rec)
		if err != nil {
			return nil, lines, err
		}
		lines = append(append(lines, line...), '\n')
		r := Repeat{RequestID: a.RequestID, Status: a.Status, TaskMS: rec.Timing.ModelCallMS, ClientMS: a.ClientMS}
		if a.Status == http.StatusOK {
			if r.Output, err = output(a, rec); err != nil {
				return nil, lines, fmt.Errorf("repeat %s: %w", a.RequestID, err)
			}
		}
		out = append(out, r)
	}
	return out, lines, nil
}

// Recorded says how many answers have a record among records.
func Recorded(answers []Answer, records []contract.Record) int {
	ids := map[string]bool{}
	for _, r := range records {
		ids[r.RequestID] = true
	}
	n := 0
	for _, a := range answers {
		if ids[a.RequestID] {
			n++
		}
	}
	return n
}
