package runfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// checkShape reads r once and refuses more lines or JSON values than k allows, before anything
// parses them: bytes alone do not bound memory (64 MiB of one-member JSON objects decodes to
// nearly 1 GiB). Values are counted from the structure outside strings: every object and array
// opened, and every comma or newline between values, so the count is an upper bound of what a
// decoder allocates, without decoding.
func checkShape(path string, r io.Reader, k Kind) error {
	if k.MaxLines() == 0 && k.MaxValues() == 0 {
		return nil
	}
	s := shape{values: 1}
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		s.scan(buf[:n])
		if over := s.over(path, k); over != nil {
			return over
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
	}
}

// checkShapeBytes is checkShape over a file already read whole.
func checkShapeBytes(path string, data []byte, k Kind) error {
	if k.MaxLines() == 0 && k.MaxValues() == 0 {
		return nil
	}
	s := shape{values: 1}
	s.scan(data)
	return s.over(path, k)
}

// shape counts a JSON or JSONL stream's lines and values, fed in pieces split anywhere.
type shape struct {
	lines, values     int
	inString, escaped bool // escaped: the last byte in a string was a backslash that escapes the next
}

// over is the error for counts past k's caps, or nil.
func (s *shape) over(path string, k Kind) error {
	if k.MaxLines() > 0 && s.lines > k.MaxLines() {
		return &Error{path, fmt.Sprintf("more than %d lines, over the line cap of its kind (%s)", k.MaxLines(), k)}
	}
	if k.MaxValues() > 0 && s.values > k.MaxValues() {
		return &Error{path, fmt.Sprintf("more than %d JSON values, over the value cap of its kind (%s)", k.MaxValues(), k)}
	}
	return nil
}

// scan counts b. Inside a string only newlines count, so a string's body is skipped to its next
// quote or backslash with IndexByte (vectorised): the bulk of a run's JSON is long strings
// (base64 payloads), and a per-byte loop over them was most of verify's time.
func (s *shape) scan(b []byte) {
	for i := 0; i < len(b); {
		if s.inString {
			if s.escaped { // the escaped byte, whatever it is, stays in the string
				s.escaped = false
				if b[i] == '\n' {
					s.lines++
				}
				i++
				continue
			}
			body := b[i:]
			if q := bytes.IndexByte(body, '"'); q >= 0 {
				body = body[:q]
			}
			if e := bytes.IndexByte(body, '\\'); e >= 0 {
				body = body[:e]
			}
			s.lines += bytes.Count(body, []byte{'\n'})
			i += len(body)
			if i < len(b) { // a quote ends the string, a backslash escapes the next byte
				s.inString = b[i] != '"'
				s.escaped = b[i] == '\\'
				i++
			}
			continue
		}
		switch b[i] {
		case '"':
			s.inString = true
		case '{', '[', ',':
			s.values++
		case '\n':
			s.values++
			s.lines++
		}
		i++
	}
}
