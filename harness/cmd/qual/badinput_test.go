package main

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/internal/runfixture"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
)

// The guards a bad input must stay within (the bound). They stop a child that hangs or
// grows, so that a regression fails the table instead of the machine.
const (
	badInputMemory  = 256 << 20
	badInputTimeout = 10 * time.Second
)

// childArgsEnv carries the child's qual arguments (separated by the unit separator, 0x1F).
const childArgsEnv = "BADINPUT_CHILD_ARGS"

// TestBadInputChild is the child process of TestBadInputsFailCleanly: qual with the arguments
// the table gives it, in a process of its own so its memory and time can be bounded.
func TestBadInputChild(t *testing.T) {
	args := os.Getenv(childArgsEnv)
	if args == "" {
		t.Skip("runs only as the child of TestBadInputsFailCleanly")
	}
	os.Exit(runQual(context.Background(), strings.Split(args, "\x1f"), os.Stdout, os.Stderr))
}

// outcome is how a child ended: its exit status, output, peak memory, and why the guard stopped
// it ("" when it ended by itself).
type outcome struct {
	code    int
	out     string
	peakRSS int64
	stopped string
}

// qualBounded runs qual in a child process, stopped when it passes badInputMemory or
// badInputTimeout.
func qualBounded(t *testing.T, args ...string) outcome {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestBadInputChild$")
	cmd.Env = append(os.Environ(), childArgsEnv+"="+strings.Join(args, "\x1f"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var o outcome
	deadline := time.After(badInputTimeout)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for o.stopped == "" {
		select {
		case <-done:
			o.code, o.out = cmd.ProcessState.ExitCode(), out.String()
			if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
				o.peakRSS = ru.Maxrss << 10
			}
			return o
		case <-deadline:
			o.stopped = fmt.Sprintf("still running after %s (blocked?)", badInputTimeout)
		case <-tick.C:
			if rss := residentBytes(cmd.Process.Pid); rss > badInputMemory {
				o.stopped = fmt.Sprintf("resident memory %d MiB, over %d MiB", rss>>20, badInputMemory>>20)
			}
		}
	}
	cmd.Process.Kill()
	<-done
	o.code, o.out = -1, out.String()
	return o
}

// residentBytes is a process's resident set (VmRSS), 0 when it cannot be read.
func residentBytes(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// badRunFiles are one file of every kind a run holds, at the places the suites write them, with
// ordinary content; the table replaces each in turn.
func badRunFiles(profile string) map[string][]byte {
	row := "asr/" + profile + "/"
	return map[string][]byte{
		row + "server-records.jsonl":                        []byte(`{"request_id":"r1","status":200}` + "\n"),
		row + "aiperf/artifacts/profile_export_aiperf.json": []byte(`{"records":{}}` + "\n"),
		"junit/asr-extra.xml":                               []byte(`<testsuites></testsuites>` + "\n"),
		row + "latency.svg":                                 []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>` + "\n"),
		row + "timeline-run-01.png":                         runfixture.SmallPNG(),
		row + "clip.wav":                                    []byte("RIFF\x24\x00\x00\x00WAVEfmt "),
		row + "gate.stdout.txt":                             []byte("gate passed\n"),
		row + profile + ".bundle":                           []byte("BUNDLE\x01\x00 not a real bundle"),
		row + "notes.bin":                                   []byte("other\n"),
	}
}

// attack is one way a file of the run is made bad.
type attack struct {
	name string
	// make replaces the file at path (of kind k) and says whether the run can be re-signed after
	// (a forger re-signs what the manifest admits).
	make func(t *testing.T, path string, k runfile.Kind) (resign bool)
	// refused: the run must be refused naming the file; otherwise only a clean end is required
	// (the file may be a parse error or a signature mismatch like any other edit).
	refused func(k runfile.Kind) bool
}

func attacks() []attack {
	always := func(runfile.Kind) bool { return true }
	return []attack{
		{"symlink to /dev/zero", func(t *testing.T, path string, _ runfile.Kind) bool {
			mustDo(t, os.Remove(path), os.Symlink("/dev/zero", path))
			return false
		}, always},
		{"FIFO", func(t *testing.T, path string, _ runfile.Kind) bool {
			mustDo(t, os.Remove(path), syscall.Mkfifo(path, 0o644))
			return false
		}, always},
		{"oversize (sparse, one byte over the kind's cap)", func(t *testing.T, path string, k runfile.Kind) bool {
			mustDo(t, os.Truncate(path, k.MaxBytes()+1))
			return false // qual sign refuses it as verify does
		}, always},
		{"bomb (3 M junk records or values, a PNG declaring 100000×100000, 7 M nested brackets)", func(t *testing.T, path string, k runfile.Kind) bool {
			mustDo(t, os.WriteFile(path, bombOf(k), 0o644))
			return true
		}, func(k runfile.Kind) bool { return k.MaxLines() > 0 || k.MaxValues() > 0 || k == runfile.PNG }},
	}
}

// bombOf is content of kind k that is small on disk and expensive to parse.
func bombOf(k runfile.Kind) []byte {
	switch k {
	case runfile.Records:
		return bytes.Repeat([]byte("{\"m\":1}\n"), 3_000_000)
	case runfile.Evidence, runfile.Signature, runfile.JSON:
		return append(append([]byte(`{"data":[`), bytes.Repeat([]byte(`{"m":1},`), 3_000_000)...), `{}]}`...)
	case runfile.PNG:
		return runfixture.PNGDeclaring(100000, 100000)
	case runfile.WAV:
		return append([]byte("RIFF\xff\xff\xff\xffWAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x80\x3e\x00\x00\x00\x7d\x00\x00\x02\x00\x10\x00data\xff\xff\xff\xff"), make([]byte, 64)...)
	}
	return bytes.Repeat([]byte("["), 7<<20)
}

func mustDo(t *testing.T, errs ...error) {
	t.Helper()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestBadInputsFailCleanly attacks every kind of run file with every bad input, and requires
// verify, report, compare and merge to end on their own (no hang, no crash, within
// badInputMemory) with a clear error; a link, FIFO, oversize file, junk-record or PNG bomb must be
// refused naming the file.
func TestBadInputsFailCleanly(t *testing.T) {
	if testing.Short() {
		t.Skip("runs qual in a child process per case")
	}
	useTarget(t, "reference.yaml", "")
	base, _ := plannedStageRun(t, "asr", "")
	profile := firstRowDir(t, base)
	files := badRunFiles(profile)
	for rel, data := range files {
		mustDo(t, os.MkdirAll(filepath.Dir(filepath.Join(base, rel)), 0o755), os.WriteFile(filepath.Join(base, rel), data, 0o644))
	}
	if code, _, errOut := qualRun(t, "report", "--fail-on", "failed", base); code != exitOK {
		t.Fatalf("report of the base run: exit %d %s", code, errOut)
	}
	key := filepath.Join(t.TempDir(), "forger")
	if _, err := writeKeyPair(key); err != nil {
		t.Fatal(err)
	}
	sign := func(t *testing.T, dir string) {
		t.Helper()
		if code, _, errOut := qualRun(t, "sign", "--key-file", key, dir); code != exitOK {
			t.Fatalf("sign %s: exit %d %s", dir, code, errOut)
		}
	}
	sign(t, base)
	if o := qualBounded(t, "verify", "--key", key+".pub", base); o.stopped != "" || strings.Contains(o.out, "refused before reading") {
		t.Fatalf("the base run is refused or stopped (%s):\n%s", o.stopped, o.out)
	}
	for _, rel := range append(slices.Sorted(maps.Keys(files)), "evidence.json", "asr/stage.json", "qualification.md", "report.html", "attestation.dsse.json", "attestation.pub.pem") {
		k := runfile.KindOf(rel)
		for _, a := range attacks() {
			t.Run(rel+"/"+a.name, func(t *testing.T) {
				for _, command := range []string{"verify", "report", "compare", "merge"} {
					dir := filepath.Join(t.TempDir(), "run")
					mustDo(t, os.CopyFS(dir, os.DirFS(base)))
					if a.make(t, filepath.Join(dir, rel), k) && !strings.HasPrefix(rel, "attestation.") {
						// A forger re-signs what qual sign accepts; a bomb it refuses stays unsigned.
						qualRun(t, "sign", "--key-file", key, dir)
					}
					o := qualBounded(t, commandArgs(t, command, dir, base, key)...)
					checkOutcome(t, command, rel, k, a, o)
				}
			})
		}
	}
}

// commandArgs is the command line of one command over the attacked run.
func commandArgs(t *testing.T, command, dir, clean, key string) []string {
	switch command {
	case "verify":
		return []string{"verify", "--key", key + ".pub", dir}
	case "compare":
		return []string{"compare", clean, dir}
	case "merge":
		return []string{"merge", "--key", key + ".pub", "-o", filepath.Join(t.TempDir(), "merged"), dir}
	}
	return []string{command, dir}
}

// checkOutcome requires a clean end, and the refusal naming the file where the attack needs one.
func checkOutcome(t *testing.T, command, rel string, k runfile.Kind, a attack, o outcome) {
	t.Helper()
	crashed := strings.Contains(o.out, "panic:") || strings.Contains(o.out, "fatal error:") || strings.Contains(o.out, "goroutine ")
	switch {
	case o.stopped != "":
		t.Errorf("qual %s: stopped: %s\n%s", command, o.stopped, tailOf(o.out))
	case crashed:
		t.Errorf("qual %s crashed (exit %d):\n%s", command, o.code, tailOf(o.out))
	case o.peakRSS > badInputMemory:
		t.Errorf("qual %s: peak resident memory %d MiB", command, o.peakRSS>>20)
	case a.refused(k) && (o.code != exitFailed || !strings.Contains(o.out, rel) || !refusal(o.out)):
		t.Errorf("qual %s: exit %d, want 1 with a refusal naming %s:\n%s", command, o.code, rel, tailOf(o.out))
	}
	t.Logf("qual %s: exit %d, peak %d MiB", command, o.code, o.peakRSS>>20)
}

func refusal(out string) bool {
	return strings.Contains(out, "not a regular file") || strings.Contains(out, "cap")
}

func tailOf(s string) string {
	if len(s) > 1500 {
		return "…" + s[len(s)-1500:]
	}
	return s
}

// firstRowDir is a row directory name of the run's one stage (its first row's profile).
func firstRowDir(t *testing.T, dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, "asr", "stage.json"))
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte(`"profile": "`))
	if i < 0 {
		t.Fatalf("no row in %s", data)
	}
	rest := data[i+len(`"profile": "`):]
	return string(rest[:bytes.IndexByte(rest, '"')])
}
