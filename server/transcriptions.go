package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/native/audio"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// transcriptionForm is the parsed multipart body of /v1/audio/transcriptions.
type transcriptionForm struct {
	file           []byte
	clip           *audio.Stream // file, decoded and hashed as it arrived
	model          string
	language       string
	responseFormat string
	temperature    string
	prompt         string
	stream         string
	granularities  []string // timestamp_granularities[], one part per value
}

// transcriptionFieldsRefused are OpenAI transcription fields this server knows and cannot
// honour: refused as unsupported_option naming the parameter as OpenAI spells it (the SDKs
// send an array as repeated "name[]" parts).
var transcriptionFieldsRefused = map[string]string{"chunking_strategy": "chunking_strategy", "include[]": "include",
	"known_speaker_names[]": "known_speaker_names", "known_speaker_references[]": "known_speaker_references"}

// maxFieldBytes bounds every non-file form field.
const maxFieldBytes = 64 << 10

// parseTranscriptionForm reads the multipart body part by part, so that duplicate and unknown
// fields are refused by name rather than silently merged or ignored.
func (s *Server) parseTranscriptionForm(r *http.Request) (transcriptionForm, error) {
	var f transcriptionForm
	mediaType, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mediaType != "multipart/form-data" || params["boundary"] == "" {
		return f, badRequest(contract.CodeInvalidMultipart, "body must be multipart/form-data with a boundary (got %q)", r.Header.Get("Content-Type"))
	}
	acct := accountOf(r.Body)
	headers := &partHeaderLimit{r: r.Body, acct: acct}
	mr := multipart.NewReader(headers, params["boundary"])
	seen := map[string]bool{}
	fields := map[string]*string{"model": &f.model, "language": &f.language, "response_format": &f.responseFormat,
		"temperature": &f.temperature, "prompt": &f.prompt, "stream": &f.stream}
	for parts := 0; ; parts++ {
		headers.start()
		part, err := mr.NextPart()
		headers.budget = -1
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return f, bodyError(err, contract.CodeInvalidMultipart, "malformed multipart body: %v", err)
		}
		if parts == maxFormParts {
			return f, errTooMany(maxFormParts, "multipart parts")
		}
		name := part.FormName()
		if name == "timestamp_granularities[]" { // an array: one part per value
			v, err := readField(part, acct)
			if err != nil {
				return f, bodyError(err, contract.CodeInvalidMultipart, "reading field %q: %v", name, err)
			}
			f.granularities = append(f.granularities, v)
			continue
		}
		if param, ok := transcriptionFieldsRefused[name]; ok {
			return f, unsupported(param, "%s cannot be honored by this server", param)
		}
		if seen[name] {
			return f, badRequest(contract.CodeDuplicateField, "field %q appears more than once", name)
		}
		seen[name] = true
		switch dst, ok := fields[name]; {
		case name == "file":
			f.file, f.clip, err = s.readClip(part, r.ContentLength, acct)
			if err != nil {
				return f, bodyError(err, contract.CodeInvalidMultipart, "reading file: %v", err)
			}
		case ok:
			if *dst, err = readField(part, acct); err != nil {
				return f, bodyError(err, contract.CodeInvalidMultipart, "reading field %q: %v", name, err)
			}
		default:
			return f, badParam(contract.CodeUnknownField, name, "unknown field %q (accepted: file, model, language, response_format, temperature, prompt, stream, timestamp_granularities[])", name)
		}
	}
	if !seen["file"] {
		return f, badRequest(contract.CodeMissingField, "field \"file\" (the audio clip) is required")
	}
	return f, nil
}

// errTooLarge marks a part over its limit.
var errTooLarge = errors.New("too large")

// partHeaderLimit bounds what multipart reads while it looks for the next part (the rest of
// the boundary line and the part's headers; the parts before are read to their end): the
// textproto reader under it would hold a header line of up to 10 MiB, whatever the body
// memory says. budget < 0 is no limit (while a part's content is read).
//
// What it reads for the headers is taken from the account as it arrives, its bytes and
// partHeaderLineCost a line: the header map textproto builds from the lines is held while the
// client holds the rest (complete or not). A read stops at the blank line that ends the
// headers (the bytes after it are kept for the content), so that the part's content is never
// read ahead here and charged as header lines: a body of newlines would otherwise reserve 128
// times its bytes. A line starting with "--" (a boundary) starts the count again, so that a
// blank line in the preamble cannot end it before the first part's headers.
type partHeaderLimit struct {
	r       io.Reader
	acct    *bodyAccount
	budget  int
	pending []byte // read past the end of the headers: the next reads return it first
	// Where the reads are: the bytes of the current line (CR aside), its first byte, whether
	// a line ended before it, and whether the blank line that ends the headers was read.
	lineBytes int
	lead      byte
	lined     bool
	ended     bool
}

// partHeaderLineCost bounds what a header line costs beyond its bytes once parsed: a map
// entry, a key string and a value slot (~90 bytes for a line "a1:"; 16 KB of such lines
// built ~240 KB).
const partHeaderLineCost = 128

// start arms the limit for the next part's boundary and headers.
func (l *partHeaderLimit) start() {
	l.budget, l.lineBytes, l.lined, l.ended = maxPartHeaderBytes, 0, false, false
}

func (l *partHeaderLimit) Read(p []byte) (int, error) {
	if l.budget == 0 {
		return 0, fmt.Errorf("a multipart part's boundary and headers take more than %d bytes: %w", maxPartHeaderBytes, errTooLarge)
	}
	if l.budget > 0 {
		p = p[:min(len(p), l.budget)]
	}
	var n int
	var err error
	if len(l.pending) > 0 {
		n = copy(p, l.pending)
		l.pending = l.pending[n:]
	} else {
		n, err = l.r.Read(p)
	}
	if l.budget < 0 {
		return n, err
	}
	lines, end := l.headerLines(p[:n])
	if end < n { // the headers ended: the rest is the content's, read again after them
		l.pending = append(append([]byte(nil), p[end:n]...), l.pending...)
		n, err = end, nil
	}
	l.budget -= n
	if terr := l.acct.take(n + partHeaderLineCost*lines); terr != nil {
		return 0, terr
	}
	return n, err
}

// headerLines follows the lines of p: how many header lines end in it, and where the blank
// line that ends the headers ends (len(p) when it is not in p).
func (l *partHeaderLimit) headerLines(p []byte) (lines, end int) {
	for i, c := range p {
		switch {
		case c == '\n':
			if !l.ended && l.lined && l.lineBytes == 0 {
				l.ended = true
				return lines, i + 1
			}
			if !l.ended {
				lines++
			}
			l.lined, l.lineBytes = true, 0
		case c == '\r':
		default:
			if l.lineBytes == 0 {
				l.lead = c
			} else if l.lineBytes == 1 && l.lead == '-' && c == '-' {
				l.ended, l.lined = false, false // a boundary line: the headers follow it
			}
			l.lineBytes++
		}
	}
	return lines, len(p)
}

// readClip reads the audio file part into a buffer reused across requests, decoding and
// hashing its samples while the rest of it arrives (audio.Stream), so that neither is a pass of
// its own over the whole clip afterwards. Give the bytes back to s.uploads once decoded.
//
// Memory follows the bytes received, never the sizes a client declares: the buffer starts at
// 64 KiB and doubles as bytes arrive, and the streaming decode (whose sample buffer is sized
// from the WAV header) starts only once half of the declared body is in, so a stalled upload
// that claims 16 MiB holds about what it sent.
func (s *Server) readClip(r io.Reader, bodyLength int64, acct *bodyAccount) ([]byte, *audio.Stream, error) {
	if bodyLength <= 0 { // unknown length: read whole, decoded once complete
		end := int(s.cfg.MaxAudioBytes) + 1
		data, err := readInto(r, make([]byte, 0, min(end, firstReadBytes)), end, nil, acct)
		return data, audio.NewStream(0, nil), err
	}
	n := int(min(bodyLength, s.cfg.MaxAudioBytes))
	samples := accountedSamples(acct, s.samples.get)
	clip := audio.NewStream(n, samples.get) // samples are allocated only within what the body can hold
	arrived := func(b []byte) error {
		if len(b) >= n/2 {
			clip.Arrived(b)
		}
		return samples.err
	}
	data, err := readInto(r, s.uploads.get(min(n+1, firstReadBytes)), n+1, arrived, acct)
	return data, clip, err
}

// firstReadBytes is where a body buffer starts before it has seen how much actually arrives.
const firstReadBytes = 64 << 10

// readField reads a non-file form field of at most maxFieldBytes, its buffer grown from the
// bytes received and taken from the body memory.
func readField(r io.Reader, acct *bodyAccount) (string, error) {
	v, err := readInto(r, make([]byte, 0, 64), maxFieldBytes+1, nil, acct)
	return string(v), err
}

// bodyError turns a body read failure into 413 when a limit was hit, 408 when the body's read
// deadline passed, else the given 400.
func bodyError(err error, code, format string, args ...any) error {
	if ae := (*apiError)(nil); errors.As(err, &ae) { // already an answer (chat's audio limit)
		return ae
	}
	var maxErr *http.MaxBytesError
	if errors.As(err, &maxErr) || errors.Is(err, errTooLarge) {
		return newError(http.StatusRequestEntityTooLarge, contract.CodeRequestTooLarge, "request body over the limit")
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return newError(http.StatusRequestTimeout, contract.CodeRequestTimeout, "request body not received in time")
	}
	if errors.Is(err, net.ErrClosed) { // only a shutdown closes a connection under its handler
		return errShuttingDown()
	}
	if errors.Is(err, errBodyMemory) {
		return newError(http.StatusTooManyRequests, contract.CodeServerBusy, "%v: retry shortly", err)
	}
	if errors.Is(err, syscall.ECONNRESET) { // the client is gone, not its JSON malformed
		return errClientClosed("while sending its body")
	}
	return badRequest(code, format, args...)
}

// checkOptions applies the route's rules to the optional fields: stream false, temperature 0
// (checkTemperature, the rule chat follows too) and segment timestamps with verbose_json are
// what the server does anyway; any other value is refused, naming the parameter.
func (f transcriptionForm) checkOptions(format string) error {
	switch f.stream {
	case "", "false":
	case "true":
		return unsupported("stream", "stream cannot be honored: transcripts are returned whole")
	default:
		return badParam(contract.CodeInvalidValue, "stream", "stream %q is not true or false", f.stream)
	}
	if f.temperature != "" {
		t, err := strconv.ParseFloat(f.temperature, 64)
		if err != nil {
			return badParam(contract.CodeInvalidValue, "temperature", "temperature %q is not a number", f.temperature)
		}
		if err := checkTemperature(&t); err != nil {
			return err
		}
	}
	for _, g := range f.granularities {
		if g != "segment" {
			return unsupported("timestamp_granularities", "timestamp granularity %q cannot be honored: only \"segment\" (one segment over the clip)", g)
		}
		if format != "verbose_json" {
			return badParam(contract.CodeInvalidValue, "timestamp_granularities", "timestamp_granularities needs response_format verbose_json")
		}
	}
	return nil
}

func (s *Server) transcribe(x *exchange) (*reply, error) {
	form, err := s.parseTranscriptionForm(x.r)
	if err != nil {
		return nil, err
	}
	m, err := s.lookupModel(x, form.model)
	if err != nil {
		return nil, err
	}
	format := form.responseFormat
	if format == "" {
		format = "json"
	}
	if format != "json" && format != "text" && format != "verbose_json" {
		return nil, badParam(contract.CodeInvalidValue, "response_format", "response_format %q is not one of json, text, verbose_json", format)
	}
	if err := form.checkOptions(format); err != nil {
		return nil, err
	}
	if strings.TrimSpace(form.prompt) != "" {
		return nil, unsupported("prompt", "prompt cannot be honored: %s takes no decoding prompt", m.name)
	}
	clip, sha, err := finishClip(form.clip, form.file, accountOf(x.r.Body))
	s.uploads.put(form.file) // the clip's samples are a copy
	if err != nil {
		return nil, err
	}
	x.rec.InputSHA256 = sha
	tr, err := capability[task.Transcriber](m, task.SpeechTranscription)
	if err != nil {
		return nil, err
	}
	if err := audio.Validate(clip, tr.AudioSpec()); err != nil {
		return nil, err
	}
	var out task.Transcript
	seconds := clip.Seconds()
	err = s.callTask(x, m, string(task.SpeechTranscription), func(ctx context.Context) error {
		var terr error
		out, terr = tr.Transcribe(ctx, clip, task.TranscribeConfig{Language: form.language})
		return terr
	})
	// The samples go back to the pool once the Task call has returned (callTask returns only
	// then): a Transcriber does not keep them (sphinx converts them to int16, whisper encodes
	// them for its worker, both within the call).
	s.samples.put(clip.Samples)
	if err != nil {
		return nil, err
	}
	x.rec.Output = &contract.RecordOutput{Text: out.Text, AudioSeconds: seconds}
	switch format {
	case "text":
		return &reply{status: http.StatusOK, raw: []byte(out.Text), contentType: "text/plain; charset=utf-8"}, nil
	case "verbose_json":
		lang := form.language
		if lang == "" {
			lang, _ = m.bundle.Header.Settings["language"].(string)
		}
		// One segment over the whole clip: the Task gives no finer timing.
		return &reply{status: http.StatusOK, json: &contract.VerboseTranscriptionResponse{Task: "transcribe", Language: lang,
			Duration: seconds, Text: out.Text, Model: m.name,
			Segments: []contract.TranscriptionSegment{{ID: 0, Seek: 0, Start: 0, End: seconds, Text: out.Text, Temperature: 0}}}}, nil
	}
	return &reply{status: http.StatusOK, json: &contract.TranscriptionResponse{Text: out.Text}}, nil
}
