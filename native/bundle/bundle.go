// Package bundle reads and writes `.bundle` files in TRTMC's layout: the 8-byte magic
// "BUNDLE\x01\x00", a little-endian uint64 header length, a JSON header, then binary sections
// whose offsets count from the start of the payload (the byte after the header). Reference
// bundles are self-contained: every model file is a section, so the whole file's sha256
// identifies exactly what is served.
package bundle

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
)

// Magic opens every bundle.
const Magic = "BUNDLE\x01\x00"

// maxHeader bounds the JSON header so a foreign file cannot make us allocate gigabytes.
const maxHeader = 16 << 20

// Section locates one section in the payload. SHA256 is ours (TRTMC's header has none); when
// present it is verified on open so that a flipped byte is caught, not served.
type Section struct {
	Offset int64  `json:"offset"`
	Length int64  `json:"length"`
	SHA256 string `json:"sha256,omitempty"`
}

// Header is the JSON header. TRTMC's newer form has format/family/task/backend/sections; the
// reference target adds precision, profile, checkpoint, revision and the family's settings.
type Header struct {
	Format     int                `json:"format"`
	Family     string             `json:"family"`
	Task       string             `json:"task"`
	Backend    string             `json:"backend"`
	Precision  string             `json:"precision,omitempty"`
	Profile    string             `json:"profile,omitempty"`
	Checkpoint string             `json:"checkpoint,omitempty"`
	Revision   string             `json:"revision,omitempty"`
	Settings   map[string]any     `json:"settings,omitempty"`
	Sections   map[string]Section `json:"sections"`
}

// Bundle is an opened bundle file held in memory.
type Bundle struct {
	Path   string
	Header Header
	SHA256 string
	Size   int64
	data   []byte // payload
}

// Write encodes header and sections (section offsets, lengths and hashes are filled in).
func Write(w io.Writer, h Header, sections map[string][]byte) error {
	names := make([]string, 0, len(sections))
	for n := range sections {
		names = append(names, n)
	}
	sort.Strings(names)
	h.Format = 1
	h.Sections = make(map[string]Section, len(names))
	var off int64
	for _, n := range names {
		sum := sha256.Sum256(sections[n])
		h.Sections[n] = Section{Offset: off, Length: int64(len(sections[n])), SHA256: hex.EncodeToString(sum[:])}
		off += int64(len(sections[n]))
	}
	js, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("encode bundle header: %w", err)
	}
	var prefix [16]byte
	copy(prefix[:8], Magic)
	binary.LittleEndian.PutUint64(prefix[8:], uint64(len(js)))
	for _, part := range [][]byte{prefix[:], js} {
		if _, err := w.Write(part); err != nil {
			return fmt.Errorf("write bundle: %w", err)
		}
	}
	for _, n := range names {
		if _, err := w.Write(sections[n]); err != nil {
			return fmt.Errorf("write bundle section %q: %w", n, err)
		}
	}
	return nil
}

// WriteFile writes a bundle atomically (temp file + rename) so a crash never leaves a partial
// bundle under the final name.
func WriteFile(path string, h Header, sections map[string][]byte) error {
	tmp := path + ".partial"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("create bundle: %w", err)
	}
	if err := Write(f, h, sections); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close bundle: %w", err)
	}
	return os.Rename(tmp, path)
}

// Open reads and validates a bundle file.
func Open(path string) (*Bundle, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("open bundle: %w", err)
	}
	b, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", path, err)
	}
	b.Path = path
	return b, nil
}

// Parse validates bundle bytes: magic, header bounds, JSON, section bounds and section hashes.
func Parse(data []byte) (*Bundle, error) {
	h, err := readHeader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, err
	}
	hlen := binary.LittleEndian.Uint64(data[8:16])
	payload := data[16+hlen:]
	for name, s := range h.Sections {
		if s.SHA256 != "" {
			sum := sha256.Sum256(payload[s.Offset : s.Offset+s.Length])
			if hex.EncodeToString(sum[:]) != s.SHA256 {
				return nil, fmt.Errorf("corrupt bundle: section %q does not match its sha256", name)
			}
		}
	}
	sum := sha256.Sum256(data)
	return &Bundle{Header: h, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(data)), data: payload}, nil
}

// ReadHeader reads only the header at the start of r: what a bundle says it is, without loading
// its payload (a stored bundle can be gigabytes). The file's size is not known here, so section
// bounds are not checked against it (Stat checks them).
func ReadHeader(r io.Reader) (Header, error) { return readHeader(r, math.MaxInt64) }

// Section returns a section's bytes.
func (b *Bundle) Section(name string) ([]byte, error) {
	s, ok := b.Header.Sections[name]
	if !ok {
		return nil, fmt.Errorf("bundle has no section %q", name)
	}
	return b.data[s.Offset : s.Offset+s.Length], nil
}

// FileSHA256 hashes a file on disk (used to prove the served bundle is the gated one).
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
