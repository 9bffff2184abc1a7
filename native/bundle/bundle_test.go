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

// TestTRTMCHeaderForms parses TRTMC's newer header (format, family, task, backend, sections)
// and its older one (model_id, model_type, precision, quantization, runtime_strategy, build
// environment): identity comes from the header; revision and profile are recorded beside it.
func TestTRTMCHeaderForms(t *testing.T) {
	payload := []byte("weights-bytes")
	for name, header := range map[string]string{
		"newer": `{"format":1,"family":"whisper","task":"transcription","backend":"tensorrt","sections":{"engine":{"offset":0,"length":13}}}`,
		"older": `{"format":1,"family":"stable_diffusion","task":"diffusion_media_generation","backend":"tensorrt","model_id":"sd15","model_type":"unet","precision":"fp16","quantization":"none","runtime_strategy":"tensorrt","build_env":{"trt":"10.9"},"sections":{"engine":{"offset":0,"length":13}}}`,
	} {
		var buf bytes.Buffer
		buf.WriteString(Magic)
		var n [8]byte
		for i := range n {
			n[i] = byte(uint64(len(header)) >> (8 * i))
		}
		buf.Write(n[:])
		buf.WriteString(header)
		buf.Write(payload)
		b, err := Parse(buf.Bytes())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sec, err := b.Section("engine")
		if err != nil || string(sec) != "weights-bytes" || b.Header.Family == "" || b.Header.Task == "" || b.Header.Backend != "tensorrt" || len(b.SHA256) != 64 {
			t.Errorf("%s: header %+v section %q err %v", name, b.Header, sec, err)
		}
		if b.Header.Revision != "" || b.Header.Profile != "" {
			t.Errorf("%s: a TRTMC header carries no revision or profile, got %+v", name, b.Header)
		}
	}
}
