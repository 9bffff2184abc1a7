package checkpoint

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// A step longer than the interval says it is still running, and says nothing after it ends.
func TestHeartbeatUntilTheStepEnds(t *testing.T) {
	var mu sync.Mutex
	var lines []string
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, fmt.Sprintf(format, args...))
	}
	stop := heartbeat(context.Background(), time.Millisecond, "family gate", logf)
	for {
		mu.Lock()
		n := len(lines)
		mu.Unlock()
		if n >= 3 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	stop()
	mu.Lock()
	after := len(lines)
	for _, l := range lines {
		if !strings.HasPrefix(l, "family gate: still running (") {
			t.Errorf("heartbeat line %q", l)
		}
	}
	mu.Unlock()
	time.Sleep(10 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if len(lines) != after {
		t.Errorf("%d heartbeat lines after the step ended", len(lines)-after)
	}
	if heartbeatEvery > 10*time.Second {
		t.Errorf("heartbeat every %s: a step may be silent longer than 10 s", heartbeatEvery)
	}
}

// The lines a user always sees (the row's first line, a heartbeat, the [time] line) go to the
// console; a step's detail goes to the log only. Without a console, everything is in the log.
func TestConsoleLinesAndDetailGoApart(t *testing.T) {
	var console, log strings.Builder
	c := &Checkpoint{Env: &Env{Stage: "asr", Log: &log, Console: &console}}
	c.Manifest.Name = "p"
	c.Row.Kind, c.Row.Counted = "full", true
	c.Announce(1, 2)
	c.sayf("[aiperf] 10s: 1/4 requests answered")
	c.logf("server ready in 1.0s")
	if want := "[asr/p] row 1/2 · asr · p (full, counted)\n[asr/p] [aiperf] 10s: 1/4 requests answered\n"; console.String() != want {
		t.Errorf("console %q, want %q", console.String(), want)
	}
	if log.String() != "[asr/p] server ready in 1.0s\n" {
		t.Errorf("log %q holds more than the detail", log.String())
	}
	log.Reset()
	c.Env.Console = nil
	c.Announce(2, 2)
	c.logf("detail")
	if log.String() != "[asr/p] row 2/2 · asr · p (full, counted)\n[asr/p] detail\n" {
		t.Errorf("no console: log %q", log.String())
	}
}
