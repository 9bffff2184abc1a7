package server

import (
	"os"
	"runtime/debug"
)

// Garbage-collector defaults of trtmc-server. The request path used to allocate about three
// times the upload per request (the WAV bytes, the float32 samples, the input-hash buffer:
// ~170 KB for a 1 s clip) on a live heap of a few MiB, so Go's default GOGC=100 collected every
// few dozen requests, and those cycles (and their assists) were most of the p95 of a no-op Task
// (BenchmarkPeerOverhead: GOGC=200 halved its c=16 p50 under load; 400 gained no more and
// cost twice the RSS in the load test). Upload bytes and samples now come from pools on the
// Server (bufPool) and the hash needs no copy, ~22 KB a request (BenchmarkTranscribeHandler),
// so cycles are rarer still; the setting stays for bodies the pools do not keep (JSON routes,
// clips over 30 s). The soft memory limit makes the collector run as often as needed near it,
// so a burst of large bodies cannot run away. (The models' memory is C-allocated and not
// counted.)
const (
	DefaultGCPercent     = 200
	DefaultMemoryLimitMB = 512
)

// TuneGC applies percent and limitMB (<= 0: leave as is) unless the operator set GOGC or
// GOMEMLIMIT in the environment, which always win.
func TuneGC(percent, limitMB int) {
	if _, set := os.LookupEnv("GOGC"); !set && percent > 0 {
		debug.SetGCPercent(percent)
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set && limitMB > 0 {
		debug.SetMemoryLimit(int64(limitMB) << 20)
	}
}
