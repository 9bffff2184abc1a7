package stats

import (
	"bytes"
	"encoding/json"
	"github.com/trtmc-qual/trtmc-qual/harness/config/machine"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"testing"
)

// The parity tests run scipy itself in the parity venv (`make deps` installs it). A missing
// venv is a failure, not a skip: a parity claim that did not run proves nothing.

// runScipy runs script in the parity venv with cases as JSON on stdin and returns its stdout.
func runScipy(t *testing.T, script string, cases any) []byte {
	t.Helper()
	in, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(parityPython(t), "-c", script)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("scipy: %v\n%s", err, stderr.String())
	}
	return raw
}

func parityPython(t *testing.T) string {
	t.Helper()
	py, err := machine.ParityFromEnv(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	return py
}

// scipyScript reads the cases on stdin and answers with scipy.stats' figures. For the bootstrap
// it evaluates R on our own resample indices (exact parity of the statistic and numpy's default
// percentile), and separately runs scipy.stats.bootstrap with its own generator, which can only
// agree within Monte Carlo error.
const scipyScript = `
import json, sys
import numpy as np
from scipy import stats
cases = json.load(sys.stdin)
out = {"t": [], "welch": [], "boot": [], "version": __import__("scipy").__version__}
for x in cases["t"]:
    x = np.asarray(x)
    lo, hi = stats.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=stats.sem(x))
    out["t"].append([float(lo), float(hi)])
for b, n in cases["welch"]:
    r = stats.ttest_ind(np.log(b), np.log(n), equal_var=False)
    ci = r.confidence_interval(0.90)
    out["welch"].append([float(np.exp(ci.low)), float(np.exp(ci.high)), float(r.df)])
for c in cases["boot"]:
    be, bw, ne, nw = (np.asarray(c[k], dtype=float) for k in ("be", "bw", "ne", "nw"))
    idx = np.asarray(c["draws"])
    R = ne[idx].sum(1) / nw[idx].sum(1) - be[idx].sum(1) / bw[idx].sum(1) - c["margin"]
    p5, p95 = np.percentile(R, [5, 95])
    def stat(be, bw, ne, nw, axis=-1):
        return ne.sum(axis) / nw.sum(axis) - be.sum(axis) / bw.sum(axis) - c["margin"]
    res = stats.bootstrap((be, bw, ne, nw), stat, paired=True, vectorized=True, n_resamples=2000,
                          confidence_level=0.90, method="percentile", rng=np.random.default_rng(7))
    out["boot"].append([float(p5), float(p95), float(res.confidence_interval.low), float(res.confidence_interval.high)])
json.dump(out, sys.stdout)
`

type bootCase struct {
	BE, BW, NE, NW []float64
	Margin         float64
	Draws          [][]int
}

func (c bootCase) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{"be": c.BE, "bw": c.BW, "ne": c.NE, "nw": c.NW, "margin": c.Margin, "draws": c.Draws})
}

func TestScipyParity(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 2026))
	var tCases [][]float64
	var welchCases [][2][]float64
	for i := range 40 {
		n := 2 + i%9
		x := make([]float64, n)
		for j := range x {
			x[j] = 50 + 10*rng.NormFloat64()
		}
		tCases = append(tCases, x)
		b, m := make([]float64, 2+i%6), make([]float64, 2+(i/2)%7)
		for j := range b {
			b[j] = 100 * math.Exp(0.05*rng.NormFloat64())
		}
		for j := range m {
			m[j] = 100 * (0.8 + 0.01*float64(i)) * math.Exp(0.02*(1+float64(i%4))*rng.NormFloat64())
		}
		welchCases = append(welchCases, [2][]float64{b, m})
	}
	var boots []bootCase
	var bootUnits [][]Unit
	for i := range 6 {
		n := 20 + 30*i
		var c bootCase
		var units []Unit
		for range n {
			w := float64(3 + rng.IntN(25))
			be := float64(rng.IntN(int(w) / 3))
			ne := max(0, be+float64(rng.IntN(3)-1))
			c.BE, c.BW, c.NE, c.NW = append(c.BE, be), append(c.BW, w), append(c.NE, ne), append(c.NW, w)
			units = append(units, Unit{Base: wer(be, w), New: wer(ne, w)})
		}
		c.Margin = 0.005 * float64(i)
		c.Draws = draws(n, Resamples, Seed+uint64(i))
		boots, bootUnits = append(boots, c), append(bootUnits, units)
	}
	raw := runScipy(t, scipyScript, map[string]any{"t": tCases, "welch": welchCases, "boot": boots})
	var ref struct {
		T, Welch, Boot [][]float64
		Version        string
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatalf("scipy output: %v: %s", err, raw)
	}
	worstT, worstW, worstDF, worstB, worstMC := 0.0, 0.0, 0.0, 0.0, 0.0
	for i, x := range tCases {
		iv, err := MeanCI(x)
		if err != nil {
			t.Fatal(err)
		}
		worstT = max(worstT, math.Abs(iv.CI.Lower-ref.T[i][0]), math.Abs(iv.CI.Upper-ref.T[i][1]))
	}
	for i, c := range welchCases {
		sp, err := Compare(c[0], c[1], "")
		if err != nil {
			t.Fatal(err)
		}
		worstW = max(worstW, math.Abs(sp.CI.Lower-ref.Welch[i][0]), math.Abs(sp.CI.Upper-ref.Welch[i][1]))
		worstDF = max(worstDF, math.Abs(sp.DF-ref.Welch[i][2])/ref.Welch[i][2])
	}
	for i, units := range bootUnits {
		ni, err := bootstrapWith(units, Increase(boots[i].Margin), boots[i].Draws)
		if err != nil {
			t.Fatal(err)
		}
		worstB = max(worstB, math.Abs(ni.P05-ref.Boot[i][0]), math.Abs(ni.P95-ref.Boot[i][1]))
		// Independent generators: agreement within a fraction of the interval's width.
		width := ref.Boot[i][3] - ref.Boot[i][2]
		worstMC = max(worstMC, math.Abs(ni.P05-ref.Boot[i][2])/width, math.Abs(ni.P95-ref.Boot[i][3])/width)
	}
	t.Logf("scipy %s: t interval max |Δ| %.2e over %d cases; Welch S bounds max |Δ| %.2e (df relative %.1e) over %d; bootstrap p5/p95 on shared draws max |Δ| %.2e over %d; vs scipy.stats.bootstrap's own resamples max |Δ| %.1f%% of the width",
		ref.Version, worstT, len(tCases), worstW, worstDF, len(welchCases), worstB, len(boots), 100*worstMC)
	if worstT > 1e-9 || worstW > 1e-9 || worstDF > 1e-9 || worstB > 1e-12 {
		t.Errorf("parity with scipy broken: t %.2e, Welch %.2e (df %.2e), bootstrap %.2e", worstT, worstW, worstDF, worstB)
	}
	if worstMC > 0.10 {
		t.Errorf("bootstrap interval differs from scipy.stats.bootstrap's by %.1f%% of its width (Monte Carlo error of 2,000 resamples is a few %%)", 100*worstMC)
	}
}
