package main

import (
	"strings"
	"testing"
)

// TestConsoleStagesSayTheirScope: qual report's console never heads a run "qualification", and
// each stage line of a run measured below the target's load (whatever count was lowered) is
// followed by that stage's scope in the verdict's words, so a stage's QUALIFIED is never read
// alone; at the target's load (or above) no stage carries a scope line.
func TestConsoleStagesSayTheirScope(t *testing.T) {
	t.Setenv("QUAL_CACHE", t.TempDir())
	t.Setenv("QUAL_SIGNING_KEY", "")
	for name, c := range map[string]struct {
		load  map[string]string
		scope string
	}{
		"fewer runs":     {map[string]string{"QUAL_ASR_RUNS": "2"}, "    scope: REDUCED LOAD — not a qualification: 6 of 6 rows, at a load below the target's (asr: runs 2 of 5)"},
		"fewer requests": {map[string]string{"QUAL_ASR_REQUESTS": "3"}, "    scope: REDUCED LOAD — not a qualification: 6 of 6 rows, at a load below the target's (asr: requests 3 of 7)"},
		"fewer warmup":   {map[string]string{"QUAL_ASR_WARMUP": "1"}, "    scope: REDUCED LOAD — not a qualification: 6 of 6 rows, at a load below the target's (asr: warmup 1 of 2)"},
		"more runs":      {map[string]string{"QUAL_ASR_RUNS": "6"}, ""},
		"target's load":  {nil, ""},
	} {
		t.Run(name, func(t *testing.T) {
			dir, _ := reducedRun(t, c.load)
			code, console, errOut := qualRun(t, "report", "--fail-on", "failed", dir)
			if code != exitOK {
				t.Fatalf("qual report: exit %d %s", code, errOut)
			}
			lines := strings.Split(strings.TrimLeft(console, "\n"), "\n")
			if !strings.HasPrefix(lines[0], "=== run ") || strings.Contains(lines[0], "qualification") {
				t.Errorf("console heading %q: want \"=== run …\", never \"qualification\"", lines[0])
			}
			stages := 0
			for i, line := range lines {
				if !strings.HasPrefix(line, "stage ") {
					continue
				}
				stages++
				next := ""
				if i+1 < len(lines) {
					next = lines[i+1]
				}
				if c.scope != "" && next != c.scope {
					t.Errorf("stage line %q is followed by %q, want %q", line, next, c.scope)
				}
				if c.scope == "" && strings.Contains(next, "scope:") {
					t.Errorf("stage line %q at the target's load is followed by %q", line, next)
				}
			}
			if stages == 0 {
				t.Fatalf("no stage line in\n%s", console)
			}
		})
	}
}
