package verify

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/attest"
	"github.com/trtmc-qual/trtmc-qual/harness/internal/runfixture"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
)

// A fuzzed run directory is written as entries, each a header line then its content:
//
//	-- NAME --          a regular file holding the lines up to the next header
//	-- NAME -> TARGET --  a symbolic link (TARGET /dev/zero or a name inside the run)
//	-- NAME | --        a FIFO
//
// Names that leave the directory are skipped, as are entries past the twentieth.
const maxFuzzEntries = 20

// fuzzHang is how long one fuzzed run may take before it counts as blocked (a FIFO opened).
const fuzzHang = 20 * time.Second

// materialize writes the run an archive describes into dir and returns the names of its
// entries that are not regular files (verify must refuse the run naming one of them).
func materialize(t *testing.T, dir string, archive []byte) (special []string) {
	var name string
	var content bytes.Buffer
	n := 0
	flush := func() {
		if name != "" {
			write(t, dir, name, content.Bytes())
		}
		name = ""
		content.Reset()
	}
	for _, line := range bytes.SplitAfter(archive, []byte("\n")) {
		header := strings.TrimSpace(string(line))
		if !strings.HasPrefix(header, "-- ") || !strings.HasSuffix(header, " --") || len(header) < 7 {
			content.Write(line)
			continue
		}
		flush()
		if n++; n > maxFuzzEntries {
			break
		}
		entry := strings.TrimSpace(header[3 : len(header)-3])
		if i := strings.Index(entry, " -> "); i >= 0 {
			link, target := strings.TrimSpace(entry[:i]), strings.TrimSpace(entry[i+4:])
			if localName(link) && (target == "/dev/zero" || localName(target)) && mkParent(dir, link) && os.Symlink(target, filepath.Join(dir, link)) == nil {
				special = append(special, link)
			}
			continue
		}
		if fifo, ok := strings.CutSuffix(entry, " |"); ok {
			if localName(fifo) && mkParent(dir, fifo) && syscall.Mkfifo(filepath.Join(dir, fifo), 0o644) == nil {
				special = append(special, fifo)
			}
			continue
		}
		if localName(entry) {
			name = entry
		}
	}
	flush()
	return special
}

func localName(name string) bool {
	return name != "" && filepath.IsLocal(name) && !strings.ContainsAny(name, "\x00\\")
}

func mkParent(dir, name string) bool {
	return os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755) == nil
}

// write writes one regular file, unless something is already at its name.
func write(t *testing.T, dir, name string, data []byte) {
	path := filepath.Join(dir, name)
	if !mkParent(dir, name) {
		return
	}
	if _, err := os.Lstat(path); err == nil {
		return
	}
	os.WriteFile(path, data, 0o644)
}

// seedArchive is a run holding the files of a small evidence run, plus extra entries.
func seedArchive(f *testing.F, extra string) []byte {
	dir := runfixture.WriteRun(f, "seed", runfixture.ASRRow("sphinx-en-us", runfixture.Golds(), 100))
	var b bytes.Buffer
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, path)
		b.WriteString("-- " + filepath.ToSlash(rel) + " --\n")
		b.Write(data)
		return nil
	})
	b.WriteString(extra)
	return b.Bytes()
}

// FuzzRunDirectory writes fuzzed run directories and runs verify's signature check and every
// recomputation over them: neither may panic, hang or grow without bound, and a run holding a
// link or FIFO is refused naming one before anything reads it. `go test` runs the seeds; `go test
// -fuzz FuzzRunDirectory ./harness/verify` explores.
func FuzzRunDirectory(f *testing.F) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	for _, extra := range []string{
		"",
		"-- asr/stage.json |  --\n",
		"-- attestation.pub.pem -> /dev/zero --\n",
		"-- asr/sphinx-en-us/server-records.jsonl -> ../../evidence.json --\n",
		"-- asr/sphinx-en-us/server-records.jsonl --\n" + strings.Repeat("{}\n", 64),
		"-- asr/sphinx-en-us/timeline-run-01.png --\n" + string(runfixture.PNGDeclaring(100000, 100000)),
		"-- qualification.md --\n" + strings.Repeat("[", 1<<16) + "\n",
		"-- attestation.dsse.json --\n{\"payloadType\":\"application/vnd.in-toto+json\",\"payload\":\"e30=\",\"signatures\":[{\"sig\":\"AA==\"}]}\n",
	} {
		f.Add(seedArchive(f, extra))
	}
	f.Add([]byte("-- evidence.json --\n" + strings.Repeat("[", 1<<16) + "\n"))
	f.Add([]byte("-- evidence.json -> /dev/zero --\n"))
	f.Fuzz(func(t *testing.T, archive []byte) {
		dir := t.TempDir()
		special := materialize(t, dir, archive)
		done := make(chan error, 1)
		go func() {
			if _, err := attest.Verify(context.Background(), dir, nil); err != nil {
				t.Logf("attest.Verify: %v", err) // an error, not a crash, is all a fuzzed run owes
			}
			_, err := Check(dir, Options{Root: root, RootFrom: "QUAL_ROOT"})
			done <- err
		}()
		var err error
		select {
		case err = <-done:
		case <-time.After(fuzzHang):
			t.Fatalf("verify did not end within %s on the run %q", fuzzHang, archive)
		}
		if len(special) == 0 {
			return
		}
		var refused *runfile.Error
		if !errors.As(err, &refused) || !namesOneOf(err.Error(), special) {
			t.Fatalf("a run holding %v: Check returned %v, want a refusal naming one", special, err)
		}
	})
}

func namesOneOf(s string, names []string) bool {
	for _, n := range names {
		if strings.Contains(s, n) {
			return true
		}
	}
	return false
}
