package verify

import "testing"

// BenchmarkVerifyRealRun is `qual verify --key` (the signature with the pinned key, then every
// recomputation) on the real run QUAL_TEST_RUN names, once per iteration: the cost of one verify
// call, which `make qualify`'s verify step and every case of the tamper table pay. Profile it with
// `go test -run '^$' -bench VerifyRealRun -benchtime 3x -cpuprofile cpu.out ./harness/verify`.
func BenchmarkVerifyRealRun(b *testing.B) {
	run := realRun(b)
	for b.Loop() {
		sig, ev := verifyAll(b, run.dir, run.pub)
		if len(sig)+len(ev) != 0 {
			b.Fatalf("the untouched run does not verify: %v %v", sig, ev)
		}
	}
}
