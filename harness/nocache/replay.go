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

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// Request builds the HTTP request AIPerf 0.13.0 sends for a recorded payload
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
			return writeFile(mw, key, v, b64)
		}
	}
	text, err := json.Marshal(value)
	if err != nil {
		return err
	}
	return mw.WriteField(key, string(text))
}

func writeFile(mw *multipart.Writer, key string, v map[string]any, b64 string) error {
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

// Planned is one request of the check.
type Planned struct {
	RequestID string
	Repeat    bool // a repeat of X; else a fresh variant
	Payload   map[string]any
}

// Plan sends k repeats of payload x side by side with k fresh variants (fresh(i), i = 0..k-1),
// each with its own request id (prefix-r1, prefix-f1, prefix-f2, prefix-r2, ...): repeat i and
// fresh variant i form a pair that meets the same load, lanes and moment, and which of the two
// goes first alternates from pair to pair, so that a load rising or falling through the check
// favours neither side (the pair's members stay exchangeable, which the signed-rank rule needs).
func Plan(x map[string]any, fresh func(i int) (map[string]any, error), prefix string, k int) ([]Planned, error) {
	out := make([]Planned, 0, 2*k)
	for i := range k {
		f, err := fresh(i)
		if err != nil {
			return nil, fmt.Errorf("fresh variant %d: %w", i+1, err)
		}
		pair := []Planned{{RequestID: fmt.Sprintf("%s-r%d", prefix, i+1), Repeat: true, Payload: x},
			{RequestID: fmt.Sprintf("%s-f%d", prefix, i+1), Payload: f}}
		if i%2 == 1 {
			pair[0], pair[1] = pair[1], pair[0]
		}
		out = append(out, pair...)
	}
	return out, nil
}

// Answer is one sent request's HTTP answer.
type Answer struct {
	Planned
	Status int
	Body   []byte
	Err    error
}

// Send sends the planned requests in order to url, concurrency in flight at once, and returns
// the answers in the same order.
func Send(ctx context.Context, client *http.Client, url string, reqs []Planned, concurrency int) []Answer {
	out := make([]Answer, len(reqs))
	slots := make(chan struct{}, max(1, concurrency))
	var wg sync.WaitGroup
	for i, p := range reqs {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			out[i] = sendOne(ctx, client, url, p)
		}()
	}
	wg.Wait()
	return out
}

func sendOne(ctx context.Context, client *http.Client, url string, p Planned) Answer {
	a := Answer{Planned: p}
	req, err := Request(ctx, url, p.Payload, p.RequestID)
	if err != nil {
		a.Err = err
		return a
	}
	resp, err := client.Do(req)
	if err != nil {
		a.Err = fmt.Errorf("request %s: %w", p.RequestID, err)
		return a
	}
	defer resp.Body.Close()
	a.Status = resp.StatusCode
	if a.Body, err = io.ReadAll(resp.Body); err != nil {
		a.Err = fmt.Errorf("request %s: read answer: %w", p.RequestID, err)
	}
	return a
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

// Output reads a repeat's comparable output by the stage's identity rule, given its record.
type Output func(a Answer, rec contract.Record) (string, error)

// Collect joins every answer to its server record by X-Request-ID into n's repeats and fresh
// variants, reading each repeat's output; it returns the matched records as JSONL (kept as
// evidence) and an error naming a request that failed to arrive or has no record: as in a
// qualification, an unjoined request fails the row.
func Collect(n *evidence.NoCache, answers []Answer, records []contract.Record, output Output) ([]byte, error) {
	byID := map[string][]contract.Record{}
	for _, r := range records {
		byID[r.RequestID] = append(byID[r.RequestID], r)
	}
	var lines []byte
	for _, a := range answers {
		if a.Err != nil {
			return lines, a.Err
		}
		recs := byID[a.RequestID]
		for _, rec := range recs { // every record is kept, so that verify sees a second one too
			line, err := json.Marshal(rec)
			if err != nil {
				return lines, err
			}
			lines = append(append(lines, line...), '\n')
		}
		switch len(recs) {
		case 0:
			return lines, fmt.Errorf("request %s (HTTP %d) has no server record", a.RequestID, a.Status)
		case 1:
		default:
			return lines, fmt.Errorf("request %s (HTTP %d) has %d server records, want exactly one", a.RequestID, a.Status, len(recs))
		}
		rec := recs[0]
		r := evidence.NoCacheRequest{RequestID: a.RequestID, Status: a.Status, TaskMS: rec.Timing.ModelCallMS, InputSHA256: rec.InputSHA256}
		if rec.Status != 200 {
			r.Status = rec.Status
		}
		if !a.Repeat {
			n.Fresh = append(n.Fresh, r)
			continue
		}
		if r.Status == http.StatusOK {
			var err error
			if r.Output, err = output(a, rec); err != nil {
				return lines, fmt.Errorf("repeat %s: %w", a.RequestID, err)
			}
		}
		n.Repeats = append(n.Repeats, r)
	}
	return lines, nil
}
