//go:build qual_slowdown

package whisper

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/trtmc-qual/trtmc-qual/native/family/familytest"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// processCPU is the CPU time (user + system) every thread of this process has consumed; the
// workers are child processes and not in it.
func processCPU(t testing.TB) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestSlowdownSpendsItsShareInCPUTime: each slowed call consumes at least slowShare of its round
// trip in CPU time, measured as the process's CPU time, alone and with more concurrent callers
// than cores (where a wall-clock spin would get only part of a core and a sleep none).
func TestSlowdownSpendsItsShareInCPUTime(t *testing.T) {
	for _, callers := range []int{1, runtime.NumCPU(), 2*runtime.NumCPU() + 1} {
		for _, roundTrip := range []time.Duration{20 * time.Millisecond, 150 * time.Millisecond} {
			t.Run(fmt.Sprintf("%d callers, round trip %v", callers, roundTrip), func(t *testing.T) {
				budget := time.Duration(slowShare * float64(roundTrip))
				spent := make([]time.Duration, callers)
				errs := make([]error, callers)
				before := processCPU(t)
				var wg sync.WaitGroup
				for i := range callers {
					wg.Go(func() { spent[i], errs[i] = slowDown(slowProfile, roundTrip) })
				}
				wg.Wait()
				used := processCPU(t) - before
				for i := range callers {
					if errs[i] != nil || spent[i] < budget {
						t.Errorf("caller %d: spent %v of thread CPU, want ≥ %v (err %v)", i, spent[i], budget, errs[i])
					}
				}
				if want := time.Duration(callers) * budget; used < want {
					t.Errorf("the process consumed %v of CPU time for %d slowed calls, want ≥ %v", used, callers, want)
				}
			})
		}
	}
}

// TestSlowdownOnlyForItsProfile: every other profile of the family gets no extra work.
func TestSlowdownOnlyForItsProfile(t *testing.T) {
	all := manifestProfiles(t)
	if !slices.Contains(all, slowProfile) {
		t.Fatalf("slowProfile %q is not a profile of the family (%v)", slowProfile, all)
	}
	for _, p := range append(all, "") {
		if p == slowProfile {
			continue
		}
		if spent, err := slowDown(p, time.Second); spent != 0 || err != nil {
			t.Errorf("profile %q: spent %v (err %v), want no slowdown", p, spent, err)
		}
	}
}

// TestSlowTranscribeSpendsItsShareInTheCaller: through the real worker, the slowed Task calls
// still answer the upstream transcripts and the server process spends at least slowShare of the
// calls' round trips in CPU time (the worker's own CPU time is a child's, not counted here).
func TestSlowTranscribeSpendsItsShareInTheCaller(t *testing.T) {
	b, m := familytest.Build(t, Family{}, slowProfile)
	mdl, tr := load(t, b, 1)
	_, clips := clipsOf(t, m)
	want := upstreamTexts(t, m)
	before := processCPU(t)
	for i, c := range clips[:3] {
		out, err := tr.Transcribe(context.Background(), c, task.TranscribeConfig{})
		if err != nil || out.Text != want[i] {
			t.Fatalf("clip %d: %q, %v; want %q", i, out.Text, err, want[i])
		}
	}
	used := processCPU(t) - before
	calls := mdl.CallTimes()
	roundTrips := time.Duration(calls.RoundTripMS * float64(time.Millisecond))
	if share := time.Duration(slowShare * float64(roundTrips)); calls.Calls != 3 || used < share {
		t.Fatalf("%d calls, round trips %v: the process consumed %v of CPU time, want ≥ %v", calls.Calls, roundTrips, used, share)
	}
}
