package task

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"image"
	"image/draw"
	"io"
	"math"
	"strconv"
)

// SHA256 identifies decoded audio by its sample values, whatever container they came in.
//
// A sample v is a 16-bit value when math.Float32bits(v) == math.Float32bits(float32(k)/32768)
// for some integer k in [-32768, 32767] (what a PCM16 sample k decodes to). Bits are compared,
// so -0.0 is not a 16-bit value (0.0 is, k = 0), and neither is 1.0 (k = 32768 is out of
// range); -1.0 and 32767/32768 are.
//
// If every sample is a 16-bit value, the hash is the SHA-256 of "pcm-s16le:<rate>:<channels>:"
// followed by each k as a little-endian int16, interleaved as Samples are: exactly the data
// chunk bytes of the clip's PCM16 WAV. Otherwise it is the SHA-256 of
// "pcm-f32le:<rate>:<channels>:" followed by each sample as a little-endian float32. Rate and
// channels are written in decimal; the result is lower-case hex.
//
// So a float32 WAV whose samples are all 16-bit values hashes like the PCM16 WAV of the same
// samples, and the hashed bytes determine the sample bits, rate and channels (the forms differ
// in their prefix; each k gives one value; -0.0 and every value that is not some k/32768 take
// the float form, whose bytes are the samples'): two clips hash the same only if those are
// the same (barring a SHA-256 collision).
//
// It is one pass over the samples while they are 16-bit values, encoding and hashing them a
// block at a time; at the first that is not, the hash starts over in the float form.
func (a Audio) SHA256() string {
	s := newSampleHash(formS16, a.SampleRate, a.Channels)
	if s.writeS16Values(a.Samples) {
		return s.Sum()
	}
	s.start(formF32, a.SampleRate, a.Channels)
	s.writeF32(a.Samples)
	return s.Sum()
}

// The two forms of Audio.SHA256, by their prefix.
const (
	formS16 = "pcm-s16le"
	formF32 = "pcm-f32le"
)

// sampleHash is the hash of one clip in one form, with a block buffer so that encoding needs
// no allocation.
type sampleHash struct {
	h   hash.Hash
	buf [4096]byte // one block of encoded samples
}

func newSampleHash(form string, rate, channels int) *sampleHash {
	s := &sampleHash{h: sha256.New()}
	s.start(form, rate, channels)
	return s
}

// start (re)starts the hash with the prefix "<form>:<rate>:<channels>:".
func (s *sampleHash) start(form string, rate, channels int) {
	s.h.Reset()
	prefix := strconv.AppendInt(append(append(s.buf[:0], form...), ':'), int64(rate), 10)
	prefix = strconv.AppendInt(append(prefix, ':'), int64(channels), 10)
	s.h.Write(append(prefix, ':'))
}

// writeS16Values hashes samples in the s16 form, k as little-endian int16, as long as they are
// 16-bit values; false at the first block holding one that is not (the hash is then of a
// prefix: start over).
func (s *sampleHash) writeS16Values(samples []float32) bool {
	for len(samples) > 0 {
		n := min(len(samples), len(s.buf)/2)
		if !encodeS16(s.buf[:2*n], samples[:n]) {
			return false
		}
		s.h.Write(s.buf[:2*n])
		samples = samples[n:]
	}
	return true
}

// encodeS16 writes each sample's k to dst as little-endian int16, or returns false if a
// sample is not a 16-bit value. For v = k/32768, v*32768 is exactly k (a power-of-two
// scaling); for any other v the truncated k is out of range or fails the bit comparison. Four
// samples per iteration with one branch (one bounds check, one 8-byte store).
func encodeS16(dst []byte, samples []float32) bool {
	dst = dst[:2*len(samples)]
	i := 0
	for ; i+4 <= len(samples); i += 4 {
		v := samples[i : i+4 : i+4]
		k0, k1, k2, k3 := int32(v[0]*32768), int32(v[1]*32768), int32(v[2]*32768), int32(v[3]*32768)
		// Nonzero if a sample's bits differ from its k's (^ and | bind alike: parenthesized)
		// or a k is outside [-32768, 32767].
		bad := (math.Float32bits(float32(k0)/32768) ^ math.Float32bits(v[0])) |
			(math.Float32bits(float32(k1)/32768) ^ math.Float32bits(v[1])) |
			(math.Float32bits(float32(k2)/32768) ^ math.Float32bits(v[2])) |
			(math.Float32bits(float32(k3)/32768) ^ math.Float32bits(v[3])) |
			(uint32(k0+32768)|uint32(k1+32768)|uint32(k2+32768)|uint32(k3+32768))&^0xffff
		if bad != 0 {
			return false
		}
		binary.LittleEndian.PutUint64(dst[2*i:], uint64(uint16(k0))|uint64(uint16(k1))<<16|uint64(uint16(k2))<<32|uint64(uint16(k3))<<48)
	}
	for ; i < len(samples); i++ {
		v := samples[i]
		k := int32(v * 32768)
		if k < -32768 || k > 32767 || math.Float32bits(float32(k)/32768) != math.Float32bits(v) {
			return false
		}
		binary.LittleEndian.PutUint16(dst[2*i:], uint16(k))
	}
	return true
}

// writeF32 hashes samples in the float form, as little-endian float32.
func (s *sampleHash) writeF32(samples []float32) {
	if le := littleEndianBytes(samples); le != nil { // already the hashed bytes: no copy
		s.h.Write(le)
		return
	}
	s.writeF32Encoded(samples)
}

// writeF32Encoded hashes samples encoded block by block (a big-endian machine).
func (s *sampleHash) writeF32Encoded(samples []float32) {
	for len(samples) > 0 {
		n := min(len(samples), len(s.buf)/4)
		for i, v := range samples[:n] {
			binary.LittleEndian.PutUint32(s.buf[4*i:], math.Float32bits(v))
		}
		s.h.Write(s.buf[:4*n])
		samples = samples[n:]
	}
}

// Sum is the hex SHA-256 of everything written.
func (s *sampleHash) Sum() string {
	var sum [sha256.Size]byte
	return hex.EncodeToString(s.h.Sum(sum[:0]))
}

// AudioHasher computes the float form of Audio.SHA256 ("pcm-f32le:...") as the samples come.
// Its Sum is Audio.SHA256 of the samples only when one of them is not a 16-bit value; a
// decoder that cannot know that before the end (a float32 WAV) should call Audio.SHA256 on
// the decoded clip instead.
type AudioHasher struct{ s *sampleHash }

// NewAudioHasher starts the float-form hash of a clip of rate Hz and channels channels.
func NewAudioHasher(rate, channels int) *AudioHasher {
	return &AudioHasher{newSampleHash(formF32, rate, channels)}
}

// Write hashes the next samples (interleaved, as in Audio.Samples).
func (a *AudioHasher) Write(samples []float32) { a.s.writeF32(samples) }

// Sum is the hex SHA-256 of the prefix and everything written.
func (a *AudioHasher) Sum() string { return a.s.Sum() }

// PCM16Hasher computes Audio.SHA256 of a PCM16 clip straight from its data chunk bytes as they
// arrive, with no conversion and no copy: a PCM16 sample k decodes to k/32768, a 16-bit value,
// so the clip's hash is the s16 form, whose bytes are the data chunk's.
type PCM16Hasher struct{ s *sampleHash }

// NewPCM16Hasher starts the hash of a PCM16 clip of rate Hz and channels channels.
func NewPCM16Hasher(rate, channels int) *PCM16Hasher {
	return &PCM16Hasher{newSampleHash(formS16, rate, channels)}
}

// WriteLE hashes the next bytes of the data chunk (little-endian int16 samples, interleaved);
// a piece may end inside a sample, the next one continues it.
func (p *PCM16Hasher) WriteLE(raw []byte) { p.s.h.Write(raw) }

// Sum is Audio.SHA256 of the clip whose data chunk bytes were written.
func (p *PCM16Hasher) Sum() string { return p.s.Sum() }

// ImageSHA256 identifies an image by its pixels, not its PNG encoding: the hash of
// "nrgba:<w>x<h>:" followed by the NRGBA bytes row by row.
func ImageSHA256(img *image.NRGBA) string {
	h := sha256.New()
	b := img.Bounds()
	fmt.Fprintf(h, "nrgba:%dx%d:", b.Dx(), b.Dy())
	for y := b.Min.Y; y < b.Max.Y; y++ {
		off := img.PixOffset(b.Min.X, y)
		h.Write(img.Pix[off : off+4*b.Dx()])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ImageSHA256Of hashes any decoded image the way ImageSHA256 does, converting it to NRGBA
// first (a decoded opaque PNG is RGBA; its NRGBA pixels are the same bytes).
func ImageSHA256Of(img image.Image) string {
	if n, ok := img.(*image.NRGBA); ok {
		return ImageSHA256(n)
	}
	b := img.Bounds()
	n := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(n, n.Bounds(), img, b.Min, draw.Src)
	return ImageSHA256(n)
}

// FillImageDefaults completes a request from the family's spec: zero size takes the first
// supported size, zero steps and negative guidance take the defaults, zero count takes one.
// Values that were given are never changed; the Task validates them.
func FillImageDefaults(spec ImageSpec, req ImageRequest) ImageRequest {
	if req.Width == 0 && req.Height == 0 && len(spec.Sizes) > 0 {
		req.Width, req.Height = spec.Sizes[0][0], spec.Sizes[0][1]
	}
	if req.Steps == 0 {
		req.Steps = spec.DefaultSteps
	}
	if req.Guidance < 0 {
		req.Guidance = spec.DefaultGuide
	}
	if req.Count == 0 {
		req.Count = 1
	}
	return req
}

// ImageRequestSHA256 identifies a text_to_image input: its prompt and every setting, after the
// family's defaults are filled in (FillImageDefaults). The server records it as input_sha256;
// qual verify re-derives it from the payload AIPerf sent. Fields are framed (FieldsSHA256), so
// no prompt can borrow bytes from the negative prompt and keep the identity.
func ImageRequestSHA256(r ImageRequest) string {
	return FieldsSHA256("t2i:v2", r.Prompt, r.NegativePrompt, fmt.Sprintf("%dx%d", r.Width, r.Height),
		strconv.Itoa(r.Steps), strconv.FormatFloat(r.Guidance, 'g', -1, 64), strconv.FormatInt(r.Seed, 10), strconv.Itoa(r.Count))
}

// AudioQuestionSHA256 identifies an audio_text_to_text input: the decoded clip's SHA256
// (Audio.SHA256) and the question, framed (FieldsSHA256). The server records it as
// input_sha256 (with the question trimmed as it passes it to the Task) and `trtmc-native
// answer` prints it.
func AudioQuestionSHA256(clipSHA256, question string) string {
	return FieldsSHA256("qa:v2", clipSHA256, question)
}

// FieldsSHA256 is the hex SHA-256 of a tag and fields, each written as its length in decimal,
// a colon and its bytes (a netstring without the comma): the encoding of a list of strings
// is unambiguous, so two inputs share an identity only if every field is the same (barring a
// SHA-256 collision), whatever bytes (NUL included) the fields hold.
func FieldsSHA256(tag string, fields ...string) string {
	h := sha256.New()
	var n [20]byte
	for _, f := range append([]string{tag}, fields...) {
		h.Write(append(strconv.AppendInt(n[:0], int64(len(f)), 10), ':'))
		io.WriteString(h, f)
	}
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0]))
}
