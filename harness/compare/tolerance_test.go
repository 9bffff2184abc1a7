package compare

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/internal/runfixture"
)

// TestCompareSaysSlowerWithinTheTolerance: a row every decision clears of regression whose
// interval of S still lies wholly below 1 (5% slower over six runs a side, 3% over four pairs) is
// measurably slower, by less than the red bound tolerates: the verdict says so and names it, and
// comparison.json lists it in slower_within_tolerance; the exit status stays that of no
// regression. The same build, whose interval holds 1, still reads "no regression found".
func TestCompareSaysSlowerWithinTheTolerance(t *testing.T) {
	const slower = "no regression beyond the tolerance; measurably slower within it: asr/sphinx-en-us"
	base := runfixture.WriteRun(t, "base", repeatedRow(t, 100, 101, 99, 100.5, 99.8, 100.1))
	for name, c := range map[string]struct {
		p50s    []float64
		verdict string
		listed  []string
	}{
		"5% slower": {[]float64{105, 106, 104, 105.5, 104.8, 105.1}, slower, []string{"asr/sphinx-en-us"}},
		"same":      {[]float64{100.3, 99.6, 100.9, 99.4, 100.2, 100}, "no regression found", nil},
	} {
		t.Run(name, func(t *testing.T) {
			out := t.TempDir()
			var stdout bytes.Buffer
			if err := runCompare(context.Background(), []string{"-o", out, base, runfixture.WriteRun(t, "new", repeatedRow(t, c.p50s...))}, &stdout); err != nil {
				t.Fatalf("no regression must exit 0: %v\n%s", err, stdout.String())
			}
			if !strings.Contains(stdout.String(), "Verdict: **"+c.verdict+"**") {
				t.Errorf("verdict is not %q:\n%s", c.verdict, stdout.String())
			}
			data, err := os.ReadFile(filepath.Join(out, "comparison.json"))
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Verdict string   `json:"verdict"`
				Slower  []string `json:"slower_within_tolerance"`
			}
			if err := json.Unmarshal(data, &got); err != nil {
				t.Fatal(err)
			}
			if got.Verdict != c.verdict || !slices.Equal(got.Slower, c.listed) {
				t.Errorf("comparison.json: verdict %q, slower_within_tolerance %q; want %q, %q", got.Verdict, got.Slower, c.verdict, c.listed)
			}
			if c.listed != nil && !strings.Contains(string(data), `"slower_within_tolerance"`) {
				t.Errorf("comparison.json has no slower_within_tolerance:\n%s", data)
			}
		})
	}
	var bases, news []evidence.Evidence
	for i, b := range []float64{100, 101, 99, 100.5} {
		bases = append(bases, evidenceOf(t, []float64{b}))
		news = append(news, evidenceOf(t, []float64{[]float64{103, 104.1, 101.9, 103.6}[i]}))
	}
	c := comparePairs(bases, news)
	if v, err := outcome(c); v != slower || err != nil {
		t.Errorf("paired, 3%% slower: verdict %q (%v), want %q", v, err, slower)
	}
}
