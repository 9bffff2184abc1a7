package server

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
)

// A chat body is almost all base64 audio: a 16 MiB WAV is 21.3 MiB of one JSON string. Read
// whole and decoded as JSON, it was held as the body, the decoder's copy, the message's raw
// content, the part's string and the decoded WAV before its samples: ~5 copies. splitChatBody
// reads the body once, as it streams: every messages[i].content[j].input_audio.data string
// is base64-decoded straight into a buffer of its own (grown from the bytes decoded and taken
// from the body memory), and the rest of the body, the text, keeps a short placeholder string
// in its place ("#0", "#1", ... in body order), so the strict JSON decode runs on a few KiB
// (at most chatTextBytes). The scanner counts as it reads: at most maxChatAudios clips and
// maxJSONArrayElements elements an array, refused there. A clip over
// --max-audio-mb is refused as soon as its decoded bytes pass the limit, or as soon as its WAV
// header declares a chunk that ends past it (no WAV of that header decodes within the limit:
// DecodeWAV refuses a chunk that claims more bytes than the file holds), before the rest of
// the body is read.
//
// No JSON library streams one string's content in pieces (encoding/json and its v2 hold each
// string whole), hence the scanner here. It does not validate the JSON: anything it cannot
// take as a data string it copies into the text, where the strict decode finds it; what is
// wrong inside a data string at the JSON level (a raw control byte, a bad escape, no closing
// quote) is copied into its placeholder, so the decode still refuses it as invalid_json.

// chatAudio is one input_audio data string: its decoded bytes, or why they are not base64.
type chatAudio struct {
	wav []byte
	err error
}

// chatBody is a chat body split in two: its JSON with placeholders, and the audio.
type chatBody struct {
	text   []byte
	audios []chatAudio
}

// audioFor is the audio a decoded input_audio.data value stands for.
func (b *chatBody) audioFor(placeholder string) (chatAudio, bool) {
	if len(placeholder) < 2 || placeholder[0] != '#' {
		return chatAudio{}, false
	}
	i, err := strconv.Atoi(placeholder[1:])
	if err != nil || i < 0 || i >= len(b.audios) {
		return chatAudio{}, false
	}
	return b.audios[i], true
}

// splitChatBody reads a chat body to its end. Errors: the body's own (limit, deadline, reset,
// body memory) and 413 for a clip over maxAudio.
func splitChatBody(body io.Reader, maxAudio int, acct *bodyAccount) (*chatBody, error) {
	sc := &chatScanner{maxAudio: maxAudio, acct: acct, out: &chatBody{}}
	chunk, err := allocate[byte](acct, 32<<10)
	if err != nil {
		return nil, err
	}
	for {
		n, err := body.Read(chunk)
		if n > 0 {
			if serr := sc.roomForText(n); serr != nil {
				return nil, serr
			}
			if serr := sc.scan(chunk[:n]); serr != nil {
				return nil, serr
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if sc.str == strData {
		sc.endAudio() // unterminated: the text's placeholder has no closing quote
	}
	return sc.out, nil
}

// Where the scanner is.
const (
	strNone  = iota // between tokens
	strOther        // inside a string that is copied
	strData         // inside an input_audio data string
)

// jsonLevel is one open object or array.
type jsonLevel struct {
	object    bool
	wantKey   bool   // the next string of this object is a key
	key       string // this object's current key (unescaped; "" when over maxKeyBytes)
	parentKey string // the key this object or array is the value of
	elements  int    // commas seen in this array: its elements less one
}

// maxNesting is the strict decode's depth limit (maxJSONDepth): a deeper body is refused by it
// anyway, and the scanner, which runs first, must not grow its stack with the body's bytes
// (an 8 MiB body of "[" once allocated ~2 GiB; at encoding/json's own 10,000 levels the stack
// was still ~1 MB a request outside the body memory).
const maxNesting = maxJSONDepth

// errTooDeep is a body nested deeper than maxNesting.
var errTooDeep = fmt.Errorf("JSON nested deeper than %d levels", maxNesting)

// maxKeyBytes bounds a key the scanner remembers: "input_audio" with every byte escaped is 66.
const maxKeyBytes = 96

type chatScanner struct {
	maxAudio int
	acct     *bodyAccount
	out      *chatBody

	stack   []jsonLevel
	str     int
	escaped bool   // the previous byte of the string was an unconsumed backslash
	isKey   bool   // the string being copied is a key
	key     []byte // its raw bytes, up to maxKeyBytes+1

	// The data string being decoded.
	esc    []byte // a pending escape sequence, from its backslash
	quad   [4]byte
	nquad  int
	padded bool // a group with "=" was decoded: only line breaks may follow
	b64n   int  // base64 characters of the string decoded so far (error offsets)
	mark   int  // where its placeholder starts in the text
	// placeholder is the placeholder's length, from its opening quote.
	placeholder int
	wav         []byte
	bad         error
	header      bool // the WAV header's chunk sizes were checked
}

func (sc *chatScanner) scan(p []byte) error {
	for len(p) > 0 {
		var err error
		switch sc.str {
		case strData:
			p, err = sc.scanData(p)
		case strOther:
			p = sc.scanString(p)
		default:
			p, err = sc.scanStructure(p)
			if len(sc.stack) > maxNesting {
				return errTooDeep
			}
		}
		if err != nil {
			return err
		}
	}
	if len(sc.out.text) > chatTextBytes {
		return newError(http.StatusRequestEntityTooLarge, contract.CodeRequestTooLarge,
			"a chat body may hold at most %d bytes beside its input_audio data", chatTextBytes)
	}
	return nil
}

// scanStructure copies bytes between strings and follows objects, arrays and keys. It stops
// once the nesting passes maxNesting (scan refuses the body).
func (sc *chatScanner) scanStructure(p []byte) ([]byte, error) {
	for i, c := range p {
		if len(sc.stack) > maxNesting {
			return nil, nil
		}
		top := sc.top()
		switch c {
		case '{':
			sc.stack = append(sc.stack, jsonLevel{object: true, wantKey: true, parentKey: keyOf(top)})
		case '[':
			sc.stack = append(sc.stack, jsonLevel{parentKey: keyOf(top)})
		case '}', ']':
			if len(sc.stack) > 0 {
				sc.stack = sc.stack[:len(sc.stack)-1]
			}
		case ',':
			if top != nil && top.object {
				top.wantKey = true
			} else if top != nil {
				if top.elements++; top.elements >= maxJSONArrayElements { // elements - 1 commas
					return nil, errTooMany(maxJSONArrayElements, "elements in a JSON array")
				}
			}
		case ':':
			if top != nil && top.object {
				top.wantKey = false
			}
		case '"':
			sc.out.text = append(sc.out.text, p[:i]...)
			if sc.atAudioData() {
				return p[i+1:], sc.startAudio()
			}
			sc.str, sc.escaped = strOther, false
			sc.isKey = top != nil && top.object && top.wantKey
			sc.key = sc.key[:0]
			sc.out.text = append(sc.out.text, '"')
			return p[i+1:], nil
		}
	}
	sc.out.text = append(sc.out.text, p...)
	return nil, nil
}

// keyOf is the key a value opened in level l is the value of ("" in an array or at the top).
func keyOf(l *jsonLevel) string {
	if l != nil && l.object {
		return l.key
	}
	return ""
}

// atAudioData says a string value starting here is messages[i].content[j].input_audio.data,
// the one place a clip is read from: the same key path anywhere else (stream_options, a
// message's own input_audio) is text, bounded with the rest of it.
func (sc *chatScanner) atAudioData() bool {
	st := sc.stack
	return len(st) == 6 && st[0].object && !st[1].object && st[1].parentKey == "messages" &&
		st[2].object && !st[3].object && st[3].parentKey == "content" && st[4].object &&
		st[5].object && st[5].parentKey == "input_audio" && !st[5].wantKey && st[5].key == "data"
}

func (sc *chatScanner) top() *jsonLevel {
	if len(sc.stack) == 0 {
		return nil
	}
	return &sc.stack[len(sc.stack)-1]
}

// scanString copies a string up to its closing quote, remembering it when it is a key.
func (sc *chatScanner) scanString(p []byte) []byte {
	for i, c := range p {
		if sc.escaped {
			sc.escaped = false
		} else if c == '\\' {
			sc.escaped = true
		} else if c == '"' {
			sc.out.text = append(sc.out.text, p[:i+1]...)
			sc.keepKey(p[:i])
			sc.endString()
			return p[i+1:]
		}
	}
	sc.out.text = append(sc.out.text, p...)
	sc.keepKey(p)
	return nil
}

func (sc *chatScanner) keepKey(p []byte) {
	if sc.isKey && len(sc.key) <= maxKeyBytes {
		sc.key = append(sc.key, p[:min(len(p), maxKeyBytes+1-len(sc.key))]...)
	}
}

func (sc *chatScanner) endString() {
	sc.str = strNone
	top := sc.top()
	if !sc.isKey || top == nil {
		return
	}
	top.key = ""
	if len(sc.key) <= maxKeyBytes {
		var key string
		if err := jsonUnquote(sc.key, &key); err == nil {
			top.key = key
		}
	}
}

// jsonUnquote reads a key's raw bytes (between its quotes) as encoding/json does.
func jsonUnquote(raw []byte, key *string) error {
	return json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), key)
}

// startAudio begins a data string: its placeholder goes into the text.
func (sc *chatScanner) startAudio() error {
	if len(sc.out.audios) == maxChatAudios {
		return errTooMany(maxChatAudios, "input_audio data strings")
	}
	// Its entry in audios, which the text's placeholder stands for.
	if err := sc.acct.take(int(unsafe.Sizeof(chatAudio{}))); err != nil {
		return err
	}
	sc.str = strData
	sc.esc, sc.nquad, sc.padded, sc.bad, sc.header, sc.b64n, sc.wav = sc.esc[:0], 0, false, nil, false, 0, nil
	sc.mark = len(sc.out.text)
	sc.out.text = append(sc.out.text, '"', '#')
	sc.out.text = strconv.AppendInt(sc.out.text, int64(len(sc.out.audios)), 10)
	sc.placeholder = len(sc.out.text) - sc.mark
	return nil
}

// endAudio ends a data string: its bytes, or its error, are kept under its placeholder. An
// empty string stays empty, as the decode expects ("input_audio.data is required").
func (sc *chatScanner) endAudio() {
	sc.str = strNone
	if sc.b64n == 0 && sc.nquad == 0 && sc.bad == nil && len(sc.out.text) == sc.mark+sc.placeholder+1 {
		sc.out.text = append(sc.out.text[:sc.mark], '"', '"')
		return
	}
	if sc.bad == nil && sc.nquad != 0 {
		sc.bad = base64.CorruptInputError(sc.b64n)
	}
	a := chatAudio{wav: sc.wav, err: sc.bad}
	if a.err != nil {
		a.wav = nil
	}
	sc.out.audios = append(sc.out.audios, a)
	sc.str, sc.wav = strNone, nil
}

// scanData decodes a data string's content up to its closing quote.
func (sc *chatScanner) scanData(p []byte) ([]byte, error) {
	for i := 0; i < len(p); {
		if len(sc.esc) > 0 {
			n, err := sc.escape(p[i:])
			if err != nil {
				return nil, err
			}
			i += n
			continue
		}
		// The run up to the next quote, backslash or control byte is base64 as it stands.
		j := i
		for j < len(p) && p[j] != '"' && p[j] != '\\' && p[j] >= 0x20 {
			j++
		}
		if err := sc.decode(p[i:j]); err != nil {
			return nil, err
		}
		if j == len(p) {
			return nil, nil
		}
		switch c := p[j]; c {
		case '"':
			sc.out.text = append(sc.out.text, '"')
			sc.endAudio()
			return p[j+1:], nil
		case '\\':
			sc.esc = append(sc.esc[:0], c)
		default: // a raw control byte: invalid JSON, left in the text for the decoder to refuse
			sc.out.text = append(sc.out.text, c)
		}
		i = j + 1
	}
	return nil, nil
}

// escape consumes the bytes of a pending escape sequence and, once it is complete, decodes
// the character it stands for; how many bytes of p it took.
func (sc *chatScanner) escape(p []byte) (int, error) {
	n := 0
	for n < len(p) && len(sc.esc) < escapeLen(sc.esc) {
		sc.esc = append(sc.esc, p[n])
		n++
	}
	if len(sc.esc) < escapeLen(sc.esc) {
		return n, nil
	}
	esc := sc.esc
	sc.esc = sc.esc[:0]
	var c []byte
	switch e := esc[1]; e {
	case '"', '\\', '/':
		c = []byte{e}
	case 'b', 'f', 'n', 'r', 't':
		// Not a map literal: built at every escape, it made a body of "\n" escapes cost
		// ~180 ns a byte (4 s of CPU for one 21 MB body).
		c = []byte{controlEscapes[strings.IndexByte("bfnrt", e)]}
	case 'u':
		v, err := strconv.ParseUint(string(esc[2:6]), 16, 32)
		if err != nil {
			sc.out.text = append(sc.out.text, esc...) // not JSON: the decoder refuses it
			return n, nil
		}
		c = utf8.AppendRune(nil, rune(v))
	default:
		sc.out.text = append(sc.out.text, esc...)
		return n, nil
	}
	return n, sc.decode(c)
}

// controlEscapes are what \b, \f, \n, \r and \t stand for, in that order.
const controlEscapes = "\b\f\n\r\t"

func escapeLen(esc []byte) int {
	if len(esc) >= 2 && esc[1] == 'u' {
		return 6
	}
	return 2
}

// decode feeds base64 text to the clip's bytes, skipping line breaks as
// base64.StdEncoding.DecodeString does: runs of whole groups in one call, the rest a
// character at a time. Only the audio limit and the body memory stop the read; anything else
// not base64 is kept as the clip's error, reported where the clip is used.
func (sc *chatScanner) decode(b64 []byte) error {
	for len(b64) > 0 && sc.bad == nil {
		if sc.padded {
			if b64[0] != '\r' && b64[0] != '\n' {
				sc.bad = base64.CorruptInputError(sc.b64n)
			}
			sc.b64n++
			b64 = b64[1:]
			continue
		}
		if sc.nquad == 0 {
			run := len(b64)
			if k := bytes.IndexAny(b64, "\r\n"); k >= 0 {
				run = k
			}
			run = min(run, (sc.maxAudio-len(sc.wav)+3)/3*4) &^ 3
			if run > 0 {
				if err := sc.decodeRun(b64[:run]); err != nil {
					return err
				}
				b64 = b64[run:]
				continue
			}
		}
		c := b64[0]
		b64 = b64[1:]
		sc.b64n++
		if c == '\r' || c == '\n' {
			continue
		}
		sc.quad[sc.nquad] = c
		if sc.nquad++; sc.nquad == 4 {
			sc.nquad = 0
			sc.b64n -= 4
			if err := sc.decodeRun(sc.quad[:]); err != nil {
				return err
			}
		}
	}
	return nil
}

// decodeRun decodes whole groups of base64 onto the clip.
func (sc *chatScanner) decodeRun(run []byte) error {
	if err := sc.grow(base64.StdEncoding.DecodedLen(len(run))); err != nil {
		return err
	}
	n, err := base64.StdEncoding.Decode(sc.wav[len(sc.wav):cap(sc.wav)], run)
	if err != nil {
		var at base64.CorruptInputError
		if errors.As(err, &at) {
			err = base64.CorruptInputError(sc.b64n + int(at))
		}
		sc.bad = err
		return nil
	}
	sc.b64n += len(run)
	sc.padded = n < len(run)/4*3
	if len(sc.wav)+n > sc.maxAudio {
		return errAudioTooLarge(sc.maxAudio)
	}
	sc.wav = sc.wav[:len(sc.wav)+n]
	if !sc.header {
		return sc.checkHeader()
	}
	return nil
}

// grow makes room for n more bytes of clip (up to the audio limit, past which decodeRun
// refuses), from the bytes decoded so far: a clip of three bytes holds three (with a floor
// per string, 4,000 tiny clips in a 127 KB body held the whole bound).
func (sc *chatScanner) grow(n int) error {
	var err error
	sc.wav, err = grow(sc.acct, sc.wav, len(sc.wav)+n, sc.maxAudio+3)
	return err
}

// checkHeader refuses a WAV whose header declares a chunk ending past the audio limit, once
// the chunk headers before the data chunk's are in.
func (sc *chatScanner) checkHeader() error {
	w := sc.wav
	if len(w) < 12 {
		return nil
	}
	if string(w[0:4]) != "RIFF" || string(w[8:12]) != "WAVE" {
		sc.header = true // not a WAV: DecodeWAV says so once it is complete
		return nil
	}
	for off := 12; off+8 <= len(w); {
		id, size := string(w[off:off+4]), int(binary.LittleEndian.Uint32(w[off+4:off+8]))
		if end := off + 8 + size; end > sc.maxAudio {
			return newError(http.StatusRequestEntityTooLarge, contract.CodeRequestTooLarge,
				"input_audio's WAV chunk %q declares %d bytes, ending past the audio limit of %d bytes", id, size, sc.maxAudio)
		}
		if id == "data" {
			sc.header = true
			return nil
		}
		off += 8 + size + size%2
	}
	return nil
}

func errAudioTooLarge(limit int) error {
	return newError(http.StatusRequestEntityTooLarge, contract.CodeRequestTooLarge, "input_audio decodes to more than the audio limit of %d bytes", limit)
}

// textSlack is what the text may grow by beyond the bytes scanned: a placeholder is up to
// three bytes longer than the quote it starts at ("#31), and a pending escape sequence of the
// chunk before is copied with the chunk it ends in.
const textSlack = 4*maxChatAudios + 8

// roomForText grows the text buffer (grow: from the body memory, outgrown buffers counted) to
// hold what scanning n more bytes can add, so that no append moves it uncounted.
func (sc *chatScanner) roomForText(n int) error {
	var err error
	sc.out.text, err = grow(sc.acct, sc.out.text, len(sc.out.text)+n+textSlack, chatTextBytes+n+textSlack)
	return err
}
