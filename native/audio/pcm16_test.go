package audio

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// pcm16Impls are the conversions under test: the generic one, pcm16ToFloat as dispatched on
// this machine, and (pcm16_amd64_test.go) the AVX2 assembly called directly when the CPU has it.
var pcm16Impls = []struct {
	name string
	f    func(dst []float32, raw []byte)
}{
	{"generic", pcm16ToFloatGeneric},
	{"dispatched", pcm16ToFloat},
}

// refPCM16 is the definition: float32(int16(v))/32768, one sample at a time.
func refPCM16(raw []byte, n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(int16(binary.LittleEndian.Uint16(raw[2*i:]))) / 32768
	}
	return out
}

func samePCM16(t *testing.T, what string, got, want []float32) {
	t.Helper()
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s: sample %d is %v (%08x), want %v (%08x)", what, i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
		}
	}
}

// Every one of the 65536 int16 values, in one buffer, converts bit for bit as the definition,
// from a raw slice at each of the offsets 0..3 of its backing array (so loads are unaligned).
func TestPCM16AllValuesBitIdentical(t *testing.T) {
	for off := range 4 {
		buf := make([]byte, off+2*65536)
		raw := buf[off:]
		for i := range 65536 {
			binary.LittleEndian.PutUint16(raw[2*i:], uint16(i))
		}
		want := refPCM16(raw, 65536)
		for _, impl := range pcm16Impls {
			got := make([]float32, 65536)
			impl.f(got, raw)
			samePCM16(t, impl.name, got, want)
		}
	}
}

// Lengths 0..64 and some large odd ones, at raw offsets 0..3 and dst offsets 0..1: the result
// is the definition's, and nothing is written outside dst (the floats around it keep a sentinel).
func TestPCM16LengthsAndOffsets(t *testing.T) {
	lengths := []int{}
	for n := range 65 {
		lengths = append(lengths, n)
	}
	lengths = append(lengths, 95, 127, 255, 1001, 4095, 15999, 16000, 16001, 32767)
	rng := rand.New(rand.NewPCG(1, 2))
	const sentinel = 0x7fc0dead // a NaN no conversion produces
	for _, n := range lengths {
		for rawOff := range 4 {
			buf := make([]byte, rawOff+2*n+8)
			for i := range buf {
				buf[i] = byte(rng.Uint32())
			}
			raw := buf[rawOff : rawOff+2*n+8] // 8 more bytes than needed: must not be used
			want := refPCM16(raw, n)
			for dstOff := range 2 {
				for _, impl := range pcm16Impls {
					big := make([]float32, dstOff+n+16)
					for i := range big {
						big[i] = math.Float32frombits(sentinel)
					}
					dst := big[dstOff : dstOff+n]
					impl.f(dst, raw)
					samePCM16(t, impl.name, dst, want)
					for i, v := range big {
						if (i < dstOff || i >= dstOff+n) && math.Float32bits(v) != sentinel {
							t.Fatalf("%s: n=%d rawOff=%d dstOff=%d: float %d outside dst written (%08x)", impl.name, n, rawOff, dstOff, i, math.Float32bits(v))
						}
					}
				}
			}
		}
	}
}

// A raw shorter than 2*len(dst) panics, as a Go slice expression does, on every path.
func TestPCM16ShortRawPanics(t *testing.T) {
	for _, impl := range pcm16Impls {
		if impl.name != "generic" && impl.name != "dispatched" {
			continue // the assembly trusts its caller
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic for 15 bytes of raw and 8 samples", impl.name)
				}
			}()
			impl.f(make([]float32, 8), make([]byte, 15))
		}()
	}
}

// BenchmarkPCM16ToFloatGeneric is BenchmarkPCM16ToFloat's clip through the pure-Go fallback.
func BenchmarkPCM16ToFloatGeneric(b *testing.B) {
	raw, dst := make([]byte, 32000), make([]float32, 16000)
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		pcm16ToFloatGeneric(dst, raw)
	}
}
