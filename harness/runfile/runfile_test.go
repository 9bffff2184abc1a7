package runfile_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/internal/runfixture"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
)

// Every kind a name selects has a name and a positive cap, and the names the suites write map to
// the kind that caps them.
func TestKindOfTheNamesARunHolds(t *testing.T) {
	for rel, want := range map[string]runfile.Kind{
		"evidence.json": runfile.Evidence, "asr/stage.json": runfile.Evidence, "attestation.dsse.json": runfile.Signature,
		"attestation.pub.pem": runfile.PublicKey, "asr/p/server-records.jsonl": runfile.Records, "asr/p/aiperf/inputs.json": runfile.JSON,
		"junit/asr.xml": runfile.JUnit, "qualification.md": runfile.Markdown, "report.html": runfile.HTML, "asr/p/latency.svg": runfile.SVG,
		"asr/p/timeline-run-01.png": runfile.PNG, "asr/p/clip.WAV": runfile.WAV, "asr/p/server.log": runfile.Text,
		"asr/p/gate.stdout.txt": runfile.Text, "asr/p/p.bundle": runfile.Bundle, "asr/p/README": runfile.Other,
	} {
		if got := runfile.KindOf(rel); got != want {
			t.Errorf("KindOf(%s) = %s, want %s", rel, got, want)
		}
	}
	for _, k := range runfile.Kinds() {
		if k.String() == "" || k.MaxBytes() <= 0 {
			t.Errorf("kind %d: name %q, cap %d", k, k, k.MaxBytes())
		}
	}
}

// Open and runfile.Read refuse a link (even to a regular file), a FIFO (without blocking), a device, a
// directory and an oversize file, each naming why; a regular file under its cap is read whole.
func TestReadRefusesWhatIsNotABoundedRegularFile(t *testing.T) {
	dir := t.TempDir()
	file := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ok := file("evidence.json", []byte("{}\n"))
	if data, err := runfile.Read(ok, runfile.Evidence); err != nil || string(data) != "{}\n" {
		t.Fatalf("a regular file: %q %v", data, err)
	}
	link := filepath.Join(dir, "link.json")
	fifo := filepath.Join(dir, "fifo.json")
	mustNil(t, os.Symlink(ok, link), syscall.Mkfifo(fifo, 0o644), os.Mkdir(filepath.Join(dir, "sub.json"), 0o755))
	over := file("over.json", nil)
	mustNil(t, os.Truncate(over, runfile.Evidence.MaxBytes()+1))
	lines := file("r.jsonl", bytes.Repeat([]byte("{}\n"), runfile.Records.MaxLines()+1))
	// A million values in 2 MB; commas inside a string are not values.
	values := file("v.json", []byte("[\"a,b,\\\",c\","+strings.Repeat("1,", runfile.Evidence.MaxValues())+"1]"))
	for path, want := range map[string]string{
		link: "a symbolic link", fifo: "a named pipe", "/dev/zero": "a device", filepath.Join(dir, "sub.json"): "a directory",
		over: "over the 33554432-byte cap of its kind", lines: "more than 100000 lines, over the line cap", values: "more than 1000000 JSON values",
	} {
		k := runfile.Evidence
		if path == lines {
			k = runfile.Records
		}
		_, err := runfile.Read(path, k)
		var e *runfile.Error
		if !errors.As(err, &e) || !strings.Contains(err.Error(), want) || e.Path != path {
			t.Errorf("Read(%s): %v, want a refusal saying %q", path, err, want)
		}
	}
}

// runfile.ReadIn refuses a path that leaves the run or passes through a linked directory.
func TestReadInStaysInsideTheRun(t *testing.T) {
	run, elsewhere := t.TempDir(), t.TempDir()
	mustNil(t, os.WriteFile(filepath.Join(elsewhere, "stage.json"), []byte("{}"), 0o644), os.Symlink(elsewhere, filepath.Join(run, "asr")))
	for _, rel := range []string{"../x.json", "/etc/passwd", "asr/stage.json"} {
		if _, err := runfile.ReadIn(run, rel); err == nil {
			t.Errorf("ReadIn(%s) read outside the run", rel)
		}
	}
}

// A runfile.PNG is decoded only after the size it declares is checked: a bomb's header is refused
// before any pixel is allocated, an ordinary image decodes.
func TestDecodePNGChecksTheDeclaredSizeFirst(t *testing.T) {
	if _, err := runfile.DecodePNG(runfixture.SmallPNG()); err != nil {
		t.Fatalf("a 4×4 runfile.PNG: %v", err)
	}
	for _, size := range [][2]uint32{{100000, 100000}, {2049, 2048}, {1 << 30, 8}} {
		_, err := runfile.DecodePNG(runfixture.PNGDeclaring(size[0], size[1]))
		if err == nil || !strings.Contains(err.Error(), "over the 4194304-pixel cap") {
			t.Errorf("PNG declaring %d×%d: %v", size[0], size[1], err)
		}
	}
	if _, err := runfile.DecodePNG([]byte("not a png")); err == nil {
		t.Error("junk decoded as a runfile.PNG")
	}
}

// runfile.CheckTree names every refused entry of a run (links, FIFOs, oversize files, line and runfile.PNG
// bombs) without opening a FIFO, and admits a tree of bounded regular files.
func TestCheckTreeNamesEveryRefusedFile(t *testing.T) {
	run := t.TempDir()
	write := func(rel string, data []byte) {
		p := filepath.Join(run, rel)
		mustNil(t, os.MkdirAll(filepath.Dir(p), 0o755), os.WriteFile(p, data, 0o644))
	}
	write("evidence.json", []byte("{}"))
	write("asr/p/timeline-run-01.png", runfixture.SmallPNG())
	if err := runfile.CheckTree(run); err != nil {
		t.Fatalf("a clean tree: %v", err)
	}
	write("asr/p/server-records.jsonl", bytes.Repeat([]byte("{}\n"), runfile.Records.MaxLines()+1))
	write("asr/p/bomb.png", runfixture.PNGDeclaring(100000, 100000))
	write("asr/p/big.svg", nil)
	mustNil(t, os.Truncate(filepath.Join(run, "asr/p/big.svg"), runfile.SVG.MaxBytes()+1),
		os.Symlink("/dev/zero", filepath.Join(run, "attestation.pub.pem")), syscall.Mkfifo(filepath.Join(run, "asr/stage.json"), 0o644),
		os.Symlink(t.TempDir(), filepath.Join(run, "junit")))
	err := runfile.CheckTree(run)
	var te *runfile.TreeError
	if !errors.As(err, &te) || len(te.Refused) != 6 {
		t.Fatalf("want 6 refused entries, got %v", err)
	}
	for _, want := range []string{"asr/p/server-records.jsonl: more than 100000 lines", "asr/p/bomb.png: PNG declares 100000×100000",
		"asr/p/big.svg: 16777217 bytes", "attestation.pub.pem: not a regular file (a symbolic link)",
		"asr/stage.json: not a regular file (a named pipe)", "junit: not a regular file (a symbolic link)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal does not say %q:\n%v", want, err)
		}
	}
}

func mustNil(t *testing.T, errs ...error) {
	t.Helper()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}
