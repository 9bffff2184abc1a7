package audio

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/native/task"
)

func TestPCM16RoundTripIsExact(t *testing.T) {
	pcm := []int16{0, 1, -1, 32767, -32768, 1234}
	a, err := DecodeWAV(EncodePCM16(pcm, 1, 16000))
	if err != nil {
		t.Fatal(err)
	}
	if a.SampleRate != 16000 || a.Channels != 1 || len(a.Samples) != len(pcm) {
		t.Fatalf("decoded %+v", a)
	}
	back := ToPCM16(a.Samples)
	for i := range pcm {
		if back[i] != pcm[i] {
			t.Fatalf("sample %d: %d -> %d", i, pcm[i], back[i])
		}
	}
}

func TestDecodeRefusesWithStableCodes(t *testing.T) {
	good := EncodePCM16([]int16{1, 2, 3, 4}, 1, 16000)
	with := func(edit func(b []byte) []byte) []byte { return edit(append([]byte(nil), good...)) }
	cases := map[string]struct {
		data []byte
		code string
	}{
		"not-riff":      {[]byte("ID3\x03 an mp3 named .wav"), CodeInvalidAudio},
		"truncated":     {good[:len(good)-3], CodeInvalidAudio},
		"lying-size":    {with(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[40:], 1<<30); return b }), CodeInvalidAudio},
		"no-data":       {good[:36], CodeInvalidAudio},
		"8-bit":         {with(func(b []byte) []byte { binary.LittleEndian.PutUint16(b[34:], 8); return b }), CodeUnsupportedAudio},
		"24-bit":        {with(func(b []byte) []byte { binary.LittleEndian.PutUint16(b[34:], 24); return b }), CodeUnsupportedAudio},
		"adpcm":         {with(func(b []byte) []byte { binary.LittleEndian.PutUint16(b[20:], 2); return b }), CodeUnsupportedAudio},
		"zero-channels": {with(func(b []byte) []byte { binary.LittleEndian.PutUint16(b[22:], 0); return b }), CodeInvalidAudio},
		"odd-frames":    {with(func(b []byte) []byte { binary.LittleEndian.PutUint16(b[22:], 3); return b }), CodeInvalidAudio},
	}
	for name, c := range cases {
		_, err := DecodeWAV(c.data)
		if got := CodeOf(err); got != c.code {
			t.Errorf("%s: code %q (err %v), want %q", name, got, err, c.code)
		}
	}
}

func TestValidateAgainstSpec(t *testing.T) {
	spec := task.AudioSpec{SampleRate: 16000, Channels: 1, MaxSeconds: 1}
	cases := map[string]struct {
		a    task.Audio
		code string
	}{
		"ok":       {task.Audio{Samples: make([]float32, 16000), Channels: 1, SampleRate: 16000}, ""},
		"rate":     {task.Audio{Samples: make([]float32, 10), Channels: 1, SampleRate: 8000}, "unsupported_sample_rate"},
		"stereo":   {task.Audio{Samples: make([]float32, 10), Channels: 2, SampleRate: 16000}, "unsupported_channels"},
		"empty":    {task.Audio{Channels: 1, SampleRate: 16000}, "empty_audio"},
		"too-long": {task.Audio{Samples: make([]float32, 16001), Channels: 1, SampleRate: 16000}, "audio_too_long"},
	}
	for name, c := range cases {
		if got := CodeOf(Validate(c.a, spec)); got != c.code {
			t.Errorf("%s: code %q, want %q", name, got, c.code)
		}
	}
}

// The PCM16 conversion is exactly float32(v)/32768 for every one of the 65536 values, whatever
// the length (the four-at-a-time loop and its tail).
func TestPCM16ToFloatIsExact(t *testing.T) {
	raw := make([]byte, 2*65536)
	for i := range 65536 {
		binary.LittleEndian.PutUint16(raw[2*i:], uint16(i+32768))
	}
	for _, n := range []int{65536, 65535, 65534, 65533, 3, 1, 0} {
		got := make([]float32, n)
		pcm16ToFloat(got, raw[2*(65536-n):])
		for i, v := range got {
			want := float32(int16(uint16(65536-n+i+32768))) / 32768
			if math.Float32bits(v) != math.Float32bits(want) {
				t.Fatalf("length %d, sample %d: %v (%08x), want %v (%08x)", n, i, v, math.Float32bits(v), want, math.Float32bits(want))
			}
		}
	}
}

func BenchmarkPCM16ToFloat(b *testing.B) {
	raw, dst := make([]byte, 32000), make([]float32, 16000)
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		pcm16ToFloat(dst, raw)
	}
}
