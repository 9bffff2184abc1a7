package audio

import (
	"encoding/binary"
	"math"
)

// encodeFloat32Test writes a float32 WAV (format 3) with a canonical 44-byte header.
func encodeFloat32Test(samples []float32, channels, rate int) []byte {
	out := make([]byte, 44+4*len(samples))
	copy(out[0:], "RIFF")
	binary.LittleEndian.PutUint32(out[4:], uint32(36+4*len(samples)))
	copy(out[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(out[16:], 16)
	binary.LittleEndian.PutUint16(out[20:], fmtIEEEFloat)
	binary.LittleEndian.PutUint16(out[22:], uint16(channels))
	binary.LittleEndian.PutUint32(out[24:], uint32(rate))
	binary.LittleEndian.PutUint32(out[28:], uint32(rate*channels*4))
	binary.LittleEndian.PutUint16(out[32:], uint16(channels*4))
	binary.LittleEndian.PutUint16(out[34:], 32)
	copy(out[36:], "data")
	binary.LittleEndian.PutUint32(out[40:], uint32(4*len(samples)))
	for i, s := range samples {
		binary.LittleEndian.PutUint32(out[44+4*i:], math.Float32bits(s))
	}
	return out
}
