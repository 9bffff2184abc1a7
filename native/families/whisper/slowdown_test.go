//go:build !qual_slowdown

package whisper

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestSlowdownNoneInANormalBuild: a build without the test tag slows no profile.
func TestSlowdownNoneInANormalBuild(t *testing.T) {
	if slowProfile != "" {
		t.Fatalf("a normal build slows %q", slowProfile)
	}
	for _, p := range manifestProfiles(t) {
		if spent, err := startSlowdown(p, os.Getpid())(); spent != 0 || err != nil {
			t.Errorf("profile %q: spent %v (err %v) in a normal build", p, spent, err)
		}
	}
}

// TestSlowdownTestBuildTests runs this package's Slow tests in the qual_slowdown test build, so
// that a plain go test (make test, CI) checks what that build injects.
func TestSlowdownTestBuildTests(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skips a go test of the qual_slowdown build (make test runs it)")
	}
	cmd := exec.Command("go", "test", "-count=1", "-tags", "qual_slowdown", "-run", "^TestSlow", "-v", ".")
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test -tags qual_slowdown: %v\n%s", err, out)
	}
	for _, name := range []string{"TestSlowdownSpendsItsShareInCPUTime", "TestSlowdownReadsAProcessCPUTime", "TestSlowdownFollowsTheWorkersCPUTimeNotTheWall",
		"TestSlowdownOnlyForItsProfile", "TestSlowTranscribeSpendsItsShareInTheCaller"} {
		if !strings.Contains(string(out), "--- PASS: "+name+" ") {
			t.Errorf("%s did not pass in the qual_slowdown build:\n%s", name, out)
		}
	}
}
