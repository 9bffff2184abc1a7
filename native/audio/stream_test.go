package audio

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"slices"
	"testing"
)

// streamFiles are WAV files, valid and not, whose framing differs in the ways Stream must
// hand over to DecodeWAV.
func streamFiles() map[string][]byte {
	pcm := make([]int16, 3000)
	for i := range pcm {
		pcm[i] = int16(i*37 - 20000)
	}
	good := EncodePCM16(pcm, 1, 16000)
	with := func(edit func(b []byte) []byte) []byte { return edit(append([]byte(nil), good...)) }
	chunk := func(id string, body []byte) []byte {
		c := append([]byte(id), binary.LittleEndian.AppendUint32(nil, uint32(len(body)))...)
		c = append(c, body...)
		if len(body)%2 == 1 {
			c = append(c, 0)
		}
		return c
	}
	riff := func(chunks ...[]byte) []byte {
		body := []byte("WAVE")
		for _, c := range chunks {
			body = append(body, c...)
		}
		return append(append([]byte("RIFF"), binary.LittleEndian.AppendUint32(nil, uint32(len(body)))...), body...)
	}
	fmtChunk, dataChunk := good[12:36], good[36:]
	return map[string][]byte{
		"pcm16":            good,
		"stereo":           EncodePCM16(pcm, 2, 8000),
		"float32":          encodeFloat32Test([]float32{0, 0.5, -0.25, 1e-7, -1, 3}, 2, 22050),
		"float32-16bit":    encodeFloat32Test([]float32{0, 0.5, -0.25, -1, 32767.0 / 32768, 1.0 / 32768}, 2, 22050),
		"float32-neg-zero": encodeFloat32Test([]float32{0, 0.5, float32(math.Copysign(0, -1)), -1}, 1, 16000),
		"float32-nan":      encodeFloat32Test([]float32{0, float32(math.NaN()), 1}, 1, 16000),
		"float32-inf":      encodeFloat32Test([]float32{0, 1, float32(math.Inf(-1))}, 1, 16000),
		"empty-data":       EncodePCM16(nil, 1, 16000),
		"list-before":      riff(chunk("LIST", []byte("INFOISFT\x03\x00\x00\x00ab\x00")), fmtChunk, dataChunk),
		"data-before-fmt":  riff(dataChunk, fmtChunk),
		"fmt-after-data":   riff(fmtChunk, dataChunk, chunk("fmt ", with(func(b []byte) []byte { binary.LittleEndian.PutUint16(b[22:], 2); return b })[20:36])),
		"trailing-junk":    append(append([]byte(nil), good...), "junk\x02\x00\x00\x00hi"...),
		"trailing-cut":     append(append([]byte(nil), good...), "junk\x10\x00"...),
		"two-data":         riff(fmtChunk, dataChunk, dataChunk),
		"extensible":       with(func(b []byte) []byte { binary.LittleEndian.PutUint16(b[20:], fmtExtensible); return b }),
		"truncated":        good[:len(good)-3],
		"lying-size":       with(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[40:], 1<<30); return b }),
		"no-data":          good[:36],
		"8-bit":            with(func(b []byte) []byte { binary.LittleEndian.PutUint16(b[34:], 8); return b }),
		"adpcm":            with(func(b []byte) []byte { binary.LittleEndian.PutUint16(b[20:], 2); return b }),
		"zero-channels":    with(func(b []byte) []byte { binary.LittleEndian.PutUint16(b[22:], 0); return b }),
		"zero-rate":        with(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[24:], 0); return b }),
		"odd-frames":       with(func(b []byte) []byte { binary.LittleEndian.PutUint16(b[22:], 7); return b }),
		"short-fmt":        riff(chunk("fmt ", fmtChunk[8:20]), dataChunk),
		"not-riff":         []byte("ID3\x03 an mp3 named .wav"),
		"riff-only":        []byte("RIFF\x00\x00\x00\x00WAVE"),
		"odd-sized-chunk":  riff(chunk("odd ", []byte("abc")), fmtChunk, dataChunk),
		"fmt-with-extra":   riff(chunk("fmt ", append(append([]byte(nil), fmtChunk[8:]...), 0, 0)), dataChunk),
		"data-over-memory": with(func(b []byte) []byte { return b }), // decoded with a max below its size
	}
}

// checkStreamMatches feeds data to a Stream in pieces of piece bytes and checks that Finish
// gives exactly DecodeWAV's clip or error and Audio.SHA256's hash.
func checkStreamMatches(t *testing.T, name string, data []byte, piece, max int) {
	t.Helper()
	want, wantErr := DecodeWAV(data)
	s := NewStream(max, func(n int) []float32 { // a reused buffer: contents are garbage
		b := make([]float32, n)
		for i := range b {
			b[i] = float32(math.NaN())
		}
		return b
	})
	for n := min(piece, len(data)); n < len(data); n = min(n+piece, len(data)) {
		s.Arrived(data[:n])
	}
	got, sha, err := s.Finish(data)
	switch {
	case (err == nil) != (wantErr == nil) || err != nil && (err.Error() != wantErr.Error() || CodeOf(err) != CodeOf(wantErr)):
		t.Fatalf("%s in pieces of %d: error %v, DecodeWAV's %v", name, piece, err, wantErr)
	case err != nil:
		return
	case got.SampleRate != want.SampleRate || got.Channels != want.Channels || !slices.Equal(got.Samples, want.Samples):
		t.Fatalf("%s in pieces of %d: clip differs from DecodeWAV's", name, piece)
	case sha != want.SHA256():
		t.Fatalf("%s in pieces of %d: hash %s, Audio.SHA256 %s", name, piece, sha, want.SHA256())
	}
}

func TestStreamIsDecodeWAV(t *testing.T) {
	for name, data := range streamFiles() {
		max := len(data)
		if name == "data-over-memory" {
			max = len(data) / 2
		}
		for _, piece := range []int{1, 2, 3, 11, 44, 45, 100, 4096, len(data) + 1} {
			checkStreamMatches(t, name, data, piece, max)
		}
	}
}

// The fast path is taken for a canonical upload: the samples and hash come from the stream.
func TestStreamConvertsAsBytesArrive(t *testing.T) {
	data := EncodePCM16(make([]int16, 16000), 1, 16000)
	s := NewStream(len(data), nil)
	s.Arrived(data[:1000])
	if !s.started || s.done != 1000-44 {
		t.Fatalf("after 1000 bytes: started %v, %d data bytes converted, want %d", s.started, s.done, 1000-44)
	}
	a, sha, err := s.Finish(data)
	if err != nil || len(a.Samples) != 16000 || sha != "f9ab8a4037bce53d5a919726a948886404a1be7d88ac74fb9882c355bfc8fd45" { // task's pinned "zeros"
		t.Fatalf("%d samples, hash %s, err %v", len(a.Samples), sha, err)
	}
}

// The hash identifies the samples, not the container: a float32 WAV whose samples are all
// k/32768 hashes like the PCM16 WAV of those k, by DecodeWAV and by Stream, and that is the
// SHA-256 of "pcm-s16le:<rate>:<channels>:" and the PCM16 WAV's data chunk bytes. One sample
// that is not a 16-bit value (-0.0, 1.0) makes the float32 WAV hash otherwise.
func TestFloatWAVOfPCM16SamplesHashesLikePCM16(t *testing.T) {
	pcm := make([]int16, 4001)
	for i := range pcm {
		pcm[i] = int16(i*7919 - 32768)
	}
	pcm[0], pcm[1] = -32768, 32767
	samples := make([]float32, len(pcm))
	for i, k := range pcm {
		samples[i] = float32(k) / 32768
	}
	wav16 := EncodePCM16(pcm, 1, 16000)
	sum := sha256.Sum256(append([]byte("pcm-s16le:16000:1:"), wav16[44:]...))
	want := hex.EncodeToString(sum[:])
	hashOf := func(data []byte) string {
		a, err := DecodeWAV(data)
		if err != nil {
			t.Fatal(err)
		}
		s := NewStream(len(data), nil)
		s.Arrived(data[:len(data)/2])
		_, sha, err := s.Finish(data)
		if err != nil || sha != a.SHA256() {
			t.Fatalf("Stream hash %s, DecodeWAV's %s (%v)", sha, a.SHA256(), err)
		}
		return sha
	}
	if got := hashOf(wav16); got != want {
		t.Errorf("PCM16 WAV: %s, want %s", got, want)
	}
	if got := hashOf(encodeFloat32Test(samples, 1, 16000)); got != want {
		t.Errorf("float32 WAV of the same samples: %s, want %s", got, want)
	}
	for _, v := range []float32{float32(math.Copysign(0, -1)), 1} {
		other := append([]float32(nil), samples...)
		other[4000] = v
		if got := hashOf(encodeFloat32Test(other, 1, 16000)); got == want {
			t.Errorf("a float32 WAV with %v hashes like the PCM16 one", v)
		}
	}
}

// FuzzStreamIsDecodeWAV: for any bytes, fed in any piece size, Stream agrees with DecodeWAV.
func FuzzStreamIsDecodeWAV(f *testing.F) {
	for _, data := range streamFiles() {
		f.Add(data, uint16(7))
	}
	f.Fuzz(func(t *testing.T, data []byte, piece uint16) {
		checkStreamMatches(t, "fuzz", data, int(piece)+1, len(data))
	})
}

// BenchmarkStreamPCM16 decodes and hashes a 1 s 16 kHz PCM16 upload arriving in 4 KB pieces,
// as the server does.
func BenchmarkStreamPCM16(b *testing.B) {
	pcm := make([]int16, 16000)
	for i := range pcm {
		pcm[i] = int16(i*7919 - 32768)
	}
	data := EncodePCM16(pcm, 1, 16000)
	buf := make([]float32, 16000)
	for b.Loop() {
		s := NewStream(len(data), func(int) []float32 { return buf })
		for n := 4096; n < len(data); n += 4096 {
			s.Arrived(data[:n])
		}
		if _, _, err := s.Finish(data); err != nil {
			b.Fatal(err)
		}
	}
}
