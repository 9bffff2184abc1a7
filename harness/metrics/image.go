package metrics

import (
	"fmt"
	"image"
	"image/draw"
	"math"

	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
)

// Planes is an 8-bit image as float64 channel planes with values 0..255, the form every image
// metric here works on (scikit-image converts to float64 the same way before it computes).
type Planes struct {
	Width, Height int
	Channels      [][]float64 // each Width*Height, row-major
}

// DecodePNG reads PNG bytes into RGB planes (alpha dropped).
func DecodePNG(data []byte) (Planes, error) {
	img, err := runfile.DecodePNG(data)
	if err != nil {
		return Planes{}, fmt.Errorf("decode png: %w", err)
	}
	return FromImage(img), nil
}

// FromImage converts any image to RGB planes through image/draw's NRGBA conversion.
func FromImage(img image.Image) Planes {
	b := img.Bounds()
	rgba := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(rgba, rgba.Bounds(), img, b.Min, draw.Src)
	p := NewPlanes(b.Dx(), b.Dy(), 3)
	for i := 0; i < b.Dx()*b.Dy(); i++ {
		for c := 0; c < 3; c++ {
			p.Channels[c][i] = float64(rgba.Pix[4*i+c])
		}
	}
	return p
}

// NewPlanes allocates zeroed planes.
func NewPlanes(w, h, channels int) Planes {
	p := Planes{Width: w, Height: h, Channels: make([][]float64, channels)}
	for c := range p.Channels {
		p.Channels[c] = make([]float64, w*h)
	}
	return p
}

func sameShape(a, b Planes) error {
	if a.Width != b.Width || a.Height != b.Height || len(a.Channels) != len(b.Channels) {
		return fmt.Errorf("image shapes differ: %dx%dx%d vs %dx%dx%d",
			a.Width, a.Height, len(a.Channels), b.Width, b.Height, len(b.Channels))
	}
	return nil
}

// MSE is the mean squared difference over every pixel of every channel.
func MSE(a, b Planes) (float64, error) {
	if err := sameShape(a, b); err != nil {
		return 0, err
	}
	sum, n := 0.0, 0
	for c := range a.Channels {
		for i, v := range a.Channels[c] {
			d := v - b.Channels[c][i]
			sum += d * d
		}
		n += len(a.Channels[c])
	}
	return sum / float64(n), nil
}

// PSNR is 10·log10(255²/MSE) in dB. Identical images give +Inf: callers that print it must say
// "identical" (see FormatPSNR), and thresholds compare correctly against +Inf.
func PSNR(a, b Planes) (float64, error) {
	mse, err := MSE(a, b)
	if err != nil {
		return 0, err
	}
	if mse == 0 {
		return math.Inf(1), nil
	}
	return 10 * math.Log10(255*255/mse), nil
}

// FormatPSNR prints a PSNR, spelling out the identical case instead of "+Inf".
func FormatPSNR(db float64) string {
	if math.IsInf(db, 1) {
		return "inf (identical)"
	}
	return fmt.Sprintf("%.2f dB", db)
}

// Stats are pixel statistics on the [0, 1] scale TRTMC's diffusion sanity bounds use.
type Stats struct{ Mean, Std float64 }

// PixelStats is the mean and population standard deviation of all channels, scaled to [0, 1].
func PixelStats(p Planes) Stats {
	sum, sq, n := 0.0, 0.0, 0
	for _, ch := range p.Channels {
		for _, v := range ch {
			x := v / 255
			sum += x
			sq += x * x
		}
		n += len(ch)
	}
	if n == 0 {
		return Stats{}
	}
	mean := sum / float64(n)
	return Stats{Mean: mean, Std: math.Sqrt(max(0, sq/float64(n)-mean*mean))}
}

// StdRatio is the test image's pixel std divided by the reference's (0 when the reference is
// constant, so a "ratio ≥ x" bound fails closed).
func StdRatio(test, ref Planes) float64 {
	r := PixelStats(ref).Std
	if r == 0 {
		return 0
	}
	return PixelStats(test).Std / r
}

// Cosine is the cosine similarity of the two images as flat vectors (1 when either is all zero
// and both are equal, 0 when only one is all zero).
func Cosine(a, b Planes) (float64, error) {
	if err := sameShape(a, b); err != nil {
		return 0, err
	}
	dot, na, nb := 0.0, 0.0, 0.0
	for c := range a.Channels {
		for i, x := range a.Channels[c] {
			y := b.Channels[c][i]
			dot, na, nb = dot+x*y, na+x*x, nb+y*y
		}
	}
	if na == 0 || nb == 0 {
		if na == nb {
			return 1, nil
		}
		return 0, nil
	}
	return dot / math.Sqrt(na*nb), nil
}
