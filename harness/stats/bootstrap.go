package stats

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/trtmc-qual/trtmc-qual/harness/stats/schema"
	"github.com/trtmc-qual/trtmc-qual/harness/timing"
)

// Bootstrap defaults (TRTMC: 2,000 resamples, fixed seed).
const (
	Resamples = 2000
	Seed      = 20261130
)

// Ratio is one unit's share of a corpus figure: the figure is ΣNum/ΣDen over the units
// (WER: errors / gold words; a mean: value / 1).
type Ratio struct {
	Num float64 `json:"num"`
	Den float64 `json:"den"`
}

// Value is Num/Den.
func (r Ratio) Value() float64 { return r.Num / r.Den }

// Unit is one clip (or image) measured on both sides. Units with the same Cluster (a speaker, a
// recording) are resampled together, because they are not independent; an empty Cluster makes
// the unit its own cluster.
type Unit struct {
	ID      string `json:"id"`
	Cluster string `json:"cluster,omitempty"`
	Base    Ratio  `json:"base"`
	New     Ratio  `json:"new"`
}

// Regression maps one resample's summed base and new figures to R − margin, positive when new is
// worse than allowed.
type Regression struct {
	Name string
	R    func(base, new Ratio) float64
}

// Increase judges a lower-is-better figure (WER): R = new − base − margin.
func Increase(margin float64) Regression {
	return Regression{
		Name: fmt.Sprintf("new − base − %g (lower is better)", margin),
		R:    func(b, n Ratio) float64 { return n.Value() - b.Value() - margin },
	}
}

// Decrease judges a higher-is-better figure (PSNR): R = base − new − margin.
func Decrease(margin float64) Regression {
	return Regression{
		Name: fmt.Sprintf("base − new − %g (higher is better)", margin),
		R:    func(b, n Ratio) float64 { return b.Value() - n.Value() - margin },
	}
}

// AtMost judges one side against a pinned upper bound (gold WER ≤ bound): R = new − bound.
func AtMost(bound float64) Regression {
	return Regression{
		Name: fmt.Sprintf("figure − %g (must be ≤ %g)", bound, bound),
		R:    func(_, n Ratio) float64 { return n.Value() - bound },
	}
}

// AtLeast judges one side against a pinned lower bound (PSNR ≥ bound): R = bound − new.
func AtLeast(bound float64) Regression {
	return Regression{
		Name: fmt.Sprintf("%g − figure (must be ≥ %g)", bound, bound),
		R:    func(_, n Ratio) float64 { return bound - n.Value() },
	}
}

// BootstrapRule states how a NonInferiority is computed and judged.
const BootstrapRule = "paired percentile bootstrap of R (margin or bound included), resampling clusters with replacement " +
	"(2,000 resamples, fixed seed; a cluster is a speaker/recording when the dataset says so, else a clip); " +
	"pass iff the 95th percentile of R ≤ 0, fail iff the 5th > 0, else inconclusive"

// Bootstrap resamples clusters of units and judges R by its 5th and 95th percentiles.
func Bootstrap(units []Unit, reg Regression, resamples int, seed uint64) (schema.NonInferiority, error) {
	ni, err := bootstrapWith(units, reg, draws(countClusters(units), resamples, seed))
	ni.Seed = seed
	return ni, err
}

// bootstrapWith judges R over the given resamples of cluster indices.
func bootstrapWith(units []Unit, reg Regression, resamples [][]int) (schema.NonInferiority, error) {
	clusters, err := group(units)
	if err != nil {
		return schema.NonInferiority{}, err
	}
	est := reg.R(sums(clusters, identity(len(clusters))))
	if math.IsNaN(est) || math.IsInf(est, 0) {
		return schema.NonInferiority{}, fmt.Errorf("bootstrap: %s is %v on the full sample", reg.Name, est)
	}
	dist := make([]float64, 0, len(resamples))
	for _, draw := range resamples {
		dist = append(dist, reg.R(sums(clusters, draw)))
	}
	ni := schema.NonInferiority{
		Test: reg.Name, Estimate: est, Units: len(units), Clusters: len(clusters),
		Resamples: len(resamples), Rule: BootstrapRule,
		P05: timing.Percentile(dist, 5), P95: timing.Percentile(dist, 95),
	}
	switch {
	case ni.P95 <= 0:
		ni.Verdict = schema.Pass
	case ni.P05 > 0:
		ni.Verdict = schema.Fail
	default:
		ni.Verdict = schema.Inconclusive
	}
	return ni, nil
}

// countClusters is the number of clusters group will make.
func countClusters(units []Unit) int {
	seen := map[string]bool{}
	n := 0
	for _, u := range units {
		if u.Cluster == "" {
			n++
		} else if !seen[u.Cluster] {
			seen[u.Cluster] = true
			n++
		}
	}
	return n
}

// cluster is one resampling unit: the summed ratios of the units it holds.
type cluster struct{ base, new Ratio }

// group sums units into clusters in a stable order (first appearance), so the same data and seed
// always give the same resamples; a resample then only adds cluster totals.
func group(units []Unit) ([]cluster, error) {
	if len(units) == 0 {
		return nil, fmt.Errorf("bootstrap: %w", ErrNoData)
	}
	index := map[string]int{}
	var clusters []cluster
	for i, u := range units {
		if u.Base.Den <= 0 || u.New.Den <= 0 {
			return nil, fmt.Errorf("bootstrap: unit %q has a non-positive denominator", u.ID)
		}
		key := u.Cluster
		if key == "" {
			key = fmt.Sprintf("\x00unit-%d", i)
		}
		k, ok := index[key]
		if !ok {
			k = len(clusters)
			index[key] = k
			clusters = append(clusters, cluster{})
		}
		c := &clusters[k]
		c.base.Num, c.base.Den = c.base.Num+u.Base.Num, c.base.Den+u.Base.Den
		c.new.Num, c.new.Den = c.new.Num+u.New.Num, c.new.Den+u.New.Den
	}
	return clusters, nil
}

func identity(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// sums adds up the chosen clusters' base and new ratios.
func sums(clusters []cluster, draw []int) (base, new Ratio) {
	for _, i := range draw {
		c := clusters[i]
		base.Num, base.Den = base.Num+c.base.Num, base.Den+c.base.Den
		new.Num, new.Den = new.Num+c.new.Num, new.Den+c.new.Den
	}
	return base, new
}

// draws are the resamples: each a list of n cluster indices drawn with replacement from a PCG
// stream seeded by seed alone.
func draws(n, resamples int, seed uint64) [][]int {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	out := make([][]int, resamples)
	for r := range out {
		d := make([]int, n)
		for i := range d {
			d[i] = rng.IntN(n)
		}
		out[r] = d
	}
	return out
}
