package server_test

// D5 for chunked chat bodies, on the real binary: a clip that cannot be accepted is refused
// while its body streams, and the refusal reaches a client that is still sending.

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/native/audio"
	st "github.com/trtmc-qual/trtmc-qual/server/servertest"
)

// A chunked chat body whose WAV header declares 24 MB is answered 413 while the client still
// has most of its body to send (the whole body was read, parsed and decoded first).
func TestChunkedChatClipOverTheLimitIsRefusedWhileItStreams(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{qaBundle(t)})
	wav := audio.EncodePCM16(make([]int16, 12_000_000), 1, 16000) // 24 MB
	body := chatBody("sphinxqa-an4-l0", textPart("How many words are spoken?"), audioPart(wav))
	conn, err := net.Dial("tcp", strings.TrimPrefix(p.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	head := body[:256<<10] // a quarter MiB of the body, then the client stalls
	fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nX-Request-ID: chunked-24mb\r\nContent-Type: application/json\r\n"+
		"Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n", len(head), head)
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer while the body was incomplete: %v", err)
	}
	resp.Body.Close()
	conn.Close() // else net/http waits out the body timeout for the rest it reads after a 413
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("chunked 24 MB clip: %d, want 413", resp.StatusCode)
	}
	p.Stop(t)
	byID, _ := recordsByID(t, p)
	if recs := byID["chunked-24mb"]; len(recs) != 1 || recs[0].Status != 413 || recs[0].ErrorCode != contract.CodeRequestTooLarge {
		t.Errorf("records: %+v, want one 413 %s", recs, contract.CodeRequestTooLarge)
	}
}

// Clients still sending a chunked body when it is refused read their 413, not a reset.
func TestEarlyRefusalReachesClientsStillSending(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{qaBundle(t)})
	wav := audio.EncodePCM16(make([]int16, 12_000_000), 1, 16000)
	body := []byte(chatBody("sphinxqa-an4-l0", textPart("How many words are spoken?"), audioPart(wav)))
	var wg sync.WaitGroup
	var mu sync.Mutex
	got := map[string]int{}
	for range 8 {
		wg.Go(func() {
			// io.MultiReader hides the length: the body is sent chunked.
			req, _ := http.NewRequest(http.MethodPost, p.URL+"/v1/chat/completions", io.MultiReader(bytes.NewReader(body)))
			req.Header.Set("Content-Type", "application/json")
			outcome := "error"
			if resp, err := http.DefaultClient.Do(req); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				outcome = fmt.Sprint(resp.StatusCode)
			}
			mu.Lock()
			got[outcome]++
			mu.Unlock()
		})
	}
	wg.Wait()
	if got["413"] != 8 {
		t.Errorf("8 chunked 24 MB clips: %v, want 8 answered 413", got)
	}
}

// A chunked chat body is served like a declared-length one (its clip decoded as it streams),
// with its data string as encoders write it ("/" escaped, as PHP's json_encode does).
func TestChunkedChatBodyIsAnswered(t *testing.T) {
	f := setup(t)
	p := st.Start(t, f.server, []string{qaBundle(t)})
	clip := cardsClip(t, "004")
	body := chatBody("sphinxqa-an4-l0", textPart("How many words are spoken?"), audioPart(clip))
	b64 := base64.StdEncoding.EncodeToString(clip)
	escaped := strings.Replace(body, b64, strings.ReplaceAll(b64, "/", `\/`), 1)
	declared := st.Do(t, st.JSONPost(t, p.URL+"/v1/chat/completions", body))
	if declared.Status != 200 || declared.JSON["choices"] == nil {
		t.Fatalf("declared-length chat body: %d %s", declared.Status, declared.Body)
	}
	for name, b := range map[string]string{"chunked": body, "chunked, escaped slashes": escaped} {
		req := st.JSONPost(t, p.URL+"/v1/chat/completions", b)
		req.Body, req.ContentLength = io.NopCloser(io.MultiReader(strings.NewReader(b))), -1
		r := st.Do(t, req)
		if r.Status != 200 || fmt.Sprint(r.JSON["choices"]) != fmt.Sprint(declared.JSON["choices"]) {
			t.Errorf("%s: %d %s, want the declared-length answer %v", name, r.Status, r.Body, declared.JSON["choices"])
		}
	}
}
