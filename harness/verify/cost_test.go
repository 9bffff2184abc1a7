//go:build unix

package verify

import (
	"syscall"
	"testing"
	"time"
)

// BenchmarkVerifyRealRun is `qual verify --key` (the signature with the pinned key, then every
// recomputation) on the real run QUAL_TEST_RUN names, once per iteration: the cost of one verify
// call, which `make qualify`'s verify step and every case of the tamper table pay. It reports the
// process's CPU seconds per call beside the wall time (the machine is shared; CPU time is what
// load does not inflate). Profile it with
// `go test -run '^$' -bench VerifyRealRun -benchtime 3x -cpuprofile cpu.out ./harness/verify`.
func BenchmarkVerifyRealRun(b *testing.B) {
	run := realRun(b)
	before := cpuTime(b)
	for b.Loop() {
		sig, ev := verifyAll(b, run.dir, run.pub)
		if len(sig)+len(ev) != 0 {
			b.Fatalf("the untouched run does not verify: %v %v", sig, ev)
		}
	}
	b.ReportMetric((cpuTime(b)-before).Seconds()/float64(b.N), "cpu-s/op")
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
