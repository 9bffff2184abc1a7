//go:build linux

package audio

import (
	"encoding/binary"
	"math"
	"os"
	"syscall"
	"testing"
	"unsafe"
)

// guarded returns n bytes that end where an inaccessible page begins, so any access past their
// end faults (and the test dies) instead of going unnoticed.
func guarded(t *testing.T, n int) []byte {
	t.Helper()
	page := os.Getpagesize()
	size := (n+page-1)/page*page + page
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatalf("mmap of a guarded buffer: %v", err) // Linux always can: a failure is the machine's, and must show
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	if err := syscall.Mprotect(mem[size-page:], syscall.PROT_NONE); err != nil {
		t.Fatalf("mprotect of the guard page: %v", err)
	}
	return mem[size-page-n : size-page : size-page]
}

// No conversion reads a byte past raw[:2*len(dst)] or writes a float past dst: both end right
// before a guard page, for every length up to 70 and some larger odd ones, at odd raw offsets.
func TestPCM16StaysInBounds(t *testing.T) {
	for _, n := range append(seq(71), 1001, 16001) {
		for _, impl := range pcm16Impls {
			raw := guarded(t, 2*n+1)[1:] // starts at an odd address
			for i := range n {
				binary.LittleEndian.PutUint16(raw[2*i:], uint16(i*7919))
			}
			out := guarded(t, 4*n)
			var dst []float32
			if n > 0 {
				dst = unsafe.Slice((*float32)(unsafe.Pointer(&out[0])), n)
			}
			impl.f(dst, raw)
			want := refPCM16(raw, n)
			for i := range want {
				if math.Float32bits(dst[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s: n=%d sample %d is %v, want %v", impl.name, n, i, dst[i], want[i])
				}
			}
		}
	}
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}
