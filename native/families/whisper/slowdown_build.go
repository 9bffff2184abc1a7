//go:build qual_slowdown

package whisper

import (
	"fmt"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// A TEST BUILD ONLY (-tags qual_slowdown): whisper-tiny-en's Task does 20% more work, every other
// profile is untouched (a ~1 s Task: 20% is well above this 2-core machine's run-to-run spread,
// where sphinx-tidigits's ~10 ms Task could not be resolved in make qualify's runs). It exists to
// prove that `qual compare` turns exactly that checkpoint red against a normal build; a binary
// built this way must never qualify anything.
const slowProfile = "whisper-tiny-en"

// slowShare is the extra CPU time a slowed call spends, as a share of its own worker round trip.
const slowShare = 0.20

// slowDown makes a call of slowProfile cost what a 20% heavier model would: after the round trip
// it computes on the caller's goroutine, locked to its OS thread, until that thread has spent
// slowShare × roundTrip of CPU time, and returns the CPU time spent. The budget is CPU time,
// not a wall-clock deadline or a sleep: under contention the extra work waits for a core as
// more compute would. A sleep (this build's earlier form) gave its core to the other lane's
// worker, and at concurrency 2 on 2 cores the slowed build measured faster.
func slowDown(profile string, roundTrip time.Duration) (time.Duration, error) {
	if profile != slowProfile {
		return 0, nil
	}
	runtime.LockOSThread() // the thread's CPU clock is this goroutine's while it is locked
	defer runtime.UnlockOSThread()
	budget := time.Duration(slowShare * float64(roundTrip))
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

// threadCPU is the CPU time the calling OS thread has consumed.
func threadCPU() (time.Duration, error) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, fmt.Errorf("qual_slowdown: thread CPU clock: %w", err)
	}
	return time.Duration(ts.Nano()), nil
}
