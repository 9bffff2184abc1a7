package task

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
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

// The audio hash is pinned. This test used to say that input_sha256 values in past evidence
// must stay valid; schema 2 changed the definition (the s16 form for clips whose samples are
// all 16-bit values, where schema 1 hashed every clip in the float form), and that promise is
// now kept by evidence.SchemaVersion instead: schema-1 runs are refused by `qual verify` with
// "schema 1, this qual reads 2" rather than failing as a confusing hash mismatch. Any further
// change to these values must bump it again. The literals were computed with Python's hashlib:
//
//	python3 -c 'import hashlib,struct; print(hashlib.sha256(b"pcm-s16le:16000:1:" + struct.pack("<16000h", *[0]*16000)).hexdigest())'
//	python3 -c 'import hashlib,struct; print(hashlib.sha256(b"pcm-s16le:16000:1:" + struct.pack("<16000h", *[(i*7919)%65536-32768 for i in range(16000)])).hexdigest())'
//	python3 -c 'import hashlib,struct; print(hashlib.sha256(b"pcm-f32le:16000:1:" + struct.pack("<16000f", *[0.1 if i==8000 else ((i*7919)%65536-32768)/32768 for i in range(16000)])).hexdigest())'
func TestAudioSHA256IsPinned(t *testing.T) {
	ramp := make([]float32, 16000)
	for i := range ramp {
		ramp[i] = float32(int16((i*7919)%65536-32768)) / 32768
	}
	point1 := append([]float32(nil), ramp...)
	point1[8000] = 0.1 // not a 16-bit value: the float form
	cases := map[string]struct {
		a    Audio
		want string
	}{
		"zeros":         {Audio{Samples: make([]float32, 16000), SampleRate: 16000, Channels: 1}, "f9ab8a4037bce53d5a919726a948886404a1be7d88ac74fb9882c355bfc8fd45"},
		"ramp":          {Audio{Samples: ramp, SampleRate: 16000, Channels: 1}, "b6a12f9c7f0ddd3ec8201a28b312a77ad9a27358d668a0ad3e604a84bdc94a1d"},
		"ramp-with-0.1": {Audio{Samples: point1, SampleRate: 16000, Channels: 1}, "2d87311ffc215e949ef40e8085c2e91da373990efd1d6d738629220e07acf5ef"},
	}
	for name, c := range cases {
		if got := c.a.SHA256(); got != c.want {
			t.Errorf("%s: %s, want %s", name, got, c.want)
		}
	}
}

// sha256Of is the hex SHA-256 of "<form>:<rate>:<channels>:" and body, computed here
// independently of the package's hashers.
func sha256Of(form string, rate, channels int, body []byte) string {
	sum := sha256.Sum256(append([]byte(fmt.Sprintf("%s:%d:%d:", form, rate, channels)), body...))
	return hex.EncodeToString(sum[:])
}

// f32Bytes and s16Bytes are the bodies of the two forms.
func f32Bytes(samples []float32) []byte {
	var b []byte
	for _, v := range samples {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

func s16Bytes(pcm []int16) []byte {
	var b []byte
	for _, k := range pcm {
		b = binary.LittleEndian.AppendUint16(b, uint16(k))
	}
	return b
}

// The bounds of the 16-bit values: -1.0 (k = -32768) and 32767/32768 are, 1.0 (k = 32768,
// out of range) is not; -0.0 is not either (bits are compared), while 0.0 is. One sample that
// is not puts the whole clip in the float form, wherever it is; -0.0 and 0.0 clips differ.
func TestAudioSHA256SixteenBitBounds(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	for _, c := range []struct {
		v    float32
		k    int16
		is16 bool
	}{{-1, -32768, true}, {32767.0 / 32768, 32767, true}, {0, 0, true}, {1.0 / 32768, 1, true}, {-1.0 / 32768, -1, true},
		{1, 0, false}, {negZero, 0, false}, {0.1, 0, false}, {1.0 / 65536, 0, false}, {-1 - 1.0/8388608*2, 0, false}, {2, 0, false},
		{float32(math.Inf(1)), 0, false}, {float32(math.NaN()), 0, false}} {
		for _, at := range []int{0, 3, 4, 4999} { // in the unrolled loop, its tail, a later block
			samples := make([]float32, 5000)
			for i := range samples {
				samples[i] = float32(int16(i*31)) / 32768
			}
			samples[at] = c.v
			a := Audio{Samples: samples, SampleRate: 8000, Channels: 2}
			want := sha256Of("pcm-f32le", 8000, 2, f32Bytes(samples))
			if c.is16 {
				pcm := make([]int16, len(samples))
				for i := range pcm {
					pcm[i] = int16(i * 31)
				}
				pcm[at] = c.k
				want = sha256Of("pcm-s16le", 8000, 2, s16Bytes(pcm))
			}
			if got := a.SHA256(); got != want {
				t.Errorf("%v (bits %08x) at %d: %s, want %s (16-bit value: %v)", c.v, math.Float32bits(c.v), at, got, want, c.is16)
			}
		}
	}
	pos, neg := Audio{Samples: []float32{0.5, 0}, SampleRate: 1, Channels: 1}, Audio{Samples: []float32{0.5, negZero}, SampleRate: 1, Channels: 1}
	if pos.SHA256() == neg.SHA256() {
		t.Error("0.0 and -0.0 hash the same")
	}
}

// encodeS16 accepts exactly the 16-bit values of the definition, with their k: every k/32768
// and, against a table of the 65536 bit patterns that are, a spread of all float32 bits.
func TestEncodeS16IsTheDefinition(t *testing.T) {
	is16 := make(map[uint32]int16, 65536)
	for k := -32768; k <= 32767; k++ {
		is16[math.Float32bits(float32(k)/32768)] = int16(k)
	}
	check := func(bits uint32) {
		v := math.Float32frombits(bits)
		k, want := is16[bits]
		for _, n := range []int{1, 4, 5} { // the scalar tail and the unrolled loop
			dst, samples := make([]byte, 2*n), make([]float32, n)
			for i := range samples {
				samples[i] = v
			}
			ok := encodeS16(dst, samples)
			if ok != want || ok && int16(binary.LittleEndian.Uint16(dst[2*(n-1):])) != k {
				t.Fatalf("bits %08x (%v), %d samples: accepted %v, k %d; want %v, k %d", bits, v, n, ok, int16(binary.LittleEndian.Uint16(dst[2*(n-1):])), want, k)
			}
		}
	}
	for bits := range is16 {
		check(bits)
		check(bits + 1)
		check(bits - 1)
		check(bits ^ 0x80000000)
	}
	for bits := uint64(0); bits < 1<<32; bits += 65521 {
		check(uint32(bits))
	}
}

// Hashing a PCM16 data chunk's bytes in pieces of any size, samples split or not, gives
// Audio.SHA256 of the decoded clip: the s16 form.
func TestPCM16HasherInPiecesIsTheWholeHash(t *testing.T) {
	pcm := make([]int16, 5000)
	for i := range pcm {
		pcm[i] = int16(i*7919 - 16384)
	}
	pcm[1], pcm[2] = -32768, 32767
	raw := s16Bytes(pcm)
	a := Audio{Samples: make([]float32, len(pcm)), SampleRate: 22050, Channels: 2}
	for i, k := range pcm {
		a.Samples[i] = float32(k) / 32768
	}
	want := sha256Of("pcm-s16le", 22050, 2, raw)
	if a.SHA256() != want {
		t.Errorf("SHA256 %s, want %s", a.SHA256(), want)
	}
	for _, piece := range []int{1, 3, 7, 2047, 4096, 4097, 9999, 10000} {
		h := NewPCM16Hasher(a.SampleRate, a.Channels)
		for rest := raw; len(rest) > 0; {
			n := min(piece, len(rest))
			h.WriteLE(rest[:n])
			rest = rest[n:]
		}
		if got := h.Sum(); got != want {
			t.Errorf("pieces of %d bytes: %s, want %s", piece, got, want)
		}
	}
}

// The float form hashed in pieces of any size is the hash of the whole, as defined (computed
// here in one piece, independently of AudioHasher); these samples are not all 16-bit values,
// so it is their Audio.SHA256.
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
	h.s.writeF32Encoded(a.Samples)
	if got := h.Sum(); got != want {
		t.Errorf("encoded: %s, want %s", got, want)
	}
}
