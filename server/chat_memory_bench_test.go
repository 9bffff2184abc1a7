package server_test

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/trtmc-qual/trtmc-qual/native/audio"
	st "github.com/trtmc-qual/trtmc-qual/server/servertest"
)

// BenchmarkChatAudioPeakRSS prints how much 16 concurrent chat requests carrying large WAVs
// raise the real server's peak RSS (VmHWM), with the default limits (32 MiB body, 16 MiB
// audio). Goal: a 24 MB WAV (30.5 MiB body, over what any accepted clip needs) costs at most
// +256 MiB for all 16, declared length or chunked. A chunked one whose WAV header declares
// only 1 KB of samples cannot be refused from its header: it is read until its decoded bytes
// pass the audio limit. The last cases are a 16 MiB WAV, the largest the audio limit lets
// through to decoding; they are printed for comparison (no goal).
//
//	go test -run '^$' -bench ChatAudioPeakRSS -benchtime 1x ./server/
func BenchmarkChatAudioPeakRSS(b *testing.B) {
	for _, c := range []struct {
		name     string
		wavBytes int
		chunked  bool
		lying    bool // the data chunk's header says 1 KB
	}{
		{"24MB-wav", 24_000_000, false, false},
		{"24MB-wav-chunked", 24_000_000, true, false},
		{"24MB-wav-chunked-header-says-1KB", 24_000_000, true, true},
		{"16MiB-wav", 16 << 20, false, false},
		{"16MiB-wav-chunked", 16 << 20, true, false},
	} {
		b.Run(c.name, func(b *testing.B) {
			wav := audio.EncodePCM16(make([]int16, (c.wavBytes-44)/2), 1, 16000)
			if c.lying {
				binary.LittleEndian.PutUint32(wav[40:44], 1000)
			}
			body := []byte(`{"model":"sphinxqa-an4-l0","messages":[{"role":"user","content":[{"type":"text","text":"How many words are spoken?"},` +
				`{"type":"input_audio","input_audio":{"format":"wav","data":"` + base64.StdEncoding.EncodeToString(wav) + `"}}]}]}`)
			p := st.Start(b, serverBinary(sharedDir(b)), []string{qaBundle(b)})
			before := vmHWM(b, p.Pid())
			statuses := map[int]int{}
			var mu sync.Mutex
			for range b.N {
				var wg sync.WaitGroup
				for range 16 {
					wg.Go(func() {
						var r io.Reader = bytes.NewReader(body)
						if c.chunked {
							r = io.MultiReader(r) // hides the length: sent chunked
						}
						req, _ := http.NewRequest(http.MethodPost, p.URL+"/v1/chat/completions", r)
						req.Header.Set("Content-Type", "application/json")
						resp, err := http.DefaultClient.Do(req)
						if err != nil {
							b.Error(err)
							return
						}
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						mu.Lock()
						statuses[resp.StatusCode]++
						mu.Unlock()
					})
				}
				wg.Wait()
			}
			growth := float64(vmHWM(b, p.Pid())-before) / (1 << 20)
			b.ReportMetric(growth, "peak-RSS-growth-MiB")
			b.Logf("%s: body %.1f MiB x16 concurrent: peak RSS +%.0f MiB, answers %v", c.name, float64(len(body))/(1<<20), growth, statuses)
		})
	}
}

// BenchmarkBodyMemoryAttacksPeakRSS prints how much the attacks on the body memory raise the
// real server's peak RSS (VmHWM), with the default limits (256 MiB body memory), and how they
// were answered: 16 held chat bodies of 4,080 tiny clips, 4 held bodies of 450 repeated
// 64 KiB form parts, a 23 MB chat body of 887k text parts and a 31 MB [0,0,...] image body
// (sent whole: the figure is taken once they are answered), and 8 uploads held at three
// quarters of 16 MiB whose WAV headers claim all of it. With $SERVERTEST_BASELINE_BIN (make bench builds f75aeb2's) it prints the same for that
// binary, as "before".
//
//	go test -run '^$' -bench BodyMemoryAttacksPeakRSS -benchtime 1x ./server/
func BenchmarkBodyMemoryAttacksPeakRSS(b *testing.B) {
	bins := []struct{ name, path string }{{"after", serverBinary(sharedDir(b))}}
	if base := os.Getenv("SERVERTEST_BASELINE_BIN"); base != "" {
		bins = append([]struct{ name, path string }{{"before", base}}, bins...)
	}
	type request struct {
		head    string
		chunked bool
		body    []byte
		n       int
	}
	for _, c := range []struct {
		name string
		req  request
	}{
		{"16x4080-tiny-clips-held", request{chatHead, true, tinyClipsInMessages(4080), 16}},
		{"16x4080-tiny-clips-in-stream_options-held", request{chatHead, true, tinyClipsInOptions(4080), 16}},
		{"4x450-granularities-of-64KiB-held", request{formHead, true, granularities(450, 64<<10), 4}},
		{"chat-887k-text-parts", request{chatHead, false, []byte(flatTextParts(887_000)), 1}},
		{"image-31MB-flat-array", request{imageHead, false, []byte(flatZeros(15_500_000)), 1}},
		{"8x16MiB-uploads-held-at-3/4-header-claims-all", request{formHead, false, lyingUpload(16 << 20), 8}},
	} {
		for _, bin := range bins {
			b.Run(c.name+"/"+bin.name, func(b *testing.B) {
				p := st.Start(b, bin.path, []string{qaBundle(b), imageBundle(b, "procdiff-small-l0"), filepath.Join(sharedDir(b), "sphinx-an4-l0.bundle")})
				before := vmHWM(b, p.Pid())
				for range b.N {
					var held []*heldRequest
					for i := range c.req.n {
						declared := int64(len(c.req.body))
						if c.req.head == formHead && !c.req.chunked {
							declared = 16 << 20
						}
						held = append(held, hold(b, p.URL, fmt.Sprint(i), c.req.head, declared, c.req.chunked, c.req.body))
					}
					answers := map[string]int{}
					for _, a := range settled(b, held, 120*time.Second) {
						answers[a]++
					}
					if whole := c.req.head != formHead && !c.req.chunked; whole && len(answers) == 0 { // sent whole: wait for the answer
						answers[held[0].result(2*time.Minute)]++
					}
					growth := float64(vmHWM(b, p.Pid())-before) / (1 << 20)
					b.ReportMetric(growth, "peak-RSS-growth-MiB")
					b.Logf("%s (%s): peak RSS +%.0f MiB; answers: %v of %d (the others held)", c.name, bin.name, growth, answers, c.req.n)
					for _, h := range held {
						h.conn.Close()
					}
				}
			})
		}
	}
}
