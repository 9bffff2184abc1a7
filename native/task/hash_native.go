package task

import "unsafe"

// littleEndianBytes is the memory of samples when it already is their little-endian float32
// encoding (a little-endian machine: amd64, arm64), else nil. The bytes alias samples and are
// only read, for the time of the call that asked.
func littleEndianBytes(samples []float32) []byte {
	if len(samples) == 0 {
		return nil
	}
	one := uint16(1)
	if *(*byte)(unsafe.Pointer(&one)) != 1 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&samples[0])), 4*len(samples))
}
