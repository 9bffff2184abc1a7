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
