package task

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"image"
	"image/draw"
	"math"
	"strconv"
)

// SHA256 identifies decoded audio: the hash of "pcm-f32le:<rate>:<channels>:" followed by the
// samples as little-endian float32. Two containers with the same samples hash the same.
func (a Audio) SHA256() string {
	h := NewAudioHasher(a.SampleRate, a.Channels)
	h.Write(a.Samples)
	return h.Sum()
}

// AudioHasher computes Audio.SHA256 as the samples come, so that a decoder can hash each block
// while it is still in cache instead of making a second pass (and a second copy) over the clip.
type AudioHasher struct {
	h   hash.Hash
	buf [4096]byte // one block of samples as little-endian float32
}

// NewAudioHasher starts the hash of a clip of rate Hz and channels channels.
func NewAudioHasher(rate, channels int) *AudioHasher {
	a := &AudioHasher{h: sha256.New()}
	prefix := strconv.AppendInt(append(a.buf[:0], "pcm-f32le:"...), int64(rate), 10)
	prefix = strconv.AppendInt(append(prefix, ':'), int64(channels), 10)
	a.h.Write(append(prefix, ':'))
	return a
}

// Write hashes the next samples (interleaved, as in Audio.Samples).
func (a *AudioHasher) Write(samples []float32) {
	if le := littleEndianBytes(samples); le != nil { // already the hashed bytes: no copy
		a.h.Write(le)
		return
	}
	a.writeEncoded(samples)
}

// writeEncoded hashes samples encoded block by block (a big-endian machine).
func (a *AudioHasher) writeEncoded(samples []float32) {
	for len(samples) > 0 {
		n := min(len(samples), len(a.buf)/4)
		for i, v := range samples[:n] {
			binary.LittleEndian.PutUint32(a.buf[4*i:], math.Float32bits(v))
		}
		a.h.Write(a.buf[:4*n])
		samples = samples[n:]
	}
}

// Sum is the hex SHA-256 of everything written: Audio.SHA256 of those samples.
func (a *AudioHasher) Sum() string {
	var sum [sha256.Size]byte
	return hex.EncodeToString(a.h.Sum(sum[:0]))
}

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

// AudioQuestionSHA256 identifies an audio_text_to_text input: the hash of the decoded clip's
// SHA256 (Audio.SHA256), a NUL, and the question. The server records it as input_sha256 (with
// the question trimmed as it passes it to the Task) and `trtmc-native answer` prints it.
func AudioQuestionSHA256(clipSHA256, question string) string {
	s := sha256.Sum256([]byte(clipSHA256 + "\x00" + question))
	return hex.EncodeToString(s[:])
}
