//go:build !qual_slowdown

package whisper

import "time"

// slowProfile names the one profile whose Task a test build slows down (slowdown_build.go, built
// with -tags qual_slowdown); a normal build slows nothing.
const slowProfile = ""

// startSlowdown is the test build's injected work (slowdown_build.go): a normal build measures
// nothing and its finish spends no CPU time.
func startSlowdown(string, int) func() (time.Duration, error) {
	return func() (time.Duration, error) { return 0, nil }
}
