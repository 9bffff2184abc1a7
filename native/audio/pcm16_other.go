//go:build !amd64 || purego

package audio

// pcm16ToFloat converts len(dst) little-endian PCM16 samples of raw to v/32768; it panics if
// raw is shorter than 2*len(dst) bytes.
func pcm16ToFloat(dst []float32, raw []byte) { pcm16ToFloatGeneric(dst, raw) }
