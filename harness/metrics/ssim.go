package metrics

import (
	"fmt"
	"sync"
)

// SSIM parameters are scikit-image's structural_similarity defaults for 8-bit images; the
// parity test holds this implementation to scikit-image within 1e-6.
const (
	ssimWin       = 7
	ssimK1        = 0.01
	ssimK2        = 0.03
	ssimDataRange = 255.0
)

// SSIM is the mean structural similarity over every valid 7×7 window (uniform weights, sample
// covariance), averaged over channels, as scikit-image computes it with data_range=255 and
// channel_axis set. Images smaller than the window are an error, as in scikit-image.
func SSIM(a, b Planes) (float64, error) {
	if err := sameShape(a, b); err != nil {
		return 0, err
	}
	if a.Width < ssimWin || a.Height < ssimWin {
		return 0, fmt.Errorf("ssim needs at least %dx%d pixels, got %dx%d", ssimWin, ssimWin, a.Width, a.Height)
	}
	per := make([]float64, len(a.Channels))
	var wg sync.WaitGroup
	for c := range a.Channels {
		wg.Go(func() { per[c] = ssimPlane(a.Channels[c], b.Channels[c], a.Width, a.Height) })
	}
	wg.Wait()
	sum := 0.0
	for _, v := range per {
		sum += v
	}
	return sum / float64(len(per)), nil
}

// ssimPlane uses summed-area tables: with integer-valued pixels every window sum is exact in
// float64 (at most 49·255² per window, far below 2^53), so the only rounding is in the final
// SSIM formula, which is why parity with scikit-image's running-sum filter is ~1e-12.
func ssimPlane(x, y []float64, w, h int) float64 {
	sx, sy, sxx, syy, sxy := integrals(x, y, w, h)
	const np = float64(ssimWin * ssimWin)
	covNorm := np / (np - 1)
	c1 := (ssimK1 * ssimDataRange) * (ssimK1 * ssimDataRange)
	c2 := (ssimK2 * ssimDataRange) * (ssimK2 * ssimDataRange)
	stride := w + 1
	total, count := 0.0, 0
	for top := 0; top+ssimWin <= h; top++ {
		for left := 0; left+ssimWin <= w; left++ {
			i00 := top*stride + left
			i01 := i00 + ssimWin
			i10 := (top+ssimWin)*stride + left
			i11 := i10 + ssimWin
			box := func(s []float64) float64 { return (s[i11] - s[i01] - s[i10] + s[i00]) / np }
			ux, uy := box(sx), box(sy)
			vx := covNorm * (box(sxx) - ux*ux)
			vy := covNorm * (box(syy) - uy*uy)
			vxy := covNorm * (box(sxy) - ux*uy)
			num := (2*ux*uy + c1) * (2*vxy + c2)
			den := (ux*ux + uy*uy + c1) * (vx + vy + c2)
			total += num / den
			count++
		}
	}
	return total / float64(count)
}

// integrals builds the five summed-area tables, each (w+1)×(h+1) with a zero first row/column.
func integrals(x, y []float64, w, h int) (sx, sy, sxx, syy, sxy []float64) {
	n := (w + 1) * (h + 1)
	sx, sy, sxx, syy, sxy = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	stride := w + 1
	for r := 0; r < h; r++ {
		var rx, ry, rxx, ryy, rxy float64
		for c := 0; c < w; c++ {
			a, b := x[r*w+c], y[r*w+c]
			rx, ry, rxx, ryy, rxy = rx+a, ry+b, rxx+a*a, ryy+b*b, rxy+a*b
			up, at := r*stride+c+1, (r+1)*stride+c+1
			sx[at], sy[at], sxx[at], syy[at], sxy[at] = sx[up]+rx, sy[up]+ry, sxx[up]+rxx, syy[up]+ryy, sxy[up]+rxy
		}
	}
	return
}
