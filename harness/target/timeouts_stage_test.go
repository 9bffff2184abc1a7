package target

import (
	"testing"
	"time"
)

// A stage's budget holds every row with every step at its limit, plus the stage's setup: with
// TRTMC's defaults one row alone is past the Makefile's 6 h backstop.
func TestStageBudgetCoversEveryRowAtItsLimits(t *testing.T) {
	tg := &Target{BuildOutput: FamilyGate}
	l := tg.Limits("asr")
	if l.Setup != defaultSetup || l.Gate != defaultGate {
		t.Fatalf("defaults: %+v", l)
	}
	one := l.Build + l.Gate + l.Serve + l.AIPerf + l.Identity + l.NoCache
	if got := l.Stage(3); got != l.Setup+3*one || got <= 6*time.Hour {
		t.Errorf("three rows: %v, want %v (> 6h)", got, l.Setup+3*one)
	}
	tg.Timeouts.Setup = 60
	if got := tg.Limits("asr").Setup; got != time.Minute {
		t.Errorf("setup_seconds 60: %v", got)
	}
}
