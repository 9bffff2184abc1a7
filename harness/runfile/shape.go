package runfile

import (
	"bufio"
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
	br := bufio.NewReaderSize(r, 64<<10)
	lines, values := 0, 1
	inString, escaped := false, false
	for {
		c, err := br.ReadByte()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		switch {
		case inString:
			inString = escaped || c != '"'
			escaped = !escaped && c == '\\'
			if c == '\n' {
				lines++
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[' || c == ',' || c == '\n':
			values++
			if c == '\n' {
				lines++
			}
		}
		if k.MaxLines() > 0 && lines > k.MaxLines() {
			return &Error{path, fmt.Sprintf("more than %d lines, over the line cap of its kind (%s)", k.MaxLines(), k)}
		}
		if k.MaxValues() > 0 && values > k.MaxValues() {
			return &Error{path, fmt.Sprintf("more than %d JSON values, over the value cap of its kind (%s)", k.MaxValues(), k)}
		}
	}
}
