package runfile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Error is a run file refused before its content was used.
type Error struct {
	Path string
	Why  string
}

func (e *Error) Error() string { return e.Path + ": " + e.Why }

// Open opens path as a run file of kind k: a regular file (a link, FIFO, device or socket is
// refused before it is opened), opened without following a link and without blocking, no larger
// than the kind's cap. The file opened must be the one examined.
func Open(path string, k Kind) (*os.File, error) {
	before, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if err := admit(path, before, k); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, &Error{path, fmt.Sprintf("not opened as a regular file: %v", err)}
	}
	after, err := f.Stat()
	if err == nil && !os.SameFile(before, after) {
		err = &Error{path, "replaced while it was being opened"}
	}
	if err == nil {
		err = admit(path, after, k)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// admit refuses what is not a regular file under the kind's byte cap.
func admit(path string, fi fs.FileInfo, k Kind) error {
	if !fi.Mode().IsRegular() {
		return &Error{path, fmt.Sprintf("not a regular file (%s); a run holds only regular files", typeName(fi.Mode()))}
	}
	if fi.Size() > k.MaxBytes() {
		return &Error{path, fmt.Sprintf("%d bytes, over the %d-byte cap of its kind (%s)", fi.Size(), k.MaxBytes(), k)}
	}
	return nil
}

func typeName(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	}
	return "mode " + m.String()
}

// Read reads a whole run file of kind k (Open's rules), and refuses more lines or JSON values
// than its kind allows before anything parses them.
func Read(path string, k Kind) ([]byte, error) {
	f, err := Open(path, k)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, k.MaxBytes()+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > k.MaxBytes() {
		return nil, &Error{path, fmt.Sprintf("grew past the %d-byte cap of its kind (%s) while it was read", k.MaxBytes(), k)}
	}
	if err := checkShapeBytes(path, data, k); err != nil {
		return nil, err
	}
	return data, nil
}

// ReadFile reads a run file, its kind taken from its name (KindOf).
func ReadFile(path string) ([]byte, error) { return Read(path, KindOf(path)) }

// ReadIn reads rel inside dir, refusing a rel that leaves dir or passes through a link.
func ReadIn(dir, rel string) ([]byte, error) {
	path, err := Inside(dir, rel)
	if err != nil {
		return nil, err
	}
	return Read(path, KindOf(rel))
}

// Inside is dir joined with rel when rel stays inside dir and no directory on the way is a link
// (a link inside a run can point anywhere, and what it points to can change).
func Inside(dir, rel string) (string, error) {
	rel = filepath.FromSlash(rel)
	if !filepath.IsLocal(rel) {
		return "", &Error{rel, "not a path inside the run directory"}
	}
	path := dir
	parts := strings.Split(rel, string(filepath.Separator))
	for _, part := range parts[:len(parts)-1] {
		path = filepath.Join(path, part)
		fi, err := os.Lstat(path)
		if err != nil {
			return "", err
		}
		if !fi.IsDir() {
			return "", &Error{path, fmt.Sprintf("not a directory (%s); a run holds only directories and regular files", typeName(fi.Mode()))}
		}
	}
	return filepath.Join(path, parts[len(parts)-1]), nil
}
