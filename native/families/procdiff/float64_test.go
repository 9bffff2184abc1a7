package procdiff

import (
	"image"
	"math"

	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// float64Generate is the family's straightforward float64 implementation: the
// same pipeline as the native generator, written for clarity rather than speed, with every
// value in float64 and no fp16 rounding. The gate's golden PNGs are its output.
func float64Generate(w weights, req task.ImageRequest, index int) *image.NRGBA {
	lw, lh := req.Width/latentScale, req.Height/latentScale
	at := func(c, x, y int) int { return c*lw*lh + y*lw + x }
	cond, uncond := embed(req.Prompt), embed(req.NegativePrompt)
	patC := refPattern(paramsOf(cond), lw, lh, true)
	patU := refPattern(paramsOf(uncond), lw, lh, req.NegativePrompt != "")
	x := noise(req.Seed+int64(index), latentChannels*lw*lh)
	comp := refComposition(x, lw, lh)
	projC, projU := refProject(w, cond), refProject(w, uncond)
	ts := timesteps(req.Steps)
	for i, t := range ts {
		ab, abPrev := alphaBar(t), 1.0
		if i+1 < len(ts) {
			abPrev = alphaBar(ts[i+1])
		}
		epsC := refEps(w, x, t, ab, patC, comp, projC, lw, lh)
		epsU := refEps(w, x, t, ab, patU, comp, projU, lw, lh)
		next := make([]float64, len(x))
		for c := range latentChannels {
			for yy := range lh {
				for xx := range lw {
					j := at(c, xx, yy)
					e := epsU[j] + req.Guidance*(epsC[j]-epsU[j])
					x0 := (x[j] - math.Sqrt(1-ab)*e) / math.Sqrt(ab)
					next[j] = math.Sqrt(abPrev)*x0 + math.Sqrt(1-abPrev)*e
				}
			}
		}
		x = next
	}
	return refDecode(w, x, lw, lh)
}

func refPattern(p targetParams, lw, lh int, on bool) []float64 {
	out := make([]float64, latentChannels*lw*lh)
	for c := range latentChannels {
		for y := range lh {
			for x := range lw {
				if on {
					out[c*lw*lh+y*lw+x] = patternAt(p, c, (float64(x)+0.5)/float64(lw), (float64(y)+0.5)/float64(lh))
				}
			}
		}
	}
	return out
}

func refComposition(noise []float64, lw, lh int) []float64 {
	cur := append([]float64(nil), noise...)
	blur := func(src []float64, dx, dy int) []float64 {
		dst := make([]float64, len(src))
		for c := range latentChannels {
			for y := range lh {
				for x := range lw {
					sum := 0.0
					for d := -lowpassRadius; d <= lowpassRadius; d++ {
						yy, xx := min(max(y+d*dy, 0), lh-1), min(max(x+d*dx, 0), lw-1)
						sum += src[c*lw*lh+yy*lw+xx]
					}
					dst[c*lw*lh+y*lw+x] = sum / float64(2*lowpassRadius+1)
				}
			}
		}
		return dst
	}
	for range 3 {
		cur = blur(blur(cur, 1, 0), 0, 1)
	}
	for c := range latentChannels {
		plane := cur[c*lw*lh : (c+1)*lw*lh]
		mean, sq := 0.0, 0.0
		for _, v := range plane {
			mean += v
			sq += v * v
		}
		mean /= float64(len(plane))
		std := math.Sqrt(math.Max(sq/float64(len(plane))-mean*mean, 1e-12))
		for i := range plane {
			plane[i] = (plane[i] - mean) / std
		}
	}
	return cur
}

func refProject(w weights, e [embedDim]float64) []float64 {
	out := make([]float64, w.hidden)
	for k := range out {
		for d := range embedDim {
			out[k] += float64(w.proj[k*embedDim+d]) * e[d]
		}
	}
	return out
}

// refConv is a plain 3×3 convolution with zero padding.
func refConv(in []float64, inCh int, kernel []float32, lw, lh int, x, y int) float64 {
	sum := 0.0
	for c := range inCh {
		for ky := -1; ky <= 1; ky++ {
			for kx := -1; kx <= 1; kx++ {
				xx, yy := x+kx, y+ky
				if xx < 0 || yy < 0 || xx >= lw || yy >= lh {
					continue
				}
				sum += float64(kernel[c*9+(ky+1)*3+kx+1]) * in[c*lw*lh+yy*lw+xx]
			}
		}
	}
	return sum
}

func refEps(w weights, x []float64, t int, ab float64, pat, comp, proj []float64, lw, lh int) []float64 {
	hid := make([]float64, w.hidden*lw*lh)
	for k := range w.hidden {
		for y := range lh {
			for xx := range lw {
				v := refConv(x, latentChannels, w.w1[k*latentChannels*9:], lw, lh, xx, y) +
					float64(w.b1[k]) + proj[k] + timeEmbedding(t, k)
				hid[k*lw*lh+y*lw+xx] = math.Tanh(v)
			}
		}
	}
	out := make([]float64, len(x))
	for c := range latentChannels {
		for y := range lh {
			for xx := range lw {
				i := c*lw*lh + y*lw + xx
				refine := refConv(hid, w.hidden, w.w2[c*w.hidden*9:], lw, lh, xx, y)
				target := pat[i] + compositionWeight*comp[i]
				x0 := target + detailWeight*refine // the step's clean-image estimate
				out[i] = (x[i] - math.Sqrt(ab)*x0) / math.Sqrt(1-ab)
			}
		}
	}
	return out
}

func refDecode(w weights, x []float64, lw, lh int) *image.NRGBA {
	W, H := lw*latentScale, lh*latentScale
	rgb := [3][]float64{make([]float64, W*H), make([]float64, W*H), make([]float64, W*H)}
	sample := func(c int, fx, fy float64) float64 {
		x0, y0 := int(math.Floor(fx)), int(math.Floor(fy))
		tx, ty := fx-float64(x0), fy-float64(y0)
		at := func(xx, yy int) float64 { return x[c*lw*lh+min(max(yy, 0), lh-1)*lw+min(max(xx, 0), lw-1)] }
		return (at(x0, y0)*(1-tx)+at(x0+1, y0)*tx)*(1-ty) + (at(x0, y0+1)*(1-tx)+at(x0+1, y0+1)*tx)*ty
	}
	for py := range H {
		for px := range W {
			fx, fy := (float64(px)+0.5)/latentScale-0.5, (float64(py)+0.5)/latentScale-0.5
			for o := range 3 {
				v := float64(w.decB[o])
				for c := range latentChannels {
					v += float64(w.dec[o*latentChannels+c]) * sample(c, fx, fy)
				}
				rgb[o][py*W+px] = sigmoid(v)
			}
		}
	}
	return toNRGBA(rgb, W, H)
}
