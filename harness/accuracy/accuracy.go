// Package accuracy judges a family gate's corpus figures (gold WER for transcripts, mean SSIM for
// images) against their pinned bounds with harness/stats' clustered bootstrap, producing the
// evidence.Accuracy rows a result carries; qual compare uses its units to compare two runs.
package accuracy

import (
	"fmt"
	"math"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/metrics"
	"github.com/trtmc-qual/trtmc-qual/harness/stats"
	"github.com/trtmc-qual/trtmc-qual/harness/stats/schema"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
)

// corpusFigure is how one gate figure is made from the gate's items and which bound judges it.
type corpusFigure struct {
	name, bound string
	atMost      bool
	units       func(items []evidence.GateItem) ([]stats.Unit, error)
}

// corpusFigures: gold WER for transcripts (bound gold_wer); mean SSIM to the expected images for
// images (bound ssim_min). Mean PSNR is not one of them: identical images have PSNR +Inf.
func corpusFigures(g *evidence.GateResult) []corpusFigure {
	if _, asr := g.Figures["gold_wer"]; asr {
		return []corpusFigure{{name: "gold_wer", bound: "gold_wer", atMost: true, units: GoldWERUnits}}
	}
	if _, t2i := g.Thresholds["ssim_min"]; t2i {
		return []corpusFigure{{name: "ssim_mean", bound: "ssim_min", units: SSIMUnits}}
	}
	return nil
}

// GateOnDataset is Gate with the speaker/recording groups the testcase's pinned dataset
// declares (datasetPath; "" when the testcase names none).
func GateOnDataset(g *evidence.GateResult, datasetPath string) ([]evidence.Accuracy, error) {
	var groups map[string]string
	if datasetPath != "" {
		var err error
		if groups, err = dataset.Groups(datasetPath); err != nil {
			return nil, fmt.Errorf("dataset groups: %w", err)
		}
	}
	return Gate(g, groups)
}

// Gate bootstraps every corpus figure of a gate that has a pinned bound. groups are the
// speaker/recording groups the pinned dataset declares (dataset.Groups; nil when it declares
// none): clips of one group are resampled together as one cluster, every other clip alone.
func Gate(g *evidence.GateResult, groups map[string]string) ([]evidence.Accuracy, error) {
	if g == nil {
		return nil, nil
	}
	var out []evidence.Accuracy
	for _, f := range corpusFigures(g) {
		bound, ok := g.Thresholds[f.bound]
		if !ok {
			continue
		}
		units, err := f.units(g.Items)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
		used := Cluster(units, groups)
		reg, side := stats.AtLeast(bound), "≥"
		if f.atMost {
			reg, side = stats.AtMost(bound), "≤"
		}
		ni, err := stats.Bootstrap(units, reg, stats.Resamples, stats.Seed)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
		a := evidence.Accuracy{Figure: f.name, Value: corpusValue(units), Bound: bound, Side: side, Test: nonInferiority(ni),
			ClusterBy: ClusterBy(len(used), ni.Clusters, ni.Units), Groups: used}
		// R = figure − bound (≤) or bound − figure (≥): the figure's percentiles follow from R's.
		if f.atMost {
			a.Lower, a.Upper = ni.P05+bound, ni.P95+bound
		} else {
			a.Lower, a.Upper = bound-ni.P95, bound-ni.P05
		}
		out = append(out, a)
	}
	return out, nil
}

// Cluster sets each unit's cluster to its declared group and returns the groups it used (nil
// when no unit has one).
func Cluster(units []stats.Unit, groups map[string]string) map[string]string {
	var used map[string]string
	for i := range units {
		if g := groups[units[i].ID]; g != "" {
			units[i].Cluster = g
			if used == nil {
				used = map[string]string{}
			}
			used[units[i].ID] = g
		}
	}
	return used
}

// ClusterBy is the report's statement of what the bootstrap resampled.
func ClusterBy(grouped, clusters, units int) string {
	if grouped == 0 {
		return fmt.Sprintf("inputs: the dataset declares no speaker or recording groups, so each of the %d inputs is its own cluster", units)
	}
	return fmt.Sprintf("speaker/recording groups the dataset declares: %d clusters over %d inputs (%d grouped, every other input its own cluster)", clusters, units, grouped)
}

// corpusValue is ΣNum/ΣDen over the units (one side: the gate's figure).
func corpusValue(units []stats.Unit) float64 {
	var r stats.Ratio
	for _, u := range units {
		r.Num, r.Den = r.Num+u.New.Num, r.Den+u.New.Den
	}
	return r.Value()
}

// GoldWERUnits are the gate's clips as WER units against their gold text (gold-wer-v1, unit
// costs): errors over gold words, the same on both sides (a single-run figure).
func GoldWERUnits(items []evidence.GateItem) ([]stats.Unit, error) {
	var units []stats.Unit
	for _, it := range items {
		u := metrics.ScoreUtterance(metrics.Pair{ID: it.ID, Expected: it.Gold, Hyp: it.Output}, metrics.GoldWER(), metrics.UnitCosts())
		if u.Words.RefWords() == 0 {
			return nil, fmt.Errorf("clip %s has no gold words", it.ID)
		}
		r := stats.Ratio{Num: float64(u.Words.Errors()), Den: float64(u.Words.RefWords())}
		units = append(units, stats.Unit{ID: it.ID, Base: r, New: r})
	}
	return units, nil
}

// SSIMUnits are the gate's images as mean-SSIM units (the gate stores each image's SSIM to its
// expected image as the item's distance).
func SSIMUnits(items []evidence.GateItem) ([]stats.Unit, error) {
	var units []stats.Unit
	for _, it := range items {
		if math.IsNaN(it.Distance) {
			return nil, fmt.Errorf("image %s has no SSIM", it.ID)
		}
		r := stats.Ratio{Num: it.Distance, Den: 1}
		units = append(units, stats.Unit{ID: it.ID, Base: r, New: r})
	}
	return units, nil
}

// PairUnits pairs two runs' units by id: Base from base, New from new; ids in one run only are
// left out (they are not the same clips).
func PairUnits(base, new []stats.Unit) []stats.Unit {
	byID := map[string]stats.Unit{}
	for _, u := range new {
		byID[u.ID] = u
	}
	var out []stats.Unit
	for _, b := range base {
		if n, ok := byID[b.ID]; ok {
			out = append(out, stats.Unit{ID: b.ID, Cluster: b.Cluster, Base: b.Base, New: n.New})
		}
	}
	return out
}

// nonInferiority is a bootstrap verdict as the evidence records it.
func nonInferiority(ni schema.NonInferiority) *evidence.NonInferiority {
	return &evidence.NonInferiority{Test: ni.Test, Estimate: ni.Estimate, P05: ni.P05, P95: ni.P95, Units: ni.Units,
		Clusters: ni.Clusters, Resamples: ni.Resamples, Seed: ni.Seed, Verdict: evidence.Outcome(ni.Verdict), Rule: ni.Rule}
}
