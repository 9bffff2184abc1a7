package task

import "testing"

// BenchmarkAudioSHA256 hashes 1 s of 16 kHz mono in each form: "s16" has only 16-bit values
// (a PCM16 upload's samples); "f32" starts with one that is not (0.1), like any float clip
// that is not PCM16 in disguise; "f32-late" has its only one at the end, the worst case (the
// s16 pass over the whole clip is wasted before the float form starts over).
func BenchmarkAudioSHA256(b *testing.B) {
	s16 := make([]float32, 16000)
	for i := range s16 {
		s16[i] = float32(int16((i*7919)%65536-32768)) / 32768
	}
	f32, late := append([]float32(nil), s16...), append([]float32(nil), s16...)
	f32[0], late[len(late)-1] = 0.1, 0.1
	for _, c := range []struct {
		name    string
		samples []float32
	}{{"s16", s16}, {"f32", f32}, {"f32-late", late}} {
		a := Audio{Samples: c.samples, SampleRate: 16000, Channels: 1}
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				a.SHA256()
			}
		})
	}
}
