package server_test

// What a request holds because of its body is accounted (server/README.md, "Limits"): the
// property below holds stalled requests of generated shapes against the real binary and checks
// the accounted bytes against the live heap; the tests after it are the regression tests of
// the shapes a third attacker found (issue: tiny clips, repeated form parts, flat arrays,
// uncounted samples).

import (
	"bufio"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/native/audio"
	st "github.com/trtmc-qual/trtmc-qual/server/servertest"
)

// heldRequest is a request sent in part on a connection of its own and then held there: the
// rest of its body never comes. An answer the server gives before that is read in the
// background.
type heldRequest struct {
	name   string
	conn   net.Conn
	sent   int64         // body bytes written (framing excluded)
	wrote  chan struct{} // closed once the part meant to be sent was written (or the write failed)
	answer chan struct{} // closed once the answer is in
	// got is the answer, "status code" ("-1" when the connection ended without one).
	got string
}

// result is the request's answer, or "none" when it has none within wait (still held).
func (h *heldRequest) result(wait time.Duration) string {
	select {
	case <-h.answer: // an answer already in wins over a wait already over
		return h.got
	default:
	}
	select {
	case <-h.answer:
		return h.got
	case <-time.After(wait):
		return "none"
	}
}

// hold sends head (request line and headers, without the blank line) and then body on a
// fresh connection, chunked when chunked is set (a chunk per piece, no last chunk), else with
// the declared Content-Length, and keeps the connection open.
func hold(t testing.TB, url, name, head string, declared int64, chunked bool, body []byte) *heldRequest {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	h := &heldRequest{name: name, conn: conn, wrote: make(chan struct{}), answer: make(chan struct{})}
	if chunked {
		head += "\r\nTransfer-Encoding: chunked\r\n\r\n"
	} else {
		head += fmt.Sprintf("\r\nContent-Length: %d\r\n\r\n", declared)
	}
	go func() {
		defer close(h.wrote)
		if _, err := io.WriteString(conn, head); err != nil {
			return
		}
		for len(body) > 0 {
			piece := body[:min(len(body), 64<<10)]
			body = body[len(piece):]
			if chunked {
				if _, err := fmt.Fprintf(conn, "%x\r\n%s\r\n", len(piece), piece); err != nil {
					return
				}
			} else if _, err := conn.Write(piece); err != nil {
				return
			}
			h.sent += int64(len(piece))
		}
	}()
	go func() {
		defer close(h.answer)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			h.got = "-1"
			return
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		h.got = fmt.Sprintf("%d %s", resp.StatusCode, errorCodeOf(body))
	}()
	return h
}

func errorCodeOf(body []byte) string {
	const key = `"code":"`
	i := strings.Index(string(body), key)
	if i < 0 {
		return ""
	}
	rest := string(body[i+len(key):])
	return rest[:max(0, strings.IndexByte(rest, '"'))]
}

// settled waits until every held request was either answered or has sent its part; it
// returns the answers (status, code) of those answered, keyed by name.
func settled(t testing.TB, held []*heldRequest, wait time.Duration) map[string]string {
	t.Helper()
	answers := map[string]string{}
	deadline := time.After(wait)
	for _, h := range held {
		select {
		case <-h.answer:
		case <-h.wrote:
		case <-deadline:
			t.Fatalf("%s: neither answered nor written within %v", h.name, wait)
		}
	}
	// Every request has sent its part: an answer may still be on its way. Each gets at least
	// 300 ms after its last write, in one window for all (not 300 ms each, one after another).
	grace := time.Now().Add(300 * time.Millisecond)
	for _, h := range held {
		if got := h.result(time.Until(grace)); got != "none" {
			answers[h.name] = got
		}
	}
	time.Sleep(300 * time.Millisecond) // the handlers have read what arrived
	return answers
}

// heldBytes is the server's heap and the bytes it accounts to request bodies. The server runs
// with --gc-percent 1, so its heap is within about 1% of what is live; the smallest of a few
// scrapes leaves out what a scrape itself allocates.
func heldBytes(t *testing.T, url string) (heap, accounted float64) {
	t.Helper()
	heap = -1
	for range 4 {
		m := scrape(t, url, "go_memstats_heap_alloc_bytes", "trtmc_body_memory_bytes")
		if heap < 0 || m["go_memstats_heap_alloc_bytes"] < heap {
			heap = m["go_memstats_heap_alloc_bytes"]
		}
		accounted = m["trtmc_body_memory_bytes"]
		time.Sleep(100 * time.Millisecond)
	}
	return heap, accounted
}

const mib = 1 << 20

// Per held request, what the server holds that is not the body's (net/http's connection
// buffers and request, the exchange, its record): it need not be accounted.
const perRequestUnaccounted = 64 << 10

// A shape is a generated attack: the request it starts and the share of its body it sends
// before holding.
type shape struct {
	name     string
	head     string
	declared int64
	chunked  bool
	body     []byte
}

const (
	chatHead  = "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
	imageHead = "POST /v1/images/generations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
	formHead  = "POST /v1/audio/transcriptions HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b"
	qaModel   = "sphinxqa-an4-l0"
)

// lyingWAV is a PCM16 WAV header whose data chunk claims dataBytes (made even: whole
// samples), followed by n bytes of samples.
func lyingWAV(dataBytes uint32, n int) []byte {
	dataBytes &^= 1
	wav := audio.EncodePCM16(make([]int16, n/2), 1, 16000)
	binary.LittleEndian.PutUint32(wav[4:8], dataBytes+36)
	binary.LittleEndian.PutUint32(wav[40:44], dataBytes)
	return wav
}

func repeatJoin(part string, n int) string {
	return strings.TrimSuffix(strings.Repeat(part+",", n), ",")
}

// formPart is one multipart field with its boundary line.
func formPart(name, value string) string {
	return "--b\r\nContent-Disposition: form-data; name=\"" + name + "\"\r\n\r\n" + value + "\r\n"
}

// The attacks of the regression tests below, shared with BenchmarkBodyMemoryAttacksPeakRSS.

// tinyClipsInMessages is a chat body prefix of n tiny input_audio parts.
func tinyClipsInMessages(n int) []byte {
	return []byte(`{"model":"` + qaModel + `","messages":[{"role":"user","content":[` +
		repeatJoin(`{"type":"input_audio","input_audio":{"data":"QUFB","format":"wav"}}`, n))
}

// tinyClipsInOptions is a chat body prefix of n tiny input_audio values under stream_options.
func tinyClipsInOptions(n int) []byte {
	return []byte(`{"model":"` + qaModel + `","stream_options":{"x":[` + repeatJoin(`{"input_audio":{"data":"QUFB"}}`, n))
}

// granularities is a multipart body prefix of n timestamp_granularities[] parts of size bytes.
func granularities(n, size int) []byte {
	return []byte(strings.Repeat(formPart("timestamp_granularities[]", strings.Repeat("s", size)), n))
}

// flatTextParts is a whole chat body of n empty text parts.
func flatTextParts(n int) string {
	return chatBody(qaModel, repeatJoin(`{"type":"text","text":""}`, n))
}

// flatZeros is a JSON array of n zeros.
func flatZeros(n int) string { return "[" + repeatJoin("0", n) + "]" }

// uploadPart is the multipart header of a file part.
const uploadPart = "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.wav\"\r\nContent-Type: audio/wav\r\n\r\n"

// lyingUpload is three quarters of a multipart body of declared bytes whose WAV header claims
// (nearly) all of them.
func lyingUpload(declared int) []byte {
	sent := declared*3/4 - len(uploadPart)
	return append([]byte(uploadPart), lyingWAV(uint32(declared-len(uploadPart)-200), sent)...)
}

// randomShape draws an attack: a route, and the repeated elements, clips, arrays or uploads
// its body is made of, sent up to a point and held.
func randomShape(rng *rand.Rand, i int) shape {
	chunked := rng.IntN(2) == 0
	chat := func(content string) shape {
		body := `{"model":"` + qaModel + `","messages":[{"role":"user","content":[` + content
		return shape{head: chatHead, declared: int64(len(body)) + 64, chunked: chunked, body: []byte(body)}
	}
	var s shape
	switch kind := rng.IntN(8); kind {
	case 0: // many small clips
		n := 1 + rng.IntN(5000)
		s = chat(repeatJoin(`{"type":"input_audio","input_audio":{"data":"QUFB","format":"wav"}}`, n))
		s.name = fmt.Sprintf("chat %d tiny clips", n)
	case 1: // the same key path outside the messages
		n := 1 + rng.IntN(5000)
		body := `{"model":"` + qaModel + `","stream_options":{"x":[` + repeatJoin(`{"input_audio":{"data":"QUFB"}}`, n)
		s = shape{name: fmt.Sprintf("chat stream_options %d tiny clips", n), head: chatHead, declared: int64(len(body)) + 64, chunked: chunked, body: []byte(body)}
	case 2: // a long flat array of parts
		n := 1 + rng.IntN(200_000)
		s = chat(repeatJoin(`{"type":"text","text":""}`, n))
		s.name = fmt.Sprintf("chat %d text parts", n)
	case 3: // one clip whose WAV header claims 1 KB, held part-way
		n := (64 << 10) + rng.IntN(6*mib)
		wav := base64.StdEncoding.EncodeToString(lyingWAV(1000, n))
		s = chat(`{"type":"text","text":"How many?"},{"type":"input_audio","input_audio":{"format":"wav","data":"` + wav)
		s.name = fmt.Sprintf("chat clip of %d KiB, header says 1 KB", n>>10)
	case 4: // repeated timestamp_granularities[] parts
		n, size := 1+rng.IntN(400), 1+rng.IntN(64<<10)
		body := strings.Repeat(formPart("timestamp_granularities[]", strings.Repeat("s", size)), n)
		s = shape{name: fmt.Sprintf("form %d granularities of %d B", n, size), head: formHead, declared: int64(len(body)) + 64, chunked: chunked, body: []byte(body)}
	case 5: // an upload whose WAV header claims the whole declared body, held past half of it
		declared := int64(mib + rng.IntN(15*mib))
		part := uploadPart
		sent := int(declared)/2 + rng.IntN(int(declared)/2-len(part)-64)
		wav := lyingWAV(uint32(declared)-uint32(len(part))-100, sent-len(part))
		s = shape{name: fmt.Sprintf("upload %d of %d KiB, header says all", sent>>10, declared>>10), head: formHead, declared: declared, body: []byte(part + string(wav))}
	case 6: // a flat array in an image request
		n := 1 + rng.IntN(1_000_000)
		body := `{"model":"procdiff-small-l0","prompt":"a kite","seed":[` + repeatJoin("0", n)
		s = shape{name: fmt.Sprintf("image %d-element array", n), head: imageHead, declared: int64(len(body)) + 64, chunked: chunked, body: []byte(body)}
	default: // nested arrays, each a few elements wide
		depth, width := 1+rng.IntN(40), 1+rng.IntN(300)
		body := `{"model":"` + qaModel + `","messages":` + strings.Repeat("["+repeatJoin("0", width)+",", depth)
		s = shape{name: fmt.Sprintf("chat %d nested arrays of %d", depth, width), head: chatHead, declared: int64(len(body)) + 64, chunked: chunked, body: []byte(body)}
	}
	s.name = fmt.Sprintf("#%d %s (chunked %v)", i, s.name, s.chunked)
	return s
}

// TestEveryHeldByteIsAccounted is the property of the body memory, against the real binary:
// K requests of generated shapes are held part-way, and then (1) the bytes the server accounts
// to request bodies (trtmc_body_memory_bytes) cover the growth of its live heap, less a small
// allowance per connection for net/http's own state; (2) what is accounted grows with the
// bytes the attackers sent (no floor per string or part); (3) while the attackers hold less
// than the bound less what a legitimate request needs, a transcription and an audio question
// are served 200; (4) once the attackers leave, the account is back where it started.
func TestEveryHeldByteIsAccounted(t *testing.T) {
	f := setup(t)
	const bound = 96 * mib
	p := st.Start(t, f.server, []string{f.an4, qaBundle(t), imageBundle(t, "procdiff-small-l0")},
		"--body-memory-mb", fmt.Sprint(bound/mib), "--gc-percent", "1")
	clip := cardsClip(t, "004")
	legitChat := chatBody(qaModel, textPart("How many words are spoken?"), audioPart(clip))
	const rounds, k = 6, 6
	legitChecked := 0
	for round := range rounds {
		rng := rand.New(rand.NewPCG(uint64(round)+1, 41))
		heap0, acct0 := heldBytes(t, p.URL)
		var held []*heldRequest
		var shapes []shape
		for i := range k {
			s := randomShape(rng, i)
			shapes = append(shapes, s)
			held = append(held, hold(t, p.URL, s.name, s.head, s.declared, s.chunked, s.body))
		}
		answers := settled(t, held, 60*time.Second)
		heap, acct := heldBytes(t, p.URL)
		var sent int64
		for _, h := range held {
			sent += h.sent
		}
		t.Logf("round %d (seed %d): heap %+.1f MiB, accounted %+.1f MiB, sent %.1f MiB; answered early: %v",
			round, round+1, (heap-heap0)/mib, (acct-acct0)/mib, float64(sent)/mib, answers)
		for _, s := range shapes {
			t.Logf("  %s: %d body bytes", s.name, len(s.body))
		}
		if growth, covered := heap-heap0, acct-acct0+k*perRequestUnaccounted+4*mib; growth > covered {
			t.Errorf("round %d: the live heap grew %.1f MiB, the accounted bytes only %.1f MiB (+%.1f MiB allowed for connections)",
				round, growth/mib, (acct-acct0)/mib, (covered-(acct-acct0))/mib)
		}
		// Per request at most its read buffer, a first body buffer (a pooled upload buffer
		// up to 2 MiB) and a chunk buffer; beyond that, a few times the bytes that came.
		if limit := 10*float64(sent) + k*2.5*mib; acct-acct0 > limit {
			t.Errorf("round %d: %.1f MiB accounted for %.1f MiB sent: reservations beyond the bytes received", round, (acct-acct0)/mib, float64(sent)/mib)
		}
		// The attackers hold less than their share when the account leaves room, and also
		// whenever they sent so little that no reservation grown from it could fill the bound.
		room, little := bound-acct >= 8*mib, 10*float64(sent)+k*2.5*mib <= bound-8*mib
		if room || little {
			legitChecked++
			if r := st.Do(t, transcription(t, p.URL, "sphinx-an4-l0", clip)); r.Status != 200 {
				t.Errorf("round %d: a transcription while attackers hold %.1f of %d MiB: %d %s", round, acct/mib, bound/mib, r.Status, r.Body)
			}
			if r := st.Do(t, st.JSONPost(t, p.URL+"/v1/chat/completions", legitChat)); r.Status != 200 {
				t.Errorf("round %d: an audio question while attackers hold %.1f of %d MiB: %d %s", round, acct/mib, bound/mib, r.Status, r.Body)
			}
		}
		for _, h := range held {
			h.conn.Close()
		}
		waitAccounted(t, p.URL, acct0)
	}
	if legitChecked == 0 {
		t.Fatalf("no round left room for a legitimate request: the shapes hold the whole bound")
	}
}

// waitAccounted waits until the body memory is back at want (the held requests ended).
func waitAccounted(t *testing.T, url string, want float64) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var now float64
	for time.Now().Before(deadline) {
		if now = scrape(t, url, "trtmc_body_memory_bytes")["trtmc_body_memory_bytes"]; now <= want {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("body memory still %.1f MiB accounted after the held requests closed (was %.1f)", now/mib, want/mib)
}

// Thousands of tiny input_audio strings, in the messages or under another key such as
// stream_options, held open: each string once reserved a 64 KiB clip buffer, so one 127 KB body
// took the whole body memory and every legitimate clip was 429. Now a clip holds what it
// decoded, there are at most 32, and the same key path elsewhere is text (at most 256
// elements an array): both bodies are refused 413 too_many_elements, and clips are served.
func TestTinyClipsCannotReserveTheBodyMemory(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.an4, qaBundle(t)})
	clip := tenSecondClip(t)
	held := []*heldRequest{
		hold(t, p.URL, "tiny clips in the messages", chatHead, 0, true, tinyClipsInMessages(4080)),
		hold(t, p.URL, "tiny clips in stream_options", chatHead, 0, true, tinyClipsInOptions(4080)),
	}
	settled(t, held, 30*time.Second)
	time.Sleep(2 * time.Second) // the server has read what was sent (a socket buffer holds it all)
	if r := st.Do(t, st.JSONPost(t, p.URL+"/v1/chat/completions", chatBody(qaModel, textPart("How many words are spoken?"), audioPart(clip)))); r.Status != 200 {
		t.Errorf("an audio question while 2 x 4,080 tiny clips are held: %d %s, want 200", r.Status, r.Body)
	}
	if r := st.Do(t, transcription(t, p.URL, "sphinx-an4-l0", clip)); r.Status != 200 {
		t.Errorf("a transcription while 2 x 4,080 tiny clips are held: %d %s, want 200", r.Status, r.Body)
	}
	for _, h := range held {
		if got := h.result(5 * time.Second); got != "413 "+contract.CodeTooManyElements {
			t.Errorf("%s: %s, want 413 %s", h.name, got, contract.CodeTooManyElements)
		}
	}
}

// tenSecondClip is cards clip 004 repeated to 10 s.
func tenSecondClip(t *testing.T) []byte {
	t.Helper()
	a, err := audio.DecodeWAV(cardsClip(t, "004"))
	if err != nil {
		t.Fatal(err)
	}
	one := audio.ToPCM16(a.Samples)
	var all []int16
	for len(all) < 10*a.SampleRate {
		all = append(all, one...)
	}
	return audio.EncodePCM16(all[:10*a.SampleRate], 1, a.SampleRate)
}

// A stream_options that is not OpenAI's shape is refused naming its field, not accepted
// unread.
func TestStreamOptionsAreRead(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{qaBundle(t)})
	clip := cardsClip(t, "004")
	body := func(opts string) string {
		return `{"model":"` + qaModel + `","stream_options":` + opts + `,"messages":[{"role":"user","content":[` +
			textPart("How many words are spoken?") + "," + audioPart(clip) + `]}]}`
	}
	if r := st.Do(t, st.JSONPost(t, p.URL+"/v1/chat/completions", body(`{"include_usage":true}`))); r.Status != 200 {
		t.Errorf("stream_options include_usage: %d %s, want 200 (nothing streams: it changes nothing)", r.Status, r.Body)
	}
	r := st.Do(t, st.JSONPost(t, p.URL+"/v1/chat/completions", body(`{"input_audio":{"data":"QUFB"}}`)))
	if e, _ := r.JSON["error"].(map[string]any); r.Status != 400 || r.ErrorCode() != contract.CodeUnknownField || e["param"] != "input_audio" {
		t.Errorf("stream_options holding input_audio: %d %s, want 400 %s naming input_audio", r.Status, r.Body, contract.CodeUnknownField)
	}
}

// Repeated timestamp_granularities[] parts were held outside the body memory: four held
// bodies of 28 MiB of them grew the heap by the lot under a 16 MiB bound. Now a body has at
// most 16 parts (413 too_many_elements) and every field's bytes are accounted.
func TestRepeatedFormPartsAreCountedAndBounded(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.an4}, "--body-memory-mb", "16", "--gc-percent", "1")
	heap0, _ := heldBytes(t, p.URL)
	body := granularities(450, 64<<10)
	var held []*heldRequest
	for i := range 4 {
		held = append(held, hold(t, p.URL, fmt.Sprintf("granularities %d", i), formHead, 0, true, body))
	}
	settled(t, held, 60*time.Second)
	heap, _ := heldBytes(t, p.URL)
	t.Logf("heap %+.1f MiB with 4 held bodies of 450 x 64 KiB granularities", (heap-heap0)/mib)
	if heap-heap0 > 24*mib {
		t.Errorf("the heap grew %.0f MiB under a 16 MiB body memory", (heap-heap0)/mib)
	}
	for _, h := range held {
		if got := h.result(5 * time.Second); got != "413 "+contract.CodeTooManyElements {
			t.Errorf("%s: %s, want 413 %s", h.name, got, contract.CodeTooManyElements)
		}
	}
}

// Long flat arrays were bounded by neither the depth nor the key limit: a 22 MB chat body of
// 887k tiny parts cost +405 MiB of peak RSS, and a 31 MB [0,0,...] seconds of CPU. Both are
// 413 too_many_elements now, refused by count while they are read.
func TestLongFlatArraysAreRefusedByCount(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{qaBundle(t), imageBundle(t, "procdiff-small-l0")})
	parts := flatTextParts(887_000)
	zeros := flatZeros(15_500_000)
	before := vmHWM(t, p.Pid())
	for _, c := range []struct{ name, path, body string }{
		{"chat of 887k text parts", "/v1/chat/completions", parts},
		{"image request of a 15.5M-element array", "/v1/images/generations", zeros},
		{"image seed of a 15.5M-element array", "/v1/images/generations", `{"model":"procdiff-small-l0","prompt":"a kite","seed":` + zeros + `}`},
	} {
		r := st.Do(t, st.JSONPost(t, p.URL+c.path, c.body))
		if r.Status != 413 || r.ErrorCode() != contract.CodeTooManyElements {
			t.Errorf("%s (%.1f MB): %d %.300s, want 413 %s", c.name, float64(len(c.body))/1e6, r.Status, r.Body, contract.CodeTooManyElements)
		}
	}
	growth := vmHWM(t, p.Pid()) - before
	t.Logf("peak RSS %+d MiB", growth>>20)
	if growth > 160<<20 {
		t.Errorf("peak RSS grew %d MiB for three flat-array bodies read one after another", growth>>20)
	}
}

// Decoded samples of a held upload, and the buffers it outgrew, were not counted: four held
// uploads whose WAV headers claim the whole body grew the heap far past the body memory. Now
// both are taken from it: what fits is held, the rest is 429, and the heap stays within it.
func TestHeldUploadsCountTheirSamples(t *testing.T) {
	f := setup(t)
	const bound = 128
	p := st.Start(t, f.server, []string{f.an4}, "--body-memory-mb", fmt.Sprint(bound), "--gc-percent", "1")
	heap0, _ := heldBytes(t, p.URL)
	const declared = 16 << 20
	body := lyingUpload(declared)
	var held []*heldRequest
	for i := range 4 {
		held = append(held, hold(t, p.URL, fmt.Sprintf("upload %d", i), formHead, declared, false, body))
	}
	answers := settled(t, held, 60*time.Second)
	heap, _ := heldBytes(t, p.URL)
	t.Logf("heap %+.1f MiB with 4 held 16 MiB uploads at 3/4 (answered: %v)", (heap-heap0)/mib, answers)
	if heap-heap0 > (bound+8)*mib {
		t.Errorf("the heap grew %.0f MiB under a %d MiB body memory", (heap-heap0)/mib, bound)
	}
	for name, a := range answers {
		if a != "429 "+contract.CodeServerBusy {
			t.Errorf("%s: %s, want 429 %s", name, a, contract.CodeServerBusy)
		}
	}
	if len(answers) == len(held) {
		t.Errorf("every upload was refused: none fits a %d MiB body memory", bound)
	}
}

// partHeaderLines is a part's boundary line and headers: about 16 KB of distinct short header
// fields (a map entry each), ending with the blank line when complete is set.
func partHeaderLines(complete bool) []byte {
	var b strings.Builder
	b.WriteString("--b\r\nContent-Disposition: form-data; name=\"model\"\r\n")
	for i := 0; b.Len() < 15_900; i++ {
		fmt.Fprintf(&b, "a%d:\r\n", i)
	}
	if complete {
		b.WriteString("\r\nsphinx")
	}
	return []byte(b.String())
}

// A multipart part's headers cost far more than their bytes: each short field line is a map
// entry, a key string and a value slot (~240 KB for 16 KB of lines). They were taken from the
// body memory at their bytes, once complete (not at all while a client held them half sent),
// so held requests grew the heap ~15 times past what was accounted. Lines of a part's content
// are not headers: a held part of 4 KB of newlines must not reserve 128 bytes each.
func TestHeldPartHeadersAreAccounted(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.an4}, "--gc-percent", "1")
	newlines := []byte("--b\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\n" + strings.Repeat("\n", 4000))
	for _, c := range []struct {
		name string
		body []byte
	}{{"half-sent headers", partHeaderLines(false)}, {"complete headers", partHeaderLines(true)}, {"content of newlines", newlines}} {
		heap0, acct0 := heldBytes(t, p.URL)
		const n = 60
		var held []*heldRequest
		for i := range n {
			held = append(held, hold(t, p.URL, fmt.Sprintf("%s %d", c.name, i), formHead, 1<<20, false, c.body))
		}
		settled(t, held, 30*time.Second)
		heap, acct := heldBytes(t, p.URL)
		t.Logf("%s: heap %+.1f MiB, accounted %+.1f MiB", c.name, (heap-heap0)/mib, (acct-acct0)/mib)
		if unseen := (heap - heap0) - (acct - acct0) - n*perRequestUnaccounted; unseen > 2*mib {
			t.Errorf("%s: %d held requests grew the heap %.1f MiB past what was accounted (%.1f MiB)", c.name, n, unseen/mib, (acct-acct0)/mib)
		}
		// Nor reserved far past what they hold.
		if acct-acct0 > 2*(heap-heap0)+mib {
			t.Errorf("%s: %d held requests of %d bytes reserved %.1f MiB of body memory, holding %.1f", c.name, n, len(c.body), (acct-acct0)/mib, (heap-heap0)/mib)
		}
		for _, h := range held {
			h.conn.Close()
		}
		waitAccounted(t, p.URL, acct0)
	}
}

// A request's header map lives as long as its held body: many short header lines (each a map
// entry in net/http, ~80 bytes of heap beyond its text) and a stalled body must be counted, and
// headers past --max-header-kb are refused with 431 before any handler holds them.
func TestHeldRequestHeadersAreAccounted(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{f.an4}, "--gc-percent", "1")
	heap0, acct0 := heldBytes(t, p.URL)
	lines := func(size int) string {
		var b strings.Builder
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(&b, "\r\n%x:", i)
		}
		return b.String()
	}
	head := formHead + lines(60<<10)
	const n = 10
	var held []*heldRequest
	for i := range n {
		held = append(held, hold(t, p.URL, fmt.Sprintf("headers %d", i), head, 1<<20, false, []byte("--b")))
	}
	settled(t, held, 30*time.Second)
	heap, acct := heldBytes(t, p.URL)
	if unseen := (heap - heap0) - (acct - acct0) - n*perRequestUnaccounted; unseen > 2*mib {
		t.Errorf("%d held requests with 60 KiB of header lines grew the heap %.1f MiB past what was accounted (accounted %.1f MiB)",
			n, unseen/mib, (acct-acct0)/mib)
	}
	resp, err := http.DefaultClient.Do(func() *http.Request {
		r, _ := http.NewRequest(http.MethodGet, p.URL+"/health/live", nil)
		r.Header.Set("X-Big", strings.Repeat("a", 100<<10))
		return r
	}())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("100 KiB of headers: %d, want 431 (--max-header-kb 64)", resp.StatusCode)
	}
}

// The account of a held request's headers follows what their map holds, whatever their shape:
// a value repeated under one key (Cookie-like) is a string in a slice, ~30 bytes of heap, not a
// map entry. Counted at 128 bytes a line, 62 KiB of "a:" lines reserved 2 MiB for 0.4 MiB of
// heap, so 8 held requests (128 under the default bound) filled a 16 MiB body memory and every
// upload was 429. For each shape the account must cover the heap growth and stay within twice
// it, and a transcription must be served beside 8 such requests.
func TestHeldHeaderAccountFollowsTheHeap(t *testing.T) {
	f := setup(t)
	clip := tenSecondClip(t)
	fill := func(line func(i int) string) string {
		var b strings.Builder
		b.WriteString(formHead)
		for i := 0; b.Len() < 62<<10; i++ {
			b.WriteString("\r\n" + line(i))
		}
		return b.String()
	}
	for _, shape := range []struct{ name, head string }{
		{"one key repeated", fill(func(int) string { return "a:" })},
		{"cookie lines", fill(func(i int) string { return fmt.Sprintf("Cookie: c%d=1", i) })},
		{"distinct keys", fill(func(i int) string { return fmt.Sprintf("%x:", i) })},
		{"distinct keys and values", fill(func(i int) string { return fmt.Sprintf("%x: v%x", i, i) })},
		{"long values", fill(func(i int) string { return fmt.Sprintf("X-%d: %s", i%7, strings.Repeat("v", 4000)) })},
	} {
		t.Run(shape.name, func(t *testing.T) {
			p := st.Start(t, f.server, []string{f.an4}, "--gc-percent", "1", "--body-memory-mb", "16")
			heap0, acct0 := heldBytes(t, p.URL)
			const n = 8
			var held []*heldRequest
			for i := range n {
				held = append(held, hold(t, p.URL, fmt.Sprintf("%s %d", shape.name, i), shape.head, 1<<20, false, []byte("--b")))
			}
			settled(t, held, 30*time.Second)
			time.Sleep(time.Second)
			heap, acct := heldBytes(t, p.URL)
			grown, counted := heap-heap0, acct-acct0-n*bodyBufferBytes
			t.Logf("%d held: heap %+.2f MiB, headers accounted %+.2f MiB", n, grown/mib, counted/mib)
			if unseen := grown - counted - n*perRequestUnaccounted; unseen > 2*mib {
				t.Errorf("heap grew %.2f MiB past the account (%.2f MiB accounted)", unseen/mib, counted/mib)
			}
			if counted > 2*grown+mib {
				t.Errorf("%.2f MiB accounted for %.2f MiB of heap: the headers reserve more than twice what they hold", counted/mib, grown/mib)
			}
			if r := st.Do(t, transcription(t, p.URL, "sphinx-an4-l0", clip)); r.Status != 200 {
				t.Errorf("a transcription beside %d held requests of %s: %d %s, want 200", n, shape.name, r.Status, r.Body)
			}
		})
	}
}

const bodyBufferBytes = 64 << 10
