//go:build !qual_slowdown

package whisper

// slowProfile names the one profile whose Task a test build slows down (slowdown_build.go, built
// with -tags qual_slowdown); a normal build slows nothing.
const slowProfile = ""
