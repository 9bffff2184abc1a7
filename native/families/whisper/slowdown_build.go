//go:build qual_slowdown

package whisper

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// A TEST BUILD ONLY (-tags qual_slowdown): whisper-tiny-en's Task does 20% more work, every other
// profile is untouched (a ~1 s Task: 20% is well above this 2-core machine's run-to-run spread,
// where sphinx-tidigits's ~10 ms Task could not be resolved in make qualify's runs). It exists to
// prove that `qual compare` turns exactly that checkpoint red against a normal build; a binary
// built this way must never qualify anything.
const slowProfile = "whisper-tiny-en"

// slowShare is the extra CPU time a slowed call spends, as a share of the CPU time its worker
// spent on the call.
const slowShare = 0.20

// startSlowdown makes a call of slowProfile cost what a 20% heavier model would. Called before
// the round trip with the worker's pid, it returns the finish to call after it: that reads the
// CPU time the worker consumed meanwhile and computes on the caller's goroutine for slowShare of
// it (burnCPU), returning the CPU time spent. The share is of the worker's CPU time, not of the
// round trip's wall time: on a loaded machine the wall time is mostly waiting for a core, and
// 20% of it was ≈ 3× the model's own compute (measured, harness/compare/README.md). Other
// profiles get a finish that does nothing.
func startSlowdown(profile string, workerPID int) func() (time.Duration, error) {
	if profile != slowProfile {
		return func() (time.Duration, error) { return 0, nil }
	}
	before, err := processCPU(workerPID)
	return func() (time.Duration, error) {
		after, err2 := processCPU(workerPID)
		if err := errors.Join(err, err2); err != nil {
			return 0, err
		}
		return burnCPU(time.Duration(slowShare * float64(after-before)))
	}
}

// burnCPU computes on the calling goroutine, locked to its OS thread, until that thread has
// consumed budget of CPU time, and returns the CPU time it consumed. CPU time, not a wall-clock
// deadline or a sleep: under contention the extra work waits for a core as more compute would.
// A sleep (this build's earlier form) gave its core to the other lane's worker, and at
// concurrency 2 on 2 cores the slowed build measured faster.
func burnCPU(budget time.Duration) (time.Duration, error) {
	runtime.LockOSThread() // the thread's CPU clock is this goroutine's while it is locked
	defer runtime.UnlockOSThread()
	start, err := threadCPU()
	if err != nil {
		return 0, err
	}
	h := uint64(14695981039346656037) // FNV-1a over a counter: work the compiler cannot drop
	for n := uint64(0); ; {
		for range 1 << 14 {
			h = (h ^ n) * 1099511628211
			n++
		}
		now, err := threadCPU()
		if err != nil {
			return now - start, err
		}
		if now-start >= budget {
			runtime.KeepAlive(h)
			return now - start, nil
		}
	}
}

// userHZ is the unit of /proc/<pid>/stat's CPU times (USER_HZ, 100 on every Linux ABI).
const userHZ = 100

// processCPU is the user + system CPU time process pid (every thread of it) has consumed, from
// /proc/<pid>/stat (fields 14 and 15, counted after the parenthesised command name).
func processCPU(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("qual_slowdown: worker CPU time: %w", err)
	}
	fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	if len(fields) < 13 {
		return 0, fmt.Errorf("qual_slowdown: /proc/%d/stat has %d fields after the name", pid, len(fields))
	}
	var ticks int64
	for _, f := range fields[11:13] { // utime, stime
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("qual_slowdown: /proc/%d/stat: %w", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / userHZ, nil
}

// threadCPU is the CPU time the calling OS thread has consumed.
func threadCPU() (time.Duration, error) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, fmt.Errorf("qual_slowdown: thread CPU clock: %w", err)
	}
	return time.Duration(ts.Nano()), nil
}
