//go:build amd64 && !purego

package audio

import "golang.org/x/sys/cpu"

// Why assembly: the PCM16 → float32 conversion runs on the server's request path for every
// upload (~9 µs, ~15% of the handler's CPU, for a 1 s 16 kHz clip with pcm16ToFloatGeneric),
// and the handler's latency goal depends on shaving it. The Go compiler does not vectorize the
// loop; with AVX2 eight samples take one VPMOVSXWD, VCVTDQ2PS, VMULPS and VMOVUPS. Multiplying
// by 1/32768 is exact (a power of two, every int16 is exact in float32), so the result is bit
// for bit float32(v)/32768, the generic version's.

// useAVX2 selects pcm16ToFloatAVX2; a variable so that tests can see which path runs.
var useAVX2 = cpu.X86.HasAVX2

// pcm16ToFloat converts len(dst) little-endian PCM16 samples of raw to v/32768; it panics if
// raw is shorter than 2*len(dst) bytes.
func pcm16ToFloat(dst []float32, raw []byte) {
	raw = raw[:2*len(dst)] // the assembly reads exactly these bytes and trusts their length
	if useAVX2 {
		pcm16ToFloatAVX2(dst, raw)
		return
	}
	pcm16ToFloatGeneric(dst, raw)
}

// pcm16ToFloatAVX2 converts len(dst) samples; raw must hold at least 2*len(dst) bytes (it is
// not checked) and the CPU must have AVX2. It reads only raw[:2*len(dst)] and writes only dst.
//
//go:noescape
func pcm16ToFloatAVX2(dst []float32, raw []byte)
