// Package mediadigest recomputes TRTMC's compact digest of a generated image: the 64×64 RGB
// thumbnail its perf-serving app records in place of the image
// (apps/perf_serving/trtmc_perf_serving/digests.py: image_digest resizes each sampled frame with
// PIL's Image.resize((64, 64), Image.BILINEAR) and stores the uint8 HWC values flattened). The
// harness compares that record to the artifact the server kept, so the resize must be PIL's to
// the last bit: this is Pillow's two-pass fixed-point resampler (libImaging/Resample.c), horizontal
// pass first, with the bilinear (triangle) filter widened by the scale when shrinking.
//
// It is a leaf package: standard library only, no cgo (qual verify uses it offline).
package mediadigest

import (
	"fmt"
	"image"
	"image/color"
	"math"
)

// Size is TRTMC's THUMBNAIL (digests.py).
const Size = 64

// precisionBits is Resample.c's PRECISION_BITS (32 - 8 - 2).
const precisionBits = 32 - 8 - 2

// Thumbnail is the image's 64×64 RGB thumbnail, flattened HWC as digests.py stores it.
func Thumbnail(img image.Image) []int {
	rgb, w, h := toRGB(img)
	return Resize(rgb, w, h, Size, Size)
}

// toRGB is PIL's convert("RGB") of a decoded PNG: non-premultiplied channels, alpha dropped.
func toRGB(img image.Image) ([]uint8, int, int) {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	out := make([]uint8, 0, w*h*3)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			out = append(out, c.R, c.G, c.B)
		}
	}
	return out, w, h
}

// Resize resamples an RGB (HWC uint8) image of w×h to ow×oh as Pillow's BILINEAR resize does.
func Resize(rgb []uint8, w, h, ow, oh int) []int {
	if ow == w && oh == h { // Image.resize returns a copy when the size is unchanged
		out := make([]int, len(rgb))
		for i, v := range rgb {
			out[i] = int(v)
		}
		return out
	}
	tmp := rgb
	if ow != w {
		bounds, k, ksize := coeffs(w, ow)
		tmp = make([]uint8, h*ow*3)
		for y := 0; y < h; y++ {
			for x := 0; x < ow; x++ {
				lo, n := bounds[2*x], bounds[2*x+1]
				for c := 0; c < 3; c++ {
					ss := int64(1) << (precisionBits - 1)
					for i := 0; i < n; i++ {
						ss += int64(rgb[(y*w+lo+i)*3+c]) * int64(k[x*ksize+i])
					}
					tmp[(y*ow+x)*3+c] = clip8(ss)
				}
			}
		}
	}
	out := make([]int, oh*ow*3)
	if oh == h {
		for i, v := range tmp {
			out[i] = int(v)
		}
		return out
	}
	bounds, k, ksize := coeffs(h, oh)
	for y := 0; y < oh; y++ {
		lo, n := bounds[2*y], bounds[2*y+1]
		for x := 0; x < ow; x++ {
			for c := 0; c < 3; c++ {
				ss := int64(1) << (precisionBits - 1)
				for i := 0; i < n; i++ {
					ss += int64(tmp[((lo+i)*ow+x)*3+c]) * int64(k[y*ksize+i])
				}
				out[(y*ow+x)*3+c] = int(clip8(ss))
			}
		}
	}
	return out
}

// coeffs is Resample.c's precompute_coeffs with the bilinear filter (support 1), then
// normalize_coeffs_8bpc: per output pixel the first input index, the tap count and the
// fixed-point weights.
func coeffs(in, out int) (bounds []int, k []int32, ksize int) {
	scale := float64(in) / float64(out)
	filterscale := math.Max(scale, 1)
	support := 1.0 * filterscale
	ksize = int(math.Ceil(support))*2 + 1
	bounds, k = make([]int, out*2), make([]int32, out*ksize)
	w := make([]float64, ksize)
	for xx := 0; xx < out; xx++ {
		center := (float64(xx) + 0.5) * scale
		ss := 1.0 / filterscale
		xmin := int(center - support + 0.5) // C casts truncate toward zero, as Go's do
		if xmin < 0 {
			xmin = 0
		}
		xmax := int(center + support + 0.5)
		if xmax > in {
			xmax = in
		}
		xmax -= xmin
		ww := 0.0
		for x := 0; x < xmax; x++ {
			w[x] = triangle((float64(x+xmin) - center + 0.5) * ss)
			ww += w[x]
		}
		for x := 0; x < xmax; x++ {
			v := w[x]
			if ww != 0 {
				v /= ww
			}
			if v < 0 {
				k[xx*ksize+x] = int32(-0.5 + v*(1<<precisionBits))
			} else {
				k[xx*ksize+x] = int32(0.5 + v*(1<<precisionBits))
			}
		}
		bounds[2*xx], bounds[2*xx+1] = xmin, xmax
	}
	return bounds, k, ksize
}

func triangle(x float64) float64 {
	x = math.Abs(x)
	if x < 1 {
		return 1 - x
	}
	return 0
}

func clip8(v int64) uint8 {
	switch {
	case v >= 1<<precisionBits<<8:
		return 255
	case v <= 0:
		return 0
	}
	return uint8(v >> precisionBits)
}

// Digest is TRTMC's media_digest of one request's generated image (digests.py image_digest):
// frame count and geometry, the sampled frame indices and one flattened thumbnail per sample.
type Digest struct {
	Frames        int     `json:"frames"`
	Height        int     `json:"height"`
	Width         int     `json:"width"`
	SampledFrames []int   `json:"sampled_frames"`
	ThumbnailSize int     `json:"thumbnail_size"`
	Thumbnails    [][]int `json:"thumbnails"`
}

// Check says whether d is the digest of the single still image img ("" when it is): one frame
// of img's size, sampled at 0, and a thumbnail equal, value for value, to Thumbnail(img).
func (d Digest) Check(img image.Image) error {
	b := img.Bounds()
	switch {
	case d.Frames != 1 || len(d.SampledFrames) != 1 || d.SampledFrames[0] != 0 || len(d.Thumbnails) != 1:
		return fmt.Errorf("media_digest has %d frames, samples %v and %d thumbnails; a still image has 1, [0] and 1", d.Frames, d.SampledFrames, len(d.Thumbnails))
	case d.Width != b.Dx() || d.Height != b.Dy():
		return fmt.Errorf("media_digest says %dx%d, the image is %dx%d", d.Width, d.Height, b.Dx(), b.Dy())
	case d.ThumbnailSize != Size || len(d.Thumbnails[0]) != Size*Size*3:
		return fmt.Errorf("media_digest thumbnail is %d values at size %d, want %d at %d", len(d.Thumbnails[0]), d.ThumbnailSize, Size*Size*3, Size)
	}
	want := Thumbnail(img)
	diff, first := 0, -1
	for i, v := range d.Thumbnails[0] {
		if v != want[i] {
			if diff++; first < 0 {
				first = i
			}
		}
	}
	if diff > 0 {
		return fmt.Errorf("media_digest thumbnail differs from the image's in %d of %d values (first at %d: recorded %d, image %d)", diff, len(want), first, d.Thumbnails[0][first], want[first])
	}
	return nil
}
