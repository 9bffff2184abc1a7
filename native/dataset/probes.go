package dataset

import (
	"encoding/binary"
	"math"

	"github.com/trtmc-qual/trtmc-qual/native/audio"
)

// Probe is a clip made to exercise a rejection (or, for silence, an empty transcript).
type Probe struct {
	Name     string
	WAV      []byte
	WantCode string // the stable error code a 16 kHz mono, 30 s model must answer; "" = accepted
}

// Probes derives the probe clips from a real 16 kHz mono PCM16 recording: the same speech made
// stereo, upsampled to 48 kHz, repeated past 30 s; plus silence, 8-bit PCM and float32.
func Probes(speech16k []int16) []Probe {
	stereo := make([]int16, 0, 2*len(speech16k))
	for _, s := range speech16k {
		stereo = append(stereo, s, s)
	}
	up48 := make([]int16, 0, 3*len(speech16k))
	for _, s := range speech16k {
		up48 = append(up48, s, s, s)
	}
	var long []int16
	for len(long) < 31*16000 {
		long = append(long, speech16k...)
	}
	return []Probe{
		{Name: "stereo-16k", WAV: audio.EncodePCM16(stereo, 2, 16000), WantCode: "unsupported_channels"},
		{Name: "mono-48k", WAV: audio.EncodePCM16(up48, 1, 48000), WantCode: "unsupported_sample_rate"},
		{Name: "too-long-31s", WAV: audio.EncodePCM16(long, 1, 16000), WantCode: "audio_too_long"},
		{Name: "silence-2s", WAV: audio.EncodePCM16(make([]int16, 2*16000), 1, 16000), WantCode: ""},
		{Name: "zero-length", WAV: audio.EncodePCM16(nil, 1, 16000), WantCode: "empty_audio"},
		{Name: "pcm8", WAV: retag(audio.EncodePCM16(speech16k, 1, 16000), 1, 8), WantCode: audio.CodeUnsupportedAudio},
		{Name: "float32", WAV: float32WAV(speech16k), WantCode: ""},
	}
}

// retag rewrites the fmt chunk's format tag and bit depth (the data is left as it is: the
// decoder must refuse the declared format before it reads samples).
func retag(wav []byte, tag uint16, bits uint16) []byte {
	out := append([]byte(nil), wav...)
	binary.LittleEndian.PutUint16(out[20:], tag)
	binary.LittleEndian.PutUint16(out[34:], bits)
	return out
}

// float32WAV writes the same samples as IEEE float, which the decoder accepts.
func float32WAV(pcm []int16) []byte {
	wav := audio.EncodePCM16(make([]int16, 2*len(pcm)), 1, 16000) // right size: 4 bytes a sample
	wav = retag(wav, 3, 32)
	binary.LittleEndian.PutUint32(wav[28:], 16000*4)
	binary.LittleEndian.PutUint16(wav[32:], 4)
	for i, s := range pcm {
		binary.LittleEndian.PutUint32(wav[44+4*i:], math.Float32bits(float32(s)/32768))
	}
	return wav
}
