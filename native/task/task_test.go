package task

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"image"
	"image/color"
	"math"
	"testing"
)

// Given values are never changed; only what was left out takes the family's defaults.
func TestFillImageDefaults(t *testing.T) {
	spec := ImageSpec{Sizes: [][2]int{{64, 48}, {32, 32}}, DefaultSteps: 8, DefaultGuide: 3.5}
	got := FillImageDefaults(spec, ImageRequest{Guidance: -1})
	if got.Width != 64 || got.Height != 48 || got.Steps != 8 || got.Guidance != 3.5 || got.Count != 1 {
		t.Errorf("defaults: %+v", got)
	}
	given := ImageRequest{Width: 32, Height: 32, Steps: 2, Guidance: 0, Count: 3}
	if got := FillImageDefaults(spec, given); got != given {
		t.Errorf("given values changed: %+v -> %+v", given, got)
	}
}

// The pixel hash is of the pixels: the same picture as NRGBA or as another image type hashes
// the same, and one changed pixel changes it.
func TestImageSHA256IsOfThePixels(t *testing.T) {
	n := image.NewNRGBA(image.Rect(0, 0, 3, 2))
	r := image.NewRGBA(image.Rect(0, 0, 3, 2))
	for y := range 2 {
		for x := range 3 {
			c := color.NRGBA{uint8(x * 40), uint8(y * 90), 7, 255}
			n.SetNRGBA(x, y, c)
			r.Set(x, y, c)
		}
	}
	if ImageSHA256(n) != ImageSHA256Of(r) || ImageSHA256Of(n) != ImageSHA256(n) {
		t.Errorf("same pixels, different hashes: %s %s", ImageSHA256(n), ImageSHA256Of(r))
	}
	before := ImageSHA256(n)
	n.SetNRGBA(2, 1, color.NRGBA{1, 2, 3, 255})
	if ImageSHA256(n) == before {
		t.Error("a changed pixel kept the hash")
	}
}

func TestErrorsKeepTheirCodes(t *testing.T) {
	var inv *InvalidInputError
	if err := Invalid("invalid_audio", "clip %d too short", 3); !errors.As(err, &inv) || inv.Code != "invalid_audio" || err.Error() != "clip 3 too short" {
		t.Errorf("%v", err)
	}
}

// The audio hash is pinned: input_sha256 values in past evidence must stay valid. The literals
// were computed by the original two-pass implementation and checked with Python's hashlib over
// b"pcm-f32le:16000:1:" + struct.pack("<16000f", ...).
func TestAudioSHA256IsPinned(t *testing.T) {
	ramp := make([]float32, 16000)
	for i := range ramp {
		ramp[i] = float32(int16((i*7919)%65536-32768)) / 32768
	}
	cases := map[string]struct {
		a    Audio
		want string
	}{
		"zeros": {Audio{Samples: make([]float32, 16000), SampleRate: 16000, Channels: 1}, "48deb67b1ffb7668eac6fe1e84d6a0952af3f1424858986fab6e8cccd44f36fa"},
		"ramp":  {Audio{Samples: ramp, SampleRate: 16000, Channels: 1}, "761d62c7219f0d8bd4061bf3ef541f871cd68e5ac034e265f7ebee75f9f57092"},
	}
	for name, c := range cases {
		if got := c.a.SHA256(); got != c.want {
			t.Errorf("%s: %s, want %s", name, got, c.want)
		}
	}
}

// Hashing in pieces of any size gives the hash of the whole, as defined (computed here in one
// piece, independently of AudioHasher).
func TestAudioHasherInPiecesIsTheWholeHash(t *testing.T) {
	a := Audio{Samples: make([]float32, 5000), SampleRate: 22050, Channels: 2}
	whole := []byte("pcm-f32le:22050:2:")
	for i := range a.Samples {
		a.Samples[i] = float32(i%977) / 977
		whole = binary.LittleEndian.AppendUint32(whole, math.Float32bits(a.Samples[i]))
	}
	sum := sha256.Sum256(whole)
	want := hex.EncodeToString(sum[:])
	if a.SHA256() != want {
		t.Errorf("SHA256 %s, want %s", a.SHA256(), want)
	}
	for _, piece := range []int{1, 7, 1023, 1024, 1025, 4999, 5000} {
		h := NewAudioHasher(a.SampleRate, a.Channels)
		for rest := a.Samples; len(rest) > 0; {
			n := min(piece, len(rest))
			h.Write(rest[:n])
			rest = rest[n:]
		}
		if got := h.Sum(); got != want {
			t.Errorf("pieces of %d: %s, want %s", piece, got, want)
		}
	}
	// The big-endian path, which hashes an encoded copy, gives the same.
	h := NewAudioHasher(a.SampleRate, a.Channels)
	h.writeEncoded(a.Samples)
	if got := h.Sum(); got != want {
		t.Errorf("encoded: %s, want %s", got, want)
	}
}
