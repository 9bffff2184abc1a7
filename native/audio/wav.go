// Package audio decodes and encodes RIFF/WAVE clips. The serving transport and the native CLI
// both decode through it, so HTTP and native runs see the same samples.
package audio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// Stable error codes for audio the decoder refuses.
const (
	CodeInvalidAudio     = "invalid_audio"
	CodeUnsupportedAudio = "unsupported_audio_format"
)

const (
	fmtPCM        = 1
	fmtADPCM      = 2
	fmtIEEEFloat  = 3
	fmtALaw       = 6
	fmtMuLaw      = 7
	fmtIMAADPCM   = 0x11
	fmtExtensible = 0xFFFE
)

func formatName(tag uint16) string {
	switch tag {
	case fmtADPCM:
		return "MS ADPCM"
	case fmtALaw:
		return "A-law"
	case fmtMuLaw:
		return "mu-law"
	case fmtIMAADPCM:
		return "IMA ADPCM"
	}
	return fmt.Sprintf("format tag 0x%04x", tag)
}

// DecodeWAV reads a RIFF/WAVE file with PCM16 or float32 samples into an interleaved float32
// view (PCM16 scaled by 1/32768, exactly invertible). Anything else is refused with the format
// named in the error.
func DecodeWAV(data []byte) (task.Audio, error) {
	h, err := walkChunks(data)
	if err != nil {
		return task.Audio{}, err
	}
	return decodeSamples(h.format, h.channels, h.rate, h.bits, data[h.dataOff:h.dataOff+h.dataLen])
}

// header is what the chunk walk of a WAV file finds: the format and where the samples are.
type header struct {
	format   uint16
	channels int
	rate     int
	bits     int
	dataOff  int
	dataLen  int
}

// walkChunks checks the RIFF/WAVE framing of a whole file and finds its format and samples;
// the last fmt chunk wins, a second data chunk is refused.
func walkChunks(data []byte) (header, error) {
	var h header
	if len(data) < 12 || string(data[0:4]) != "RIFF" || string(data[8:12]) != "WAVE" {
		return h, task.Invalid(CodeInvalidAudio, "not a RIFF/WAVE file")
	}
	var haveFmt, haveData bool
	for off := 12; off < len(data); {
		if off+8 > len(data) {
			return h, task.Invalid(CodeInvalidAudio, "truncated chunk header at byte %d", off)
		}
		id, size := string(data[off:off+4]), int(binary.LittleEndian.Uint32(data[off+4:off+8]))
		body := off + 8
		if size < 0 || body+size > len(data) {
			return h, task.Invalid(CodeInvalidAudio, "chunk %q claims %d bytes but only %d remain (truncated or lying header)", id, size, len(data)-body)
		}
		switch id {
		case "fmt ":
			if size < 16 {
				return h, task.Invalid(CodeInvalidAudio, "fmt chunk is %d bytes, need at least 16", size)
			}
			h.format, h.channels, h.rate, h.bits = parseFmt(data[body : body+size])
			haveFmt = true
		case "data":
			if haveData {
				return h, task.Invalid(CodeInvalidAudio, "more than one data chunk")
			}
			h.dataOff, h.dataLen, haveData = body, size, true
		}
		off = body + size + size%2 // chunks are word-aligned
	}
	if !haveFmt || !haveData {
		return h, task.Invalid(CodeInvalidAudio, "missing fmt or data chunk (fmt=%v data=%v)", haveFmt, haveData)
	}
	return h, nil
}

// parseFmt reads a fmt chunk body of at least 16 bytes.
func parseFmt(f []byte) (format uint16, channels, rate, bits int) {
	format = binary.LittleEndian.Uint16(f[0:2])
	channels = int(binary.LittleEndian.Uint16(f[2:4]))
	rate = int(binary.LittleEndian.Uint32(f[4:8]))
	bits = int(binary.LittleEndian.Uint16(f[14:16]))
	if format == fmtExtensible && len(f) >= 26 {
		format = binary.LittleEndian.Uint16(f[24:26]) // sub-format GUID's first two bytes
	}
	return format, channels, rate, bits
}

func decodeSamples(format uint16, channels, rate, bits int, raw []byte) (task.Audio, error) {
	if channels < 1 || rate < 1 {
		return task.Audio{}, task.Invalid(CodeInvalidAudio, "fmt chunk declares %d channels at %d Hz", channels, rate)
	}
	a := task.Audio{Channels: channels, SampleRate: rate}
	switch {
	case format == fmtPCM && bits == 16:
		if len(raw)%(2*channels) != 0 {
			return task.Audio{}, task.Invalid(CodeInvalidAudio, "data chunk of %d bytes is not whole 16-bit frames of %d channels", len(raw), channels)
		}
		a.Samples = make([]float32, len(raw)/2)
		pcm16ToFloat(a.Samples, raw)
	case format == fmtIEEEFloat && bits == 32:
		if len(raw)%(4*channels) != 0 {
			return task.Audio{}, task.Invalid(CodeInvalidAudio, "data chunk of %d bytes is not whole float32 frames of %d channels", len(raw), channels)
		}
		a.Samples = make([]float32, len(raw)/4)
		if i := float32FromLE(a.Samples, raw); i >= 0 {
			return task.Audio{}, task.Invalid(CodeInvalidAudio, "float sample %d is %v", i, a.Samples[i])
		}
	case format == fmtPCM:
		return task.Audio{}, task.Invalid(CodeUnsupportedAudio, "%d-bit PCM is not supported (PCM16 or float32 only)", bits)
	case format == fmtIEEEFloat:
		return task.Audio{}, task.Invalid(CodeUnsupportedAudio, "%d-bit float is not supported (PCM16 or float32 only)", bits)
	default:
		return task.Audio{}, task.Invalid(CodeUnsupportedAudio, "%s audio is not supported (PCM16 or float32 only)", formatName(format))
	}
	return a, nil
}

// sampleBytes is the size of one sample of a supported format, 0 for the others.
func sampleBytes(format uint16, bits int) int {
	switch {
	case format == fmtPCM && bits == 16:
		return 2
	case format == fmtIEEEFloat && bits == 32:
		return 4
	}
	return 0
}

// pcm16ToFloatGeneric converts len(dst) little-endian PCM16 samples of raw to v/32768, four
// samples per 8-byte load (one bounds check per four instead of one per sample). It is
// pcm16ToFloat where there is no assembly version (pcm16_other.go) or the CPU lacks AVX2, and
// the plain version the assembly is tested against.
func pcm16ToFloatGeneric(dst []float32, raw []byte) {
	raw = raw[:2*len(dst)]
	i := 0
	for ; i+4 <= len(dst); i += 4 {
		w := binary.LittleEndian.Uint64(raw[2*i:])
		d := dst[i : i+4 : i+4]
		d[0] = float32(int16(w)) / 32768
		d[1] = float32(int16(w>>16)) / 32768
		d[2] = float32(int16(w>>32)) / 32768
		d[3] = float32(int16(w>>48)) / 32768
	}
	for ; i < len(dst); i++ {
		dst[i] = float32(int16(binary.LittleEndian.Uint16(raw[2*i:]))) / 32768
	}
}

// float32FromLE reads len(dst) little-endian float32 samples of raw; it returns the index of
// the first NaN or infinity (stored in dst), or -1 when all are finite.
func float32FromLE(dst []float32, raw []byte) int {
	raw = raw[:4*len(dst)]
	for i := range dst {
		v := math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		dst[i] = v
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return i
		}
	}
	return -1
}

// EncodePCM16 writes a canonical 44-byte-header PCM16 WAV (the form the upstream tool reads
// with -adchdr 44).
func EncodePCM16(pcm []int16, channels, rate int) []byte {
	out := make([]byte, 44+2*len(pcm))
	copy(out[0:], "RIFF")
	binary.LittleEndian.PutUint32(out[4:], uint32(36+2*len(pcm)))
	copy(out[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(out[16:], 16)
	binary.LittleEndian.PutUint16(out[20:], fmtPCM)
	binary.LittleEndian.PutUint16(out[22:], uint16(channels))
	binary.LittleEndian.PutUint32(out[24:], uint32(rate))
	binary.LittleEndian.PutUint32(out[28:], uint32(rate*channels*2))
	binary.LittleEndian.PutUint16(out[32:], uint16(channels*2))
	binary.LittleEndian.PutUint16(out[34:], 16)
	copy(out[36:], "data")
	binary.LittleEndian.PutUint32(out[40:], uint32(2*len(pcm)))
	for i, s := range pcm {
		binary.LittleEndian.PutUint16(out[44+2*i:], uint16(s))
	}
	return out
}

// ToPCM16 converts float samples in [-1, 1) back to int16, clamping; for audio decoded from
// PCM16 it returns the original samples exactly.
func ToPCM16(samples []float32) []int16 {
	out := make([]int16, len(samples))
	for i, v := range samples {
		out[i] = int16(max(-32768, min(32767, math.Round(float64(v)*32768))))
	}
	return out
}

// CodeOf returns the stable code of a decoder or Task input error, or "" for other errors.
func CodeOf(err error) string {
	var inv *task.InvalidInputError
	if errors.As(err, &inv) {
		return inv.Code
	}
	return ""
}

// Validate checks a decoded clip against a family's declared spec.
func Validate(a task.Audio, spec task.AudioSpec) error {
	switch {
	case a.SampleRate != spec.SampleRate:
		return task.Invalid("unsupported_sample_rate", "audio is %d Hz; this model takes %d Hz", a.SampleRate, spec.SampleRate)
	case a.Channels != spec.Channels:
		return task.Invalid("unsupported_channels", "audio has %d channels; this model takes %d", a.Channels, spec.Channels)
	case len(a.Samples) == 0:
		return task.Invalid("empty_audio", "audio has no samples")
	case spec.MaxSeconds > 0 && a.Seconds() > spec.MaxSeconds:
		return task.Invalid("audio_too_long", "audio is %.2f s; this model takes at most %.0f s", a.Seconds(), spec.MaxSeconds)
	}
	return nil
}
