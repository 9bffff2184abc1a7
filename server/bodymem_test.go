package server

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
)

// TestBodyMemoryBoundsBuffersAcrossRequests: two bodies share the bound; the one that would pass
// it is refused while it is read, and a released account gives its bytes back. A 200 KiB body
// holds its last buffer (doubling stops at the limit, one byte more than the body) and the
// 64 and 128 KiB ones it outgrew.
func TestBodyMemoryBoundsBuffersAcrossRequests(t *testing.T) {
	mem := &bodyMemory{limit: 600 << 10}
	a, b := &bodyAccount{mem: mem}, &bodyAccount{mem: mem}
	body := bytes.Repeat([]byte{'x'}, 200<<10)
	if got, err := readInto(bytes.NewReader(body), make([]byte, firstReadBytes), len(body)+1, nil, a); err != nil || len(got) != len(body) {
		t.Fatalf("first body: %d bytes, %v", len(got), err)
	}
	if want := int64(64<<10 + 128<<10 + len(body) + 1); a.held != want {
		t.Fatalf("first body holds %d bytes in its account, want %d (its buffer and the ones it outgrew)", a.held, want)
	}
	if _, err := readInto(bytes.NewReader(body), make([]byte, firstReadBytes), len(body)+1, nil, b); !errors.Is(err, errBodyMemory) {
		t.Fatalf("second body past the bound: %v, want errBodyMemory", err)
	}
	a.release()
	b.release()
	if used := mem.used.Load(); used != 0 {
		t.Fatalf("%d bytes still counted after release", used)
	}
	if _, err := readInto(bytes.NewReader(body), make([]byte, firstReadBytes), len(body)+1, nil, b); err != nil {
		t.Fatalf("after release: %v", err)
	}
}

// Every count limit refuses one element past it with 413 too_many_elements and takes the
// limit itself, on each path that reads the element.
func TestCountLimitsAreExact(t *testing.T) {
	array := func(n int) []byte { return []byte(`{"a":[` + strings.TrimSuffix(strings.Repeat("0,", n), ",") + `]}`) }
	values := func(n int) []byte { // n values: the object, its arrays and their elements
		var b strings.Builder
		b.WriteString(`{`)
		left := n - 1
		for i := 0; left > 0; i++ {
			k := min(left-1, maxJSONArrayElements)
			fmt.Fprintf(&b, `%s"k%d":[%s]`, map[bool]string{true: ",", false: ""}[i > 0], i, strings.TrimSuffix(strings.Repeat("0,", k), ","))
			left -= k + 1
		}
		return []byte(b.String() + `}`)
	}
	clips := func(n int) []byte {
		return []byte(`{"messages":[{"content":[` + strings.TrimSuffix(strings.Repeat(`{"input_audio":{"data":"QUFB"}},`, n), ",") + `]}]}`)
	}
	checkKeys := func(b []byte) error { _, err := checkDuplicateKeys(b); return err }
	splitChat := func(b []byte) error { _, err := splitChatBody(bytes.NewReader(b), 1<<20, nil); return err }
	for _, c := range []struct {
		name  string
		limit int
		body  func(int) []byte
		read  func([]byte) error
	}{
		{"array elements, strict decode", maxJSONArrayElements, array, checkKeys},
		{"array elements, chat scanner", maxJSONArrayElements, array, splitChat},
		{"JSON values", maxJSONValues, values, checkKeys},
		{"chat clips", maxChatAudios, clips, splitChat},
	} {
		if err := c.read(c.body(c.limit)); err != nil {
			t.Errorf("%s: %d: %v, want accepted", c.name, c.limit, err)
		}
		var ae *apiError
		if err := c.read(c.body(c.limit + 1)); !errors.As(err, &ae) || ae.Status != 413 || ae.Code != contract.CodeTooManyElements {
			t.Errorf("%s: %d: %v, want 413 %s", c.name, c.limit+1, err, contract.CodeTooManyElements)
		}
	}
}

// A chat clip's buffer grows from what was decoded: 32 clips of 3 bytes hold a few KiB, not
// 32 buffers of 64 KiB; and the text beside the clips may be at most chatTextBytes.
func TestChatClipsHoldWhatTheyDecoded(t *testing.T) {
	acct := &bodyAccount{mem: &bodyMemory{limit: 1 << 30}}
	body := `{"messages":[{"content":[` + strings.TrimSuffix(strings.Repeat(`{"input_audio":{"data":"QUFB"}},`, maxChatAudios), ",") + `]}]}`
	if _, err := splitChatBody(strings.NewReader(body), 16<<20, acct); err != nil {
		t.Fatal(err)
	}
	if fixed := int64(32<<10 + 4<<10); acct.held > fixed { // the read chunk and the text
		t.Errorf("%d tiny clips hold %d bytes, want at most %d", maxChatAudios, acct.held, fixed)
	}
	long := `{"messages":[{"content":"` + strings.Repeat("x", chatTextBytes) + `"}]}`
	var ae *apiError
	if _, err := splitChatBody(strings.NewReader(long), 16<<20, nil); !errors.As(err, &ae) || ae.Code != contract.CodeRequestTooLarge {
		t.Errorf("text over %d bytes: %v, want 413 %s", chatTextBytes, err, contract.CodeRequestTooLarge)
	}
}

// partHeaderLimit cuts its reads at the end of each part's headers and gives the rest back
// to the content: every part must read as it does without it, whatever the read sizes, with a
// preamble holding a blank line and contents holding blank lines, boundary-like lines and
// header-like lines; and only header lines are charged.
func TestPartHeaderLimitKeepsTheParts(t *testing.T) {
	body := "preamble\r\n\r\na: b\r\n" +
		"--b\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nsphinx\n\n--x\r\nk: v\r\n\r\n" +
		"--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.wav\"\r\nContent-Type: audio/wav\r\n\r\n" + strings.Repeat("\n", 5000) + "\r\n" +
		"--b--\r\n"
	parts := func(r io.Reader) (got []string) {
		mr := multipart.NewReader(r, "b")
		limit, _ := r.(*partHeaderLimit)
		for {
			if limit != nil {
				limit.start()
			}
			part, err := mr.NextPart()
			if limit != nil {
				limit.budget = -1
			}
			if err == io.EOF {
				return got
			}
			if err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(part)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, fmt.Sprint(part.Header)+"|"+string(data))
		}
	}
	want := parts(strings.NewReader(body))
	for name, r := range map[string]func() io.Reader{
		"whole":    func() io.Reader { return strings.NewReader(body) },
		"one byte": func() io.Reader { return iotest.OneByteReader(strings.NewReader(body)) },
		"half":     func() io.Reader { return iotest.HalfReader(strings.NewReader(body)) },
	} {
		acct := &bodyAccount{mem: &bodyMemory{limit: 1 << 30}}
		got := parts(&partHeaderLimit{r: r(), acct: acct})
		if !slices.Equal(got, want) {
			t.Errorf("%s reads: parts %q, want %q", name, got, want)
		}
		// 3 preamble lines, 2 boundary lines, 3 header lines, and the bytes read for headers.
		if acct.held > int64(len(body))+8*partHeaderLineCost {
			t.Errorf("%s reads: %d bytes charged for a %d-byte body of 3 header lines", name, acct.held, len(body))
		}
	}
}
