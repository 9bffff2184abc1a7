package bundle

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

func TestStatAgreesWithOpenAndRefusesWhatParseRefuses(t *testing.T) {
	path, data := writeSample(t)
	b, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	info, err := Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.SHA256 != b.SHA256 || info.Size != b.Size || info.Header.Family != b.Header.Family || len(info.Header.Sections) != 2 {
		t.Fatalf("Stat %+v, Open %+v", info, b)
	}
	// Every damage Parse refuses in the prefix, header or section bounds, Stat refuses too.
	for name, bad := range map[string][]byte{
		"magic":     append([]byte("BUNDLX\x01\x00"), data[8:]...),
		"short":     data[:10],
		"truncated": data[:len(data)-3],
		"header":    append(append(append([]byte{}, data[:16]...), 'x'), data[17:]...),
	} {
		p := filepath.Join(t.TempDir(), name+".bundle")
		if err := os.WriteFile(p, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, perr := Parse(bad); perr == nil {
			t.Fatalf("%s: Parse accepted it", name)
		}
		if _, err := Stat(p); err == nil {
			t.Errorf("%s: Stat accepted a bundle Parse refuses", name)
		}
	}
}

// sparseBundle writes a valid bundle whose one section makes the file size bytes long, without
// using the disk (a hole).
func sparseBundle(t *testing.T, dir string, size int64) string {
	t.Helper()
	hdr := func(payload int64) []byte {
		js, _ := json.Marshal(Header{Format: 1, Family: "f", Task: "transcription", Backend: "trt",
			Sections: map[string]Section{"engine": {Offset: 0, Length: payload}}})
		return js
	}
	js := hdr(0)
	for i := 0; i < 3; i++ { // the header's length depends on the payload length it names
		js = hdr(size - 16 - int64(len(js)))
	}
	path := filepath.Join(dir, "big.bundle")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	var prefix [16]byte
	copy(prefix[:], Magic)
	binary.LittleEndian.PutUint64(prefix[8:], uint64(len(js)))
	if _, err := f.Write(append(prefix[:], js...)); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestStatOfAnEightGiBBundleStaysUnder200MiB: the harness records a 30B-parameter model's bundle
// (about 110 GB for FLUX.2-dev) on hosts with less RAM than that. A child process Stats a sparse
// 8 GiB bundle; its peak resident set, as the kernel reports it, must stay under 200 MiB.
func TestStatOfAnEightGiBBundleStaysUnder200MiB(t *testing.T) {
	if path := os.Getenv("BUNDLE_STAT_CHILD"); path != "" {
		info, err := Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path+".size", []byte(strconv.FormatInt(info.Size, 10)), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	const size, limit = 8 << 30, 200 << 20
	path := sparseBundle(t, t.TempDir(), size)
	cmd := exec.Command(os.Args[0], "-test.run=^TestStatOfAnEightGiBBundleStaysUnder200MiB$")
	cmd.Env = append(os.Environ(), "BUNDLE_STAT_CHILD="+path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	got, err := os.ReadFile(path + ".size")
	if err != nil || string(got) != strconv.FormatInt(size, 10) {
		t.Fatalf("child read %q bytes (%v), want %d", got, err, size)
	}
	peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss * 1024 // Linux: kilobytes
	t.Logf("peak RSS while handling an 8 GiB bundle: %.1f MiB", float64(peak)/(1<<20))
	if peak >= limit {
		t.Fatalf("peak RSS %d bytes, want under %d", peak, limit)
	}
}
