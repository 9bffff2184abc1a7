//go:build qual_slowdown

package whisper

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/trtmc-qual/trtmc-qual/native/family/familytest"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// selfCPU is the CPU time (user + system) every thread of this process has consumed, from
// getrusage; the workers are child processes and not in it.
func selfCPU(t testing.TB) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestSlowdownSpendsItsShareInCPUTime: each burn consumes at least its budget in CPU time,
// measured as the process's CPU time, alone and with more concurrent callers than cores (where a
// wall-clock spin would get only part of a core and a sleep none).
func TestSlowdownSpendsItsShareInCPUTime(t *testing.T) {
	for _, callers := range []int{1, runtime.NumCPU(), 2*runtime.NumCPU() + 1} {
		for _, budget := range []time.Duration{4 * time.Millisecond, 30 * time.Millisecond} {
			t.Run(fmt.Sprintf("%d callers, budget %v", callers, budget), func(t *testing.T) {
				spent := make([]time.Duration, callers)
				errs := make([]error, callers)
				before := selfCPU(t)
				var wg sync.WaitGroup
				for i := range callers {
					wg.Go(func() { spent[i], errs[i] = burnCPU(budget) })
				}
				wg.Wait()
				used := selfCPU(t) - before
				for i := range callers {
					if errs[i] != nil || spent[i] < budget {
						t.Errorf("caller %d: spent %v of thread CPU, want ≥ %v (err %v)", i, spent[i], budget, errs[i])
					}
				}
				if want := time.Duration(callers) * budget; used < want {
					t.Errorf("the process consumed %v of CPU time for %d burns, want ≥ %v", used, callers, want)
				}
			})
		}
	}
}

// TestSlowdownReadsAProcessCPUTime: /proc/<pid>/stat read for this process lies between
// getrusage before and after it, less two USER_HZ ticks: utime and stime are each truncated to a
// tick (measured: 330 ms against getrusage's 341.6 ms, 11.6 ms short, on a loaded 2-core machine).
func TestSlowdownReadsAProcessCPUTime(t *testing.T) {
	if _, err := burnCPU(50 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	before := selfCPU(t)
	got, err := processCPU(os.Getpid())
	after := selfCPU(t)
	if err != nil || got < before-2*time.Second/userHZ || got > after {
		t.Fatalf("processCPU = %v (err %v), getrusage %v … %v", got, err, before, after)
	}
	if _, err := processCPU(-1); err == nil {
		t.Error("processCPU of no process: no error")
	}
}

// TestSlowdownFollowsTheWorkersCPUTimeNotTheWall: a worker that spends no CPU during a call (here
// a sleeping process) gets no extra work, however long the call took in wall time; 20% of the
// wall time would have been 60 ms of CPU.
func TestSlowdownFollowsTheWorkersCPUTimeNotTheWall(t *testing.T) {
	idle := exec.Command("sleep", "5")
	if err := idle.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idle.Process.Kill(); idle.Wait() })
	finish := startSlowdown(slowProfile, idle.Process.Pid)
	time.Sleep(300 * time.Millisecond) // the call's wall time
	if spent, err := finish(); err != nil || spent >= 20*time.Millisecond {
		t.Fatalf("an idle worker's call: spent %v (err %v), want less than one 10 ms tick's share", spent, err)
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
		finish := startSlowdown(p, os.Getpid())
		if _, err := burnCPU(20 * time.Millisecond); err != nil { // CPU the finish must not follow
			t.Fatal(err)
		}
		if spent, err := finish(); spent != 0 || err != nil {
			t.Errorf("profile %q: spent %v (err %v), want no slowdown", p, spent, err)
		}
	}
}

// TestSlowTranscribeSpendsItsShareInTheCaller: through the real worker, the slowed Task calls
// still answer the upstream transcripts and the server process spends at least slowShare of the
// CPU time the worker spent on them (the worker is a child process, not in getrusage's self).
func TestSlowTranscribeSpendsItsShareInTheCaller(t *testing.T) {
	b, m := familytest.Build(t, Family{}, slowProfile)
	mdl, tr := load(t, b, 1)
	_, clips := clipsOf(t, m)
	want := upstreamTexts(t, m)
	pid := mdl.WorkerPIDs()[0]
	workerBefore, err := processCPU(pid)
	if err != nil {
		t.Fatal(err)
	}
	before := selfCPU(t)
	for i, c := range clips[:3] {
		out, err := tr.Transcribe(context.Background(), c, task.TranscribeConfig{})
		if err != nil || out.Text != want[i] {
			t.Fatalf("clip %d: %q, %v; want %q", i, out.Text, err, want[i])
		}
	}
	used := selfCPU(t) - before
	workerAfter, err := processCPU(pid)
	if err != nil {
		t.Fatal(err)
	}
	worker := workerAfter - workerBefore
	if share := time.Duration(slowShare * float64(worker)); worker <= 0 || used < share {
		t.Fatalf("the worker consumed %v of CPU time on 3 calls, the server process %v; want ≥ %v", worker, used, share)
	}
}
