package bundle

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeSample(t *testing.T) (string, []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "x.bundle")
	h := Header{Family: "fam", Task: "transcription", Backend: "test", Precision: "fp32", Profile: "p", Checkpoint: "c", Revision: "r1"}
	if err := WriteFile(path, h, map[string][]byte{"b": []byte("bravo"), "a": []byte("alpha-section")}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, data
}

func TestRoundTrip(t *testing.T) {
	path, data := writeSample(t)
	if !bytes.HasPrefix(data, []byte("BUNDLE\x01\x00")) {
		t.Fatalf("magic missing: % x", data[:8])
	}
	b, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if b.Header.Format != 1 || b.Header.Family != "fam" || b.Header.Revision != "r1" || b.Header.Profile != "p" {
		t.Fatalf("header = %+v", b.Header)
	}
	for name, want := range map[string]string{"a": "alpha-section", "b": "bravo"} {
		got, err := b.Section(name)
		if err != nil || string(got) != want {
			t.Errorf("section %s = %q, %v", name, got, err)
		}
	}
	if _, err := b.Section("missing"); err == nil {
		t.Error("missing section returned no error")
	}
	sum, err := FileSHA256(path)
	if err != nil || sum != b.SHA256 {
		t.Errorf("FileSHA256 %s, Open %s (%v)", sum, b.SHA256, err)
	}
	if _, err := os.Stat(path + ".partial"); !os.IsNotExist(err) {
		t.Error("temporary file left behind")
	}
}

func TestCorruptTruncatedAndForeignFilesAreRefused(t *testing.T) {
	_, good := writeSample(t)
	flipLast := append([]byte(nil), good...)
	flipLast[len(flipLast)-1] ^= 0xff
	hugeHeader := append([]byte(nil), good...)
	hugeHeader[15] = 0x7f
	badJSON := append([]byte(nil), good...)
	badJSON[16] = '['
	cases := map[string]struct {
		data []byte
		want string
	}{
		"foreign":        {[]byte("RIFF....WAVEfmt not a bundle at all"), "not a bundle"},
		"empty":          {nil, "not a bundle"},
		"truncated":      {good[:len(good)-3], "truncated bundle"},
		"header-cut":     {good[:20], "header length"},
		"flipped-byte":   {flipLast, "does not match its sha256"},
		"huge-header":    {hugeHeader, "header length"},
		"corrupt-header": {badJSON, "corrupt bundle header"},
	}
	for name, c := range cases {
		_, err := Parse(c.data)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to mention %q", name, err, c.want)
		}
	}
}
