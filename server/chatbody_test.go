package server

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/trtmc-qual/trtmc-qual/native/audio"
)

// chatJSON is a chat body holding one input_audio part whose data string is data as written
// (already JSON-quoted content, without the quotes).
func chatJSON(data string) string {
	return `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"q \"x\""},` +
		`{"type":"input_audio","input_audio":{"format":"wav","data":"` + data + `"}},{"type":"image_url","image_url":{"data":"kept"}}]}]}`
}

// reference is what the whole-body path made of a chat body: encoding/json's value of the
// data string, then base64.StdEncoding.DecodeString of it.
func reference(t *testing.T, body string) (wav []byte, decodeErr, jsonErr error) {
	t.Helper()
	var v struct {
		Messages []struct {
			Content []struct {
				InputAudio *struct{ Data string } `json:"input_audio"`
			}
		}
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		return nil, nil, err
	}
	data := v.Messages[0].Content[1].InputAudio.Data
	wav, err := base64.StdEncoding.DecodeString(data)
	return wav, err, nil
}

// split runs splitChatBody over body read in pieces of random sizes (one byte at a time when
// oneByte), and decodes its text.
func split(t *testing.T, body string, oneByte bool, seed uint64) (*chatBody, any, error) {
	t.Helper()
	var r io.Reader = &randomChunks{data: []byte(body), rng: rand.New(rand.NewPCG(seed, 1))}
	if oneByte {
		r = iotest.OneByteReader(strings.NewReader(body))
	}
	b, err := splitChatBody(r, 1<<20, nil)
	if err != nil {
		return nil, nil, err
	}
	var v any
	return b, v, json.Unmarshal(b.text, &v)
}

type randomChunks struct {
	data []byte
	rng  *rand.Rand
}

func (r *randomChunks) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 1+r.rng.IntN(7000))], r.data)
	r.data = r.data[n:]
	return n, nil
}

// The split body means what the whole body meant: the same decoded clip (or a base64 error
// where DecodeString had one), a text that is invalid JSON exactly where the body was, and
// every other string kept, however the body's bytes arrive.
func TestSplitChatBodyMatchesTheWholeBodyDecode(t *testing.T) {
	wav := audio.EncodePCM16(make([]int16, 3000), 1, 16000)
	for i := range wav {
		wav[i] = byte(i * 7) // every base64 character, "/" and "+" among them
	}
	b64 := base64.StdEncoding.EncodeToString(wav)
	var mime strings.Builder // line breaks escaped every 76 characters, as MIME encoders do
	for i := 0; i < len(b64); i += 76 {
		mime.WriteString(b64[i:min(i+76, len(b64))] + `\r\n`)
	}
	cases := map[string]string{
		"plain":             b64,
		"escaped slashes":   strings.ReplaceAll(b64, "/", `\/`),
		"escaped lines":     mime.String(),
		"unicode escapes":   strings.ReplaceAll(b64, "A", `\u0041`),
		"padding":           "QQ==",
		"padding mid-way":   "QQ==QUFB",
		"padding then line": `QQ==\n`,
		"short group":       "QUF",
		"not base64":        "QU*B",
		"only a line break": `\n`,
		"bad escape":        `QU\xB`,
		"bad unicode":       `QU\u00zzB`,
		"raw control byte":  "QU\x01FB",
		"raw line break":    "QU\nFB",
		"non-ASCII":         "QUé=",
	}
	for name, data := range cases {
		body := chatJSON(data)
		wantWAV, wantErr, wantJSONErr := reference(t, body)
		for seed := range uint64(4) {
			got, _, jsonErr := split(t, body, seed == 0, seed)
			if (jsonErr != nil) != (wantJSONErr != nil) {
				t.Errorf("%s: text decodes with %v, the whole body with %v", name, jsonErr, wantJSONErr)
				continue
			}
			if wantJSONErr != nil {
				continue
			}
			if len(got.audios) != 1 {
				t.Errorf("%s: %d audios", name, len(got.audios))
				continue
			}
			a := got.audios[0]
			if (a.err != nil) != (wantErr != nil) || wantErr == nil && !bytes.Equal(a.wav, wantWAV) {
				t.Errorf("%s (seed %d): clip %d bytes err %v, want %d bytes err %v", name, seed, len(a.wav), a.err, len(wantWAV), wantErr)
			}
			if !bytes.Contains(got.text, []byte(`"data":"kept"`)) || !bytes.Contains(got.text, []byte(`"q \"x\""`)) {
				t.Errorf("%s: other strings not kept: %s", name, got.text)
			}
		}
	}
}

// An empty data string stays empty (the decode refuses it as missing), and a key spelled with
// escapes is the key encoding/json reads.
func TestSplitChatBodyEmptyDataAndEscapedKeys(t *testing.T) {
	b, _, err := split(t, chatJSON(""), true, 0)
	if err != nil || len(b.audios) != 0 || !bytes.Contains(b.text, []byte(`"data":""`)) {
		t.Errorf("empty data: %v %d audios, text %s", err, len(b.audios), b.text)
	}
	body := strings.Replace(chatJSON("QUFB"), `"data":"QUFB"`, `"d\u0061ta":"QUFB"`, 1)
	b, _, err = split(t, body, false, 1)
	if err != nil || len(b.audios) != 1 || string(b.audios[0].wav) != "AAA" {
		t.Errorf("escaped key: %v %+v", err, b)
	}
}

// A clip over the audio limit is refused 413 while it streams: by its decoded size, or at
// once when its WAV header declares a chunk ending past the limit.
func TestSplitChatBodyRefusesAClipOverTheLimit(t *testing.T) {
	limit := 1 << 20
	big := base64.StdEncoding.EncodeToString(make([]byte, limit+1))
	fits := base64.StdEncoding.EncodeToString(make([]byte, limit))
	if _, err := splitChatBody(strings.NewReader(chatJSON(fits)), limit, nil); err != nil {
		t.Errorf("a clip of exactly the limit: %v", err)
	}
	if _, err := splitChatBody(strings.NewReader(chatJSON(big)), limit, nil); status(err) != http.StatusRequestEntityTooLarge {
		t.Errorf("a clip of the limit + 1: %v, want 413", err)
	}
	header := audio.EncodePCM16(make([]int16, 8), 1, 16000)[:44]
	header[40], header[41], header[42], header[43] = 0, 0, 0x20, 0 // data chunk of 2 MiB
	body := &countingReader{r: strings.NewReader(chatJSON(base64.StdEncoding.EncodeToString(append(header, make([]byte, 3<<20)...))))}
	if _, err := splitChatBody(body, limit, nil); status(err) != http.StatusRequestEntityTooLarge || body.n > 64<<10 {
		t.Errorf("a WAV header declaring 2 MiB: %v after %d bytes read, want 413 within the first read", err, body.n)
	}
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func status(err error) int {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae.Status
	}
	return 0
}

// The clip's buffer is taken from the body memory: past the bound the body is refused.
func TestSplitChatBodyCountsItsBuffers(t *testing.T) {
	mem := &bodyMemory{limit: 1 << 20}
	acct := &bodyAccount{mem: mem}
	body := chatJSON(base64.StdEncoding.EncodeToString(make([]byte, 3<<20)))
	if _, err := splitChatBody(strings.NewReader(body), 4<<20, acct); !errors.Is(err, errBodyMemory) {
		t.Errorf("3 MiB clip under a 1 MiB body memory: %v, want %v", err, errBodyMemory)
	}
	acct.release()
	if used := mem.used.Load(); used != 0 {
		t.Errorf("%d bytes still counted after release", used)
	}

}

// BenchmarkChatBodyRead compares reading a chat body holding a 5 s clip (160 KB of WAV) the
// way the handler does now (splitChatBody, then the strict decode of the text) with the whole
// body path it replaced (the strict decode of the body, then base64 of the data string).
func BenchmarkChatBodyRead(b *testing.B) {
	wav := audio.EncodePCM16(make([]int16, 80000), 1, 16000)
	for i := range wav {
		wav[i] = byte(i * 7)
	}
	body := []byte(chatJSON(base64.StdEncoding.EncodeToString(wav)))
	var req chatRequest
	b.Run("split", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			split, err := splitChatBody(bytes.NewReader(body), 16<<20, nil)
			if err != nil || decodeStrictBytes(split.text, &req, nil) != nil {
				b.Fatal(err)
			}
			var in chatInput
			for _, m := range req.Messages {
				if err := parseChatContent(m.Content, &in); err != nil {
					b.Fatal(err)
				}
			}
			if a, ok := split.audioFor(in.audios[0]); !ok || a.err != nil {
				b.Fatal(a.err)
			}
		}
	})
	b.Run("whole", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if err := decodeStrictBytes(body, &req, nil); err != nil {
				b.Fatal(err)
			}
			var in chatInput
			for _, m := range req.Messages {
				if err := parseChatContent(m.Content, &in); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := base64.StdEncoding.DecodeString(in.audios[0]); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// A body nested deeper than the strict decode allows is refused as the scanner reads it, before
// its stack grows with the body: an 8 MiB body of "[" used to allocate about 2 GiB unaccounted.
func TestSplitChatBodyRefusesNestingDeeperThanJSONAllows(t *testing.T) {
	deep := bytes.Repeat([]byte("["), 8<<20)
	if _, err := splitChatBody(bytes.NewReader(deep), 1<<20, nil); !errors.Is(err, errTooDeep) {
		t.Fatalf("8 MiB of '[': err %v, want %v", err, errTooDeep)
	}
	ok := append(bytes.Repeat([]byte("["), maxNesting), bytes.Repeat([]byte("]"), maxNesting)...)
	if _, err := splitChatBody(bytes.NewReader(ok), 1<<20, nil); err != nil {
		t.Fatalf("%d levels (the strict decode's limit): %v", maxNesting, err)
	}
}

// BenchmarkChatBodyEscapes reads a data string made of JSON escapes that decode to line
// breaks (skipped, as base64.StdEncoding skips them): each is work of its own, not bounded by
// the audio limit, so its cost a byte is what a body of them costs.
func BenchmarkChatBodyEscapes(b *testing.B) {
	for _, esc := range []string{`\n`, `\r\n`, `\u000a`} {
		body := []byte(chatJSON(strings.Repeat(esc, (1<<20)/len(esc))))
		b.Run(strings.ReplaceAll(esc, `\`, ""), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := splitChatBody(bytes.NewReader(body), 16<<20, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
