package procdiff

import (
	"context"
	"fmt"
	"image"
	"math"

	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// generator is the native (float32) implementation of the pipeline. With half set, latents and
// noise predictions are rounded to float16 after every step, as an fp16 engine would store them.
type generator struct {
	w    weights
	half bool
}

// state holds one image's buffers.
type state struct {
	lw, lh int
	x      []float32 // latent [4][lh][lw]
	tc, tu []float32 // prompt patterns (conditional, unconditional)
	pc, pu []float32 // projected embeddings per hidden channel
	h      []float32 // hidden activations [hidden][lh][lw]
	comp   []float32 // composition field from the seed's noise
	tmp    []float32
	epsC   []float32
	epsU   []float32
}

func (g *generator) generate(req task.ImageRequest, index int) *image.NRGBA {
	img, _ := g.generateUntil(context.Background(), req, index)
	return img
}

// generateUntil is generate, stopping between denoising steps once ctx is done (a serving
// request whose client went away), so a cancelled request does not hold its lane to the end.
func (g *generator) generateUntil(ctx context.Context, req task.ImageRequest, index int) (*image.NRGBA, error) {
	lw, lh := req.Width/latentScale, req.Height/latentScale
	n := latentChannels * lw * lh
	s := &state{lw: lw, lh: lh, x: make([]float32, n), h: make([]float32, g.w.hidden*lw*lh),
		comp: make([]float32, n), tmp: make([]float32, n), epsC: make([]float32, n), epsU: make([]float32, n)}
	cond, uncond := embed(req.Prompt), embed(req.NegativePrompt)
	s.tc = pattern32(paramsOf(cond), lw, lh, true)
	s.tu = pattern32(paramsOf(uncond), lw, lh, req.NegativePrompt != "")
	s.pc, s.pu = g.project(cond), g.project(uncond)
	for i, v := range noise(req.Seed+int64(index), n) {
		s.x[i] = float32(v)
	}
	g.composition(s)
	ts := timesteps(req.Steps)
	for i, t := range ts {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("generate image: stopped before step %d of %d: %w", i+1, len(ts), err)
		}
		ab, abPrev := alphaBar(t), 1.0
		if i+1 < len(ts) {
			abPrev = alphaBar(ts[i+1])
		}
		g.eps(s, t, ab, s.tc, s.pc, s.epsC)
		g.eps(s, t, ab, s.tu, s.pu, s.epsU)
		sa, s1a := float32(math.Sqrt(ab)), float32(math.Sqrt(1-ab))
		sp, s1p := float32(math.Sqrt(abPrev)), float32(math.Sqrt(1-abPrev))
		gs := float32(req.Guidance)
		for j := range s.x {
			e := s.epsU[j] + gs*(s.epsC[j]-s.epsU[j])
			x0 := (s.x[j] - s1a*e) / sa
			s.x[j] = g.round(sp*x0 + s1p*g.round(e))
		}
	}
	return decode32(g.w, s.x, lw, lh), nil
}

func (g *generator) round(v float32) float32 {
	if g.half {
		return roundHalf(v)
	}
	return v
}

// project maps an embedding to one bias per hidden channel.
func (g *generator) project(e [embedDim]float64) []float32 {
	out := make([]float32, g.w.hidden)
	for k := range out {
		var sum float32
		for d := range embedDim {
			sum += g.w.proj[k*embedDim+d] * float32(e[d])
		}
		out[k] = sum
	}
	return out
}

// composition box-blurs the initial noise three times (edges clamped) and scales each channel to
// unit standard deviation, into s.comp.
func (g *generator) composition(s *state) {
	lw, lh := s.lw, s.lh
	copy(s.comp, s.x)
	for range 3 {
		boxPass(s.comp, s.tmp, lw, lh, 1, 0)
		boxPass(s.tmp, s.comp, lw, lh, 0, 1)
	}
	for c := range latentChannels {
		plane := s.comp[c*lw*lh : (c+1)*lw*lh]
		var sum, sq float64
		for _, v := range plane {
			sum, sq = sum+float64(v), sq+float64(v)*float64(v)
		}
		mean := sum / float64(len(plane))
		std := math.Sqrt(math.Max(sq/float64(len(plane))-mean*mean, 1e-12))
		for i, v := range plane {
			plane[i] = float32((float64(v) - mean) / std)
		}
	}
}

// boxPass averages src over a (2r+1) window along x (dx=1) or y (dy=1) into dst, per channel.
func boxPass(src, dst []float32, lw, lh, dx, dy int) {
	const norm = 1.0 / float32(2*lowpassRadius+1)
	for c := range latentChannels {
		off := c * lw * lh
		for y := range lh {
			for x := range lw {
				var sum float32
				for d := -lowpassRadius; d <= lowpassRadius; d++ {
					sum += src[off+clamp(y+d*dy, lh)*lw+clamp(x+d*dx, lw)]
				}
				dst[off+y*lw+x] = sum * norm
			}
		}
	}
}

func clamp(i, n int) int { return min(max(i, 0), n-1) }

// eps predicts the noise from the step's clean-image estimate
// x̂0 = pattern + composition + detailWeight·conv3x3(tanh(conv3x3(x) + b + proj(e) + temb(t))).
func (g *generator) eps(s *state, t int, ab float64, pat, proj []float32, out []float32) {
	lw, lh, hid := s.lw, s.lh, g.w.hidden
	sa, inv := float32(math.Sqrt(ab)), float32(1/math.Sqrt(1-ab))
	for k := range hid {
		bias := g.w.b1[k] + proj[k] + float32(timeEmbedding(t, k))
		conv3(s.x, g.w.w1[k*latentChannels*9:], latentChannels, lw, lh, s.h[k*lw*lh:(k+1)*lw*lh], bias)
		for i := k * lw * lh; i < (k+1)*lw*lh; i++ {
			s.h[i] = float32(math.Tanh(float64(s.h[i])))
		}
	}
	for c := range latentChannels {
		conv3(s.h, g.w.w2[c*hid*9:], hid, lw, lh, out[c*lw*lh:(c+1)*lw*lh], 0)
		for i := c * lw * lh; i < (c+1)*lw*lh; i++ {
			target := pat[i] + compositionWeight*s.comp[i]
			x0 := target + detailWeight*out[i]
			out[i] = (s.x[i] - sa*x0) * inv
		}
	}
}

// conv3 computes one output plane of a 3×3 convolution (zero padding) over inChannels planes.
func conv3(in []float32, kernel []float32, inChannels, w, h int, out []float32, bias float32) {
	for i := range out {
		out[i] = bias
	}
	for c := range inChannels {
		plane := in[c*w*h : (c+1)*w*h]
		k := kernel[c*9 : c*9+9]
		for y := range h {
			for ky := -1; ky <= 1; ky++ {
				yy := y + ky
				if yy < 0 || yy >= h {
					continue
				}
				row, orow := plane[yy*w:(yy+1)*w], out[y*w:(y+1)*w]
				for kx := -1; kx <= 1; kx++ {
					kv := k[(ky+1)*3+kx+1]
					lo, hi := max(0, -kx), min(w, w-kx)
					for x := lo; x < hi; x++ {
						orow[x] += kv * row[x+kx]
					}
				}
			}
		}
	}
}

// pattern32 evaluates the prompt's procedural target on the latent grid (zeros when off).
func pattern32(p targetParams, lw, lh int, on bool) []float32 {
	out := make([]float32, latentChannels*lw*lh)
	if !on {
		return out
	}
	for c := range latentChannels {
		for y := range lh {
			for x := range lw {
				out[c*lw*lh+y*lw+x] = float32(patternAt(p, c, (float64(x)+0.5)/float64(lw), (float64(y)+0.5)/float64(lh)))
			}
		}
	}
	return out
}

// patternAt is the target at normalized coordinates (u, v) of channel c.
func patternAt(p targetParams, c int, u, v float64) float64 {
	val := 0.0
	for j := range 2 {
		val += p.amp[c][j] * math.Sin(2*math.Pi*(p.fx[c][j]*u+p.fy[c][j]*v)+p.phase[c][j])
	}
	du, dv := u-p.cx[c], v-p.cy[c]
	return val + p.b[c]*math.Exp(-(du*du+dv*dv)/(2*p.sigma[c]*p.sigma[c]))
}

// decode32 upsamples the latent bilinearly (half-pixel centers, edges clamped) and maps each
// pixel's 4 latent values to RGB through the decoder matrix and a sigmoid.
func decode32(w weights, x []float32, lw, lh int) *image.NRGBA {
	W, H := lw*latentScale, lh*latentScale
	rgb := [3][]float64{make([]float64, W*H), make([]float64, W*H), make([]float64, W*H)}
	for py := range H {
		fy := (float64(py)+0.5)/latentScale - 0.5
		y0 := int(math.Floor(fy))
		ty := fy - float64(y0)
		for px := range W {
			fx := (float64(px)+0.5)/latentScale - 0.5
			x0 := int(math.Floor(fx))
			tx := fx - float64(x0)
			var l [latentChannels]float64
			for c := range latentChannels {
				at := func(xx, yy int) float64 { return float64(x[c*lw*lh+clamp(yy, lh)*lw+clamp(xx, lw)]) }
				top := at(x0, y0)*(1-tx) + at(x0+1, y0)*tx
				bot := at(x0, y0+1)*(1-tx) + at(x0+1, y0+1)*tx
				l[c] = top*(1-ty) + bot*ty
			}
			for o := range 3 {
				v := float64(w.decB[o])
				for c := range latentChannels {
					v += float64(w.dec[o*latentChannels+c]) * l[c]
				}
				rgb[o][py*W+px] = sigmoid(v)
			}
		}
	}
	return toNRGBA(rgb, W, H)
}

// roundHalf rounds a float32 to the nearest float16 value (round half to even; overflow to
// ±Inf, tiny values to subnormals or zero), returned as float32.
func roundHalf(v float32) float32 {
	f := float64(v)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return v
	}
	a := math.Abs(f)
	if a >= 65520 {
		return float32(math.Copysign(math.Inf(1), f))
	}
	exp := math.Floor(math.Log2(a))
	if a == 0 || exp < -14 {
		exp = -14 // subnormal range: fixed spacing 2^-24
	}
	quantum := math.Ldexp(1, int(exp)-10)
	return float32(math.RoundToEven(f/quantum) * quantum)
}
