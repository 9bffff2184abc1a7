package procdiff

import (
	"hash/fnv"
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"strings"
)

// The pipeline has a real diffusion structure: text conditioning, seeded latent noise, N DDIM
// denoising steps with classifier-free guidance, and a decoder from latents to RGB. It is NOT a
// trained model: the denoiser steers latents toward a procedural, prompt-conditioned target
// (gratings and blobs whose parameters come from the prompt embedding, plus a composition
// field from the seed's noise) and adds the detail predicted by a small convolutional network
// with seeded weights. Cost grows with latent size × steps ×
// hidden channels, like a real denoiser's.

const (
	latentChannels = 4
	embedDim       = 16
	latentScale    = 8 // pixels per latent cell
	trainSteps     = 1000
	// detailWeight scales the network's detail term in each step's clean-image estimate
	// x̂0 = target + detailWeight·net(x_t, t, prompt). The network sees the noisy latent and the
	// timestep, so the schedule (the step count) and the residual noise at the last step shape
	// the final detail: fewer steps leave noisier detail.
	detailWeight = 0.3
)

// weights are the network parameters packed in the bundle.
type weights struct {
	hidden int
	w1     []float32 // [hidden][latentChannels][3][3]
	b1     []float32 // [hidden]
	proj   []float32 // [hidden][embedDim]
	w2     []float32 // [latentChannels][hidden][3][3]
	dec    []float32 // [3][latentChannels]
	decB   []float32 // [3]
}

// generateWeights draws the network's parameters from a seed (the checkpoint's weights).
func generateWeights(seed uint64, hidden int) weights {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	draw := func(n int, scale float64) []float32 {
		out := make([]float32, n)
		for i := range out {
			out[i] = float32(rng.NormFloat64() * scale)
		}
		return out
	}
	return weights{
		hidden: hidden,
		w1:     draw(hidden*latentChannels*9, 1/math.Sqrt(float64(latentChannels*9))),
		b1:     draw(hidden, 0.1),
		proj:   draw(hidden*embedDim, 1/math.Sqrt(embedDim)),
		w2:     draw(latentChannels*hidden*9, 1/math.Sqrt(float64(hidden*9))),
		dec:    []float32{0.9, 0.25, -0.2, 0.3, 0.2, 0.85, 0.25, -0.25, -0.15, 0.2, 0.95, 0.35},
		decB:   []float32{0.05, 0, -0.05},
	}
}

// embed is the text encoder: the mean of per-word vectors drawn from each word's FNV-1a hash.
// Equal prompts embed equally; the empty prompt is the zero (unconditional) embedding.
func embed(prompt string) [embedDim]float64 {
	var out [embedDim]float64
	words := strings.Fields(strings.ToLower(prompt))
	for _, w := range words {
		h := fnv.New64a()
		h.Write([]byte(w))
		rng := rand.New(rand.NewPCG(h.Sum64(), 0xe1bed))
		for i := range out {
			out[i] += rng.Float64()*2 - 1
		}
	}
	for i := range out {
		if len(words) > 0 {
			out[i] /= float64(len(words))
		}
	}
	return out
}

// targetParams turns an embedding into the procedural target's parameters: per latent channel,
// two gratings (frequency, orientation, phase, amplitude) and one blob.
type targetParams struct {
	fx, fy, phase, amp [latentChannels][2]float64
	cx, cy, sigma, b   [latentChannels]float64
}

func paramsOf(e [embedDim]float64) targetParams {
	var p targetParams
	for k := range latentChannels {
		for j := range 2 {
			a, b := e[(4*k+2*j)%embedDim], e[(4*k+2*j+1)%embedDim]
			p.fx[k][j] = 1 + 3*math.Abs(a)
			p.fy[k][j] = 3 * b
			p.phase[k][j] = math.Pi * (a + b)
			p.amp[k][j] = 0.2 * (0.5 + math.Abs(e[(k+j+5)%embedDim]))
		}
		p.cx[k] = 0.5 + 0.35*e[(k+9)%embedDim]
		p.cy[k] = 0.5 + 0.35*e[(k+13)%embedDim]
		p.sigma[k] = 0.12 + 0.1*math.Abs(e[(k+3)%embedDim])
		p.b[k] = 0.5 * e[(k+11)%embedDim]
	}
	return p
}

// alphaBar is Stable Diffusion's scaled-linear schedule: ᾱ_t = Π(1 − β_s), β from 0.00085 to
// 0.012 over 1000 training steps.
func alphaBar(t int) float64 {
	lo, hi := math.Sqrt(0.00085), math.Sqrt(0.012)
	prod := 1.0
	for s := 0; s <= t; s++ {
		b := lo + (hi-lo)*float64(s)/float64(trainSteps-1)
		prod *= 1 - b*b
	}
	return prod
}

// timesteps spaces N DDIM steps evenly over the training schedule, high noise first.
func timesteps(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = (trainSteps - 1) - i*trainSteps/n
	}
	return out
}

// noise draws the initial latent from the seed.
func noise(seed int64, n int) []float64 {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x1a7e47))
	out := make([]float64, n)
	for i := range out {
		out[i] = rng.NormFloat64()
	}
	return out
}

// timeEmbedding is the scalar a hidden channel adds at step t.
func timeEmbedding(t, channel int) float64 {
	return 0.5 * math.Sin(float64(t)*0.01*float64(channel+1))
}

// toNRGBA quantizes [0,1] RGB planes to an 8-bit image (round half up).
func toNRGBA(rgb [3][]float64, w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			i := y*w + x
			q := func(v float64) uint8 { return uint8(math.Floor(math.Min(1, math.Max(0, v))*255 + 0.5)) }
			img.SetNRGBA(x, y, color.NRGBA{q(rgb[0][i]), q(rgb[1][i]), q(rgb[2][i]), 255})
		}
	}
	return img
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// The initial noise's low frequencies decide the composition, as they do in a trained
// diffusion model, so different seeds give visibly different images for the same prompt: the
// target adds compositionWeight × (the seed's noise box-blurred three times, scaled to unit std).
const (
	compositionWeight = 0.5
	lowpassRadius     = 4 // a 9×9 box, applied three times
)
