package bundle

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// Info is what the harness records of a bundle without loading it: its header, size and
// sha256. A TRTMC bundle of a 30B-parameter model is ~100 GB, so the harness never holds one in
// memory: Stat reads the 16-byte prefix and the header, checks every section lies inside the
// file, and hashes the file as a stream.
type Info struct {
	Path   string
	Header Header
	SHA256 string
	Size   int64
}

// Stat reads a bundle's header and hashes the whole file in bounded memory. It does not verify
// section hashes (Open does, for the runtime that loads the sections).
func Stat(path string) (*Info, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open bundle: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("open bundle: %w", err)
	}
	h, err := readHeader(f, fi.Size())
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", path, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("bundle %s: %w", path, err)
	}
	sum := sha256.New()
	n, err := io.Copy(sum, f)
	if err != nil {
		return nil, fmt.Errorf("hash %s: %w", path, err)
	}
	return &Info{Path: path, Header: h, SHA256: hex.EncodeToString(sum.Sum(nil)), Size: n}, nil
}

// readHeader reads and validates the prefix and header of a size-byte bundle, as Parse does,
// without reading the payload.
func readHeader(r io.Reader, size int64) (Header, error) {
	var h Header
	var prefix [16]byte
	if _, err := io.ReadFull(r, prefix[:]); err != nil || !bytes.Equal(prefix[:8], []byte(Magic)) {
		return h, fmt.Errorf("not a bundle: the file does not start with the BUNDLE\\x01\\x00 magic")
	}
	hlen := binary.LittleEndian.Uint64(prefix[8:])
	if hlen == 0 || hlen > maxHeader || hlen > uint64(size-16) {
		return h, fmt.Errorf("corrupt or truncated bundle: header length %d does not fit a %d-byte file", hlen, size)
	}
	js := make([]byte, hlen)
	if _, err := io.ReadFull(r, js); err != nil {
		return h, fmt.Errorf("truncated bundle header: %w", err)
	}
	if err := json.Unmarshal(js, &h); err != nil {
		return h, fmt.Errorf("corrupt bundle header: %w", err)
	}
	if h.Format != 1 {
		return h, fmt.Errorf("unsupported bundle format %d (this runtime reads format 1)", h.Format)
	}
	payload := size - 16 - int64(hlen)
	for name, s := range h.Sections {
		if s.Offset < 0 || s.Length < 0 || s.Offset+s.Length > payload {
			return h, fmt.Errorf("truncated bundle: section %q needs bytes %d..%d of a %d-byte payload", name, s.Offset, s.Offset+s.Length, payload)
		}
	}
	return h, nil
}
