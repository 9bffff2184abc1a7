package metrics

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/disintegration/imaging"
)

// imagePair is one named pair for the scikit-image parity test.
type imagePair struct {
	name string
	a, b *image.NRGBA
}

func noiseImage(rng *rand.Rand, w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(rng.IntN(256))
		if i%4 == 3 {
			img.Pix[i] = 255
		}
	}
	return img
}

func gradientImage(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.NRGBA{uint8(x * 255 / max(1, w-1)), uint8(y * 255 / max(1, h-1)), uint8((x + y) % 256), 255})
		}
	}
	return img
}

func constantImage(w, h int, v uint8) *image.NRGBA {
	return imaging.New(w, h, color.NRGBA{v, v, v, 255})
}

func addNoise(rng *rand.Rand, src *image.NRGBA, amp int) *image.NRGBA {
	out := imaging.Clone(src)
	for i := range out.Pix {
		if i%4 != 3 {
			out.Pix[i] = uint8(min(255, max(0, int(out.Pix[i])+rng.IntN(2*amp+1)-amp)))
		}
	}
	return out
}

func parityImagePairs() []imagePair {
	rng := rand.New(rand.NewPCG(6, 6))
	var pairs []imagePair
	for _, size := range [][2]int{{64, 64}, {33, 17}, {7, 7}, {100, 9}, {128, 96}} {
		w, h := size[0], size[1]
		g := gradientImage(w, h)
		n := noiseImage(rng, w, h)
		pairs = append(pairs,
			imagePair{fmt.Sprintf("identical-%dx%d", w, h), g, imaging.Clone(g)},
			imagePair{fmt.Sprintf("noise5-%dx%d", w, h), g, addNoise(rng, g, 5)},
			imagePair{fmt.Sprintf("blur-%dx%d", w, h), g, imaging.Blur(g, 1.5)},
			imagePair{fmt.Sprintf("shift-%dx%d", w, h), n, imaging.Paste(imaging.New(w, h, color.NRGBA{0, 0, 0, 255}), n, image.Pt(2, 1))},
			imagePair{fmt.Sprintf("noise-vs-noise-%dx%d", w, h), n, noiseImage(rng, w, h)},
		)
	}
	pairs = append(pairs,
		imagePair{"constant-vs-constant", constantImage(32, 32, 128), constantImage(32, 32, 129)},
		imagePair{"constant-identical", constantImage(16, 16, 0), constantImage(16, 16, 0)},
		imagePair{"constant-vs-gradient", constantImage(40, 30, 200), gradientImage(40, 30)},
	)
	return pairs
}

func TestSSIMAndPSNRParityWithScikitImage(t *testing.T) {
	py := parityPython(t)
	dir := t.TempDir()
	pairs := parityImagePairs()
	var list strings.Builder
	for i, p := range pairs {
		a, b := filepath.Join(dir, fmt.Sprintf("%02d-a.png", i)), filepath.Join(dir, fmt.Sprintf("%02d-b.png", i))
		must(t, imaging.Save(p.a, a))
		must(t, imaging.Save(p.b, b))
		fmt.Fprintf(&list, "%s %s\n", a, b)
	}
	cmd := exec.Command(py, "testdata/skimage_metrics.py")
	cmd.Stdin = strings.NewReader(list.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("scikit-image oracle: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(pairs) {
		t.Fatalf("oracle printed %d lines for %d pairs", len(lines), len(pairs))
	}
	worst := 0.0
	for i, p := range pairs {
		f := strings.Fields(lines[i])
		wantSSIM, _ := strconv.ParseFloat(f[0], 64)
		wantPSNR, _ := strconv.ParseFloat(f[1], 64)
		a, b := FromImage(p.a), FromImage(p.b)
		gotSSIM, err := SSIM(a, b)
		must(t, err)
		gotPSNR, err := PSNR(a, b)
		must(t, err)
		worst = max(worst, math.Abs(gotSSIM-wantSSIM))
		if math.Abs(gotSSIM-wantSSIM) > 1e-6 {
			t.Errorf("%s: SSIM ours %.12f, scikit-image %.12f", p.name, gotSSIM, wantSSIM)
		}
		if !(math.IsInf(gotPSNR, 1) && math.IsInf(wantPSNR, 1)) && math.Abs(gotPSNR-wantPSNR) > 1e-6 {
			t.Errorf("%s: PSNR ours %v, scikit-image %v", p.name, gotPSNR, wantPSNR)
		}
	}
	t.Logf("scikit-image parity over %d pairs: worst SSIM difference %.3g", len(pairs), worst)
}

func TestPSNRIdenticalIsInfAndFormatted(t *testing.T) {
	g := FromImage(gradientImage(8, 8))
	db, err := PSNR(g, g)
	must(t, err)
	if !math.IsInf(db, 1) || FormatPSNR(db) != "inf (identical)" {
		t.Fatalf("PSNR of identical images = %v (%s)", db, FormatPSNR(db))
	}
	if got := FormatPSNR(31.234); got != "31.23 dB" {
		t.Errorf("FormatPSNR = %q", got)
	}
}

func TestImageMetricsRejectShapeMismatchAndTinyImages(t *testing.T) {
	a, b := FromImage(gradientImage(8, 8)), FromImage(gradientImage(9, 8))
	if _, err := MSE(a, b); err == nil {
		t.Error("MSE accepted different shapes")
	}
	if _, err := SSIM(a, b); err == nil {
		t.Error("SSIM accepted different shapes")
	}
	tiny := FromImage(gradientImage(6, 6))
	if _, err := SSIM(tiny, tiny); err == nil {
		t.Error("SSIM accepted an image smaller than its window")
	}
}

func TestPixelStatsStdRatioCosine(t *testing.T) {
	half := image.NewNRGBA(image.Rect(0, 0, 2, 1))
	copy(half.Pix, []uint8{0, 0, 0, 255, 255, 255, 255, 255})
	s := PixelStats(FromImage(half))
	if s.Mean != 0.5 || s.Std != 0.5 {
		t.Fatalf("stats = %+v, want mean 0.5 std 0.5", s)
	}
	flat := FromImage(constantImage(2, 1, 10))
	if r := StdRatio(FromImage(half), flat); r != 0 {
		t.Errorf("std ratio against a constant reference = %v, want 0 (fails closed)", r)
	}
	if r := StdRatio(FromImage(half), FromImage(half)); r != 1 {
		t.Errorf("std ratio to itself = %v", r)
	}
	if c, _ := Cosine(FromImage(half), FromImage(half)); math.Abs(c-1) > 1e-15 {
		t.Errorf("cosine to itself = %v", c)
	}
	zero := FromImage(constantImage(2, 1, 0))
	if c, _ := Cosine(zero, FromImage(half)); c != 0 {
		t.Errorf("cosine zero vs non-zero = %v", c)
	}
}

func TestDecodePNG(t *testing.T) {
	var buf bytes.Buffer
	must(t, png.Encode(&buf, gradientImage(5, 3)))
	p, err := DecodePNG(buf.Bytes())
	must(t, err)
	if p.Width != 5 || p.Height != 3 || len(p.Channels) != 3 || p.Channels[0][4] != 255 {
		t.Fatalf("decoded %dx%d channels=%d first-row-last-red=%v", p.Width, p.Height, len(p.Channels), p.Channels[0][4])
	}
	if _, err := DecodePNG([]byte("not a png")); err == nil {
		t.Error("garbage decoded as PNG")
	}
}
