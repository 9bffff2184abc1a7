//go:build amd64 && !purego

package audio

import (
	"testing"

	"golang.org/x/sys/cpu"
)

func init() {
	if cpu.X86.HasAVX2 {
		pcm16Impls = append(pcm16Impls, struct {
			name string
			f    func(dst []float32, raw []byte)
		}{"avx2", func(dst []float32, raw []byte) { pcm16ToFloatAVX2(dst, raw[:2*len(dst)]) }})
	}
}

// On a CPU with AVX2 pcm16ToFloat takes the assembly path.
func TestPCM16DispatchesToAVX2(t *testing.T) {
	if useAVX2 != cpu.X86.HasAVX2 {
		t.Fatalf("useAVX2 = %v, CPU has AVX2: %v", useAVX2, cpu.X86.HasAVX2)
	}
	if !useAVX2 {
		t.Log("no AVX2 on this CPU: pcm16ToFloat is the Go loop here (the dispatch above is what this test checks)")
	}
}
