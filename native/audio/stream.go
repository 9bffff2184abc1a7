package audio

import (
	"encoding/binary"

	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// Stream decodes a WAV file while its bytes arrive (an HTTP upload), converting each block of
// samples as it lands instead of in another pass over the whole clip once it is complete. A
// PCM16 data chunk is also hashed as it lands, straight from its bytes (a PCM16 clip's
// Audio.SHA256 is the hash of those bytes); a float32 one is hashed by Finish, since whether
// all its samples are 16-bit values, and so which form its hash takes, is only known at the
// end. It only accelerates: Finish walks the complete file exactly as DecodeWAV does and uses
// what was converted on the way only when that walk finds the very same format and data
// chunk; in every other case (data before fmt, a lying size, a NaN, an unsupported format,
// ...) it decodes the complete file with DecodeWAV, so results and errors are DecodeWAV's and
// the hash is Audio.SHA256's.
type Stream struct {
	max      int // the most bytes the file can have (samples are allocated only within it)
	off      int // next chunk header of the walk
	hdr      header
	haveFmt  bool
	started  bool // hdr is complete and samples/hash are set up
	dead     bool // this file is left to Finish's DecodeWAV
	done     int  // data bytes converted (and hashed, if PCM16)
	samples  []float32
	hash     *task.PCM16Hasher // nil for float32
	sampleSz int
	alloc    func(n int) []float32
}

// NewStream starts decoding a file of at most maxBytes bytes. alloc, if not nil, provides the
// slice of n samples to decode into (a buffer pool's; its contents are overwritten); when it
// gives none (a memory bound refused them), the file is left to Finish.
func NewStream(maxBytes int, alloc func(n int) []float32) *Stream {
	if alloc == nil {
		alloc = func(n int) []float32 { return make([]float32, n) }
	}
	return &Stream{max: maxBytes, off: 12, alloc: alloc}
}

// Arrived is told the bytes received so far: every call passes a longer prefix of the same
// file (the same bytes at the same offsets), the last one the whole file given to Finish.
func (s *Stream) Arrived(data []byte) {
	if s.dead {
		return
	}
	if !s.started && !s.walk(data) {
		return
	}
	end := min(len(data), s.hdr.dataOff+s.hdr.dataLen)
	n := (end - s.hdr.dataOff - s.done) / s.sampleSz
	if n <= 0 {
		return
	}
	raw := data[s.hdr.dataOff+s.done:]
	dst := s.samples[s.done/s.sampleSz:][:n]
	if s.sampleSz == 2 {
		pcm16ToFloat(dst, raw)
		s.hash.WriteLE(raw[:2*n])
	} else if float32FromLE(dst, raw) >= 0 {
		s.dead = true // DecodeWAV names the sample in its error
		return
	}
	s.done += n * s.sampleSz
}

// walk advances the chunk walk over what has arrived; true once the data chunk's header is in
// and the samples can be converted as they come.
func (s *Stream) walk(data []byte) bool {
	if len(data) < 12 {
		return false
	}
	if string(data[0:4]) != "RIFF" || string(data[8:12]) != "WAVE" {
		s.dead = true
		return false
	}
	for s.off+8 <= len(data) {
		id, size := string(data[s.off:s.off+4]), int(binary.LittleEndian.Uint32(data[s.off+4:s.off+8]))
		body := s.off + 8
		switch id {
		case "fmt ":
			if size < 16 {
				s.dead = true
				return false
			}
			if body+size > len(data) {
				return false // wait for the whole fmt chunk
			}
			s.hdr.format, s.hdr.channels, s.hdr.rate, s.hdr.bits = parseFmt(data[body : body+size])
			s.haveFmt = true
		case "data":
			return s.start(body, size)
		}
		s.off = body + size + size%2
	}
	return false
}

// start sets up conversion of a data chunk of size bytes at body, if its samples can be
// decoded as they come; otherwise the file is left to Finish.
func (s *Stream) start(body, size int) bool {
	h := &s.hdr
	h.dataOff, h.dataLen = body, size
	s.sampleSz = sampleBytes(h.format, h.bits)
	if !s.haveFmt || s.sampleSz == 0 || h.channels < 1 || h.rate < 1 || size%(s.sampleSz*h.channels) != 0 || body+size > s.max {
		s.dead = true
		return false
	}
	if s.samples = s.alloc(size / s.sampleSz); len(s.samples) < size/s.sampleSz {
		s.dead = true
		return false
	}
	if s.sampleSz == 2 {
		s.hash = task.NewPCM16Hasher(h.rate, h.channels)
	}
	s.started = true
	return true
}

// FinishAllocates is how many bytes of samples Finish(data) will allocate: none when the
// samples converted as the bytes arrived are the clip (or the file is refused before any
// decoding), else what DecodeWAV allocates. It converts what is left to convert, as Finish does.
func (s *Stream) FinishAllocates(data []byte) int {
	s.Arrived(data)
	h, err := walkChunks(data)
	if err != nil || s.streamed(h) {
		return 0
	}
	if n := sampleBytes(h.format, h.bits); n > 0 {
		return h.dataLen / n * 4
	}
	return 0
}

// streamed says the samples converted as the bytes arrived are the clip of a file whose walk
// found h.
func (s *Stream) streamed(h header) bool {
	return s.started && !s.dead && h == s.hdr && s.done == h.dataLen
}

// Finish decodes the complete file: DecodeWAV's clip or error, and the clip's Audio.SHA256.
func (s *Stream) Finish(data []byte) (task.Audio, string, error) {
	s.Arrived(data)
	h, err := walkChunks(data)
	if err != nil {
		return task.Audio{}, "", err
	}
	if s.streamed(h) {
		a := task.Audio{Samples: s.samples, Channels: h.channels, SampleRate: h.rate}
		if s.hash == nil { // float32: the form is known now
			return a, a.SHA256(), nil
		}
		return a, s.hash.Sum(), nil
	}
	a, err := decodeSamples(h.format, h.channels, h.rate, h.bits, data[h.dataOff:h.dataOff+h.dataLen])
	if err != nil {
		return task.Audio{}, "", err
	}
	return a, a.SHA256(), nil
}
