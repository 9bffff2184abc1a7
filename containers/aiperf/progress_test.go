package aiperf

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestProgressReportsAnsweredOfTotal(t *testing.T) {
	var mu sync.Mutex
	var lines []string
	answered := 0
	ctx, cancel := context.WithCancel(context.Background())
	p := Progress{Every: time.Millisecond, Total: 60,
		Done: func(context.Context) (int, error) {
			mu.Lock()
			defer mu.Unlock()
			answered += 20
			if answered == 40 {
				return 0, errors.New("records not readable yet")
			}
			return answered, nil
		},
		Logf: func(format string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			lines = append(lines, fmt.Sprintf(format, args...))
			if len(lines) == 3 {
				cancel()
			}
		}}
	p.report(ctx, time.Now())
	mu.Lock()
	defer mu.Unlock()
	if len(lines) != 3 {
		t.Fatalf("lines %q, want 3 before the run ended", lines)
	}
	for i, want := range []string{"20/60 requests answered", "progress unknown (records not readable yet)", "60/60 requests answered"} {
		if !strings.HasPrefix(lines[i], "[aiperf] ") || !strings.HasSuffix(lines[i], want) {
			t.Errorf("line %d = %q, want it to end with %q", i, lines[i], want)
		}
	}
}

// The counter never reads above its total, whatever Done returns.
func TestProgressNeverAboveItsTotal(t *testing.T) {
	var lines []string
	ctx, cancel := context.WithCancel(context.Background())
	p := Progress{Every: time.Millisecond, Total: 45,
		Done: func(context.Context) (int, error) { return 415, nil },
		Logf: func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)); cancel() }}
	p.report(ctx, time.Now())
	if len(lines) != 1 || !strings.HasSuffix(lines[0], ": 45/45 requests answered (370 more records than requests sent)") {
		t.Errorf("lines %q", lines)
	}
}
