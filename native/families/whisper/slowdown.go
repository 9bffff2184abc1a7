//go:build !qual_slowdown

package whisper

import "time"

// slowProfile names the one profile whose Task a test build slows down (slowdown_build.go, built
// with -tags qual_slowdown); a normal build slows nothing.
const slowProfile = ""

// slowDown is the test build's injected work (slowdown_build.go): a normal build does none and
// spends no CPU time.
func slowDown(string, time.Duration) (time.Duration, error) { return 0, nil }
