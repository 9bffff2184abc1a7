package audio

import (
	"encoding/binary"
	"testing"
)

// FuzzDecodeWAV: any bytes either decode to a consistent clip or fail with a stable code; the
// decoder never panics and never returns samples that disagree with the header.
func FuzzDecodeWAV(f *testing.F) {
	f.Add(EncodePCM16([]int16{0, 100, -100, 32767}, 1, 16000))
	f.Add(EncodePCM16([]int16{1, 2, 3, 4}, 2, 8000))
	f.Add([]byte("RIFF\x00\x00\x00\x00WAVE"))
	f.Add([]byte("not a wav at all"))
	lying := EncodePCM16([]int16{1, 2}, 1, 16000)
	binary.LittleEndian.PutUint32(lying[40:], 1<<31)
	f.Add(lying)
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := DecodeWAV(data)
		if err != nil {
			if code := CodeOf(err); code != CodeInvalidAudio && code != CodeUnsupportedAudio {
				t.Fatalf("error without a stable code: %v", err)
			}
			return
		}
		if a.Channels < 1 || a.SampleRate < 1 || len(a.Samples)%a.Channels != 0 {
			t.Fatalf("inconsistent clip: %d channels, %d Hz, %d samples", a.Channels, a.SampleRate, len(a.Samples))
		}
	})
}
