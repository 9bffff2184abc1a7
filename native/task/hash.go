package task

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"image"
	"image/draw"
	"math"
)

// SHA256 identifies decoded audio: the hash of "pcm-f32le:<rate>:<channels>:" followed by the
// samples as little-endian float32. Two containers with the same samples hash the same.
func (a Audio) SHA256() string {
	h := sha256.New()
	fmt.Fprintf(h, "pcm-f32le:%d:%d:", a.SampleRate, a.Channels)
	buf := make([]byte, 4*len(a.Samples))
	for i, v := range a.Samples {
		binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(v))
	}
	h.Write(buf)
	return hex.EncodeToString(h.Sum(nil))
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
