package compare

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/internal/runfixture"
	"github.com/trtmc-qual/trtmc-qual/harness/stats"
	"github.com/trtmc-qual/trtmc-qual/harness/stats/schema"
)

var golds = runfixture.Golds()

func TestCompareOneRunPerRowIsWhiteByRule(t *testing.T) {
	base := runfixture.WriteRun(t, "base", runfixture.ASRRow("sphinx-en-us", golds, 100))
	cand := runfixture.WriteRun(t, "new", runfixture.ASRRow("sphinx-en-us", golds, 130), runfixture.ASRRow("sphinx-extra", golds, 5))
	out := t.TempDir()
	var stdout bytes.Buffer
	if err := runCompare(context.Background(), []string{base, cand}, &stdout); !errors.Is(err, ErrMissing) ||
		!strings.Contains(stdout.String(), "Verdict: **INCOMPLETE (1 row in one run only)**") || !strings.Contains(stdout.String(), "Missing from base (only in new, not compared): asr/sphinx-extra.") {
		t.Fatalf("a row in one run only must fail the comparison and be listed: %v\n%s", err, stdout.String())
	}
	stdout.Reset()
	if err := runCompare(context.Background(), []string{"-o", out, "--allow-missing", base, cand}, &stdout); !errors.Is(err, ErrInconclusive) ||
		!strings.Contains(stdout.String(), "Verdict: **INCONCLUSIVE (0 of 1 timed rows decided)**") {
		t.Fatalf("one run per row decides nothing: the comparison must say so, not pass: %v\n%s", err, stdout.String())
	}
	var c Comparison
	data, err := os.ReadFile(filepath.Join(out, "comparison.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != 1 || c.Rows[0].Performance == nil {
		t.Fatalf("want one compared row with a performance figure: %+v", c)
	}
	p := c.Rows[0].Performance
	if p.Light != stats.White || p.CI != nil || !strings.Contains(p.Why, "one run") {
		t.Errorf("one run per side: want white without an interval, saying why; got %s (%s)", p.Light, p.Why)
	}
	if math.Abs(p.S-100.0/130) > 1e-12 {
		t.Errorf("S = %v, want base/new = %v", p.S, 100.0/130)
	}
	if a := c.Rows[0].Accuracy; a == nil || a.Verdict == nil || a.Verdict.Verdict != schema.Pass || a.Margin != werMarginPoints {
		t.Errorf("identical transcripts within a 0.3-point margin must pass: %+v", a)
	}
	if len(c.OnlyInNew) != 1 || c.OnlyInNew[0] != "asr/sphinx-extra" || c.Verdict != "INCONCLUSIVE (0 of 1 timed rows decided)" || c.Decided != 0 {
		t.Errorf("only in new: %v", c.OnlyInNew)
	}
	md, _ := os.ReadFile(filepath.Join(out, "comparison.md"))
	if !bytes.Equal(md, stdout.Bytes()) || !strings.Contains(string(md), "| asr | sphinx-en-us | 1/1 ⚠ fewer than 6 | 0.769 (no interval) | white | – | – (base: no server records (status qualified); new: no server records (status qualified)) | pass |") {
		t.Errorf("markdown row missing or stdout differs from comparison.md:\n%s", stdout.String())
	}
}

func TestCompareAccuracyFailExitsNonZeroAndListsChanges(t *testing.T) {
	worse := []string{"go back", "turn right", "stop", "and mister dash would", "one", "a quick brown box"}
	base := runfixture.WriteRun(t, "base", runfixture.ASRRow("sphinx-en-us", golds, 100))
	cand := runfixture.WriteRun(t, "new", runfixture.ASRRow("sphinx-en-us", worse, 100))
	var stdout bytes.Buffer
	err := runCompare(context.Background(), []string{base, cand}, &stdout)
	if !errors.Is(err, ErrRegression) {
		t.Fatalf("a much worse WER must fail the gate, got %v\n%s", err, stdout.String())
	}
	md := stdout.String()
	for _, want := range []string{"REGRESSION", "| fail |", `changed gate output clipa: "go forward ten meters" → "go back"`, `changed http output clipf`} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestCompareWorkDiffers(t *testing.T) {
	b, n := runfixture.ASRRow("p", golds, 100), runfixture.ASRRow("p", golds, 100)
	n.Settings["requests"] = 12
	n.Dataset.SHA256 = "d2"
	n.Bundle.Header = map[string]any{"settings": map[string]any{"maxhmmpf": 5000}}
	diffs := workDiffers(b, n)
	if len(diffs) != 3 {
		t.Fatalf("want dataset, requests and bundle settings named, got %q", diffs)
	}
	row := compareRow(rowKey{"asr", "p"}, b, n)
	if row.Performance.Light != stats.White || !strings.HasPrefix(row.Performance.Why, "not comparable: dataset") {
		t.Errorf("different work must be white and say so: %+v", row.Performance)
	}
	// Numbers read back from JSON are float64; the same setting written as an int is the same work.
	n2 := runfixture.ASRRow("p", golds, 100)
	n2.Settings["requests"] = 8.0
	if d := workDiffers(b, n2); len(d) != 0 {
		t.Errorf("8 and 8.0 requests reported as different work: %q", d)
	}
}

func TestCompareImagesUseSSIM(t *testing.T) {
	gate := func(ssims ...float64) *evidence.GateResult {
		g := &evidence.GateResult{Figures: map[string]float64{"psnr_min_db": 30}, Thresholds: map[string]float64{"ssim_min": 0.99}}
		for i, s := range ssims {
			g.Items = append(g.Items, evidence.GateItem{ID: string(rune('a' + i)), Distance: s, Output: "h"})
		}
		return g
	}
	same := compareAccuracy(evidence.Result{Gate: gate(1, 1, 1, 0.99)}, evidence.Result{Gate: gate(1, 1, 1, 0.99)})
	if same.Verdict == nil || same.Verdict.Verdict != schema.Pass || !strings.Contains(same.Metric, "SSIM") {
		t.Errorf("identical images: %+v", same)
	}
	qa := &evidence.GateResult{Figures: map[string]float64{"answer_accuracy": 0.7}, Thresholds: map[string]float64{"answer_accuracy_min": 0.7},
		Items: []evidence.GateItem{{ID: "q1", Output: "three"}}}
	if got := compareAccuracy(evidence.Result{Gate: qa}, evidence.Result{Gate: qa}); got != nil {
		t.Errorf("audio QA has no corpus figure to bootstrap, got %+v", got)
	}
	drop := compareAccuracy(evidence.Result{Gate: gate(1, 1, 1, 1)}, evidence.Result{Gate: gate(0.9, 0.91, 0.9, 0.92)})
	if drop.Verdict == nil || drop.Verdict.Verdict != schema.Fail {
		t.Errorf("SSIM down by 0.09 against a 0.01 margin: %+v", drop)
	}
}

// TestCompareRepeatedRuns: five runs a side. The same build is not red; a 20% slower Task is red,
// and the exit status says so.
func TestCompareRepeatedRuns(t *testing.T) {
	row := func(p50s ...float64) evidence.Result { return repeatedRow(t, p50s...) }
	base := runfixture.WriteRun(t, "base", row(100, 101, 99, 100.5, 99.8))
	same := runfixture.WriteRun(t, "same", row(100.3, 99.6, 100.9, 99.4, 100.2))
	slow := runfixture.WriteBuild(t, "slow", "qual_slowdown", row(120.1, 121, 119.5, 120.6, 119.9))
	var out bytes.Buffer
	if err := runCompare(context.Background(), []string{base, same}, &out); err != nil {
		t.Fatalf("same build: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "| 5/5 ⚠ fewer than 6 |") || !strings.Contains(out.String(), "| yellow |") {
		t.Errorf("same build should be yellow over 5/5 runs:\n%s", out.String())
	}
	out.Reset()
	if err := runCompare(context.Background(), []string{base, slow}, &out); !errors.Is(err, ErrRegression) {
		t.Fatalf("20%% slower must exit non-zero, got %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "| red |") {
		t.Errorf("20%% slower should be red:\n%s", out.String())
	}
	builds := "Builds: base normal build (build tags: none); new **TEST BUILD with injected slowdown: whisper-tiny-en's Task 20% slower (build tags: qual_slowdown), not a qualification**."
	if !strings.Contains(out.String(), builds) {
		t.Errorf("the comparison must say which side is a test build:\n%s", out.String())
	}
}

// TestCompareResamplesTheBaseRunsGroups: the accuracy comparison resamples the speaker groups the
// base run's dataset declared (recorded with its accuracy interval), not each clip alone.
func TestCompareResamplesTheBaseRunsGroups(t *testing.T) {
	b, n := runfixture.ASRRow("sphinx-en-us", golds, 100), runfixture.ASRRow("sphinx-en-us", golds, 100)
	if got := compareAccuracy(b, n); got.Verdict == nil || got.Verdict.Clusters != len(golds) {
		t.Fatalf("no groups: %+v", got)
	}
	b.Accuracy = []evidence.Accuracy{{Figure: "gold_wer", Groups: map[string]string{"clipa": "spk", "clipb": "spk", "clipc": "spk"}}}
	if got := compareAccuracy(b, n); got.Verdict == nil || got.Verdict.Clusters != len(golds)-2 {
		t.Errorf("3 clips of one speaker and 3 alone must be 4 clusters: %+v", got.Verdict)
	}
}

// runCompare is `qual compare [-o DIR] [--noise-floor A1,A2] [--allow-missing] BASE NEW` without the command around it.
func runCompare(_ context.Context, args []string, w io.Writer) error {
	var o Options
	for len(args) > 2 {
		switch args[0] {
		case "-o":
			o.Out = args[1]
		case "--noise-floor":
			o.NoisePair = args[1]
		case "--allow-missing":
			o.AllowMissing = true
			args = args[1:]
			continue
		}
		args = args[2:]
	}
	return Dirs(args[0], args[1], o, w)
}

// TestCompareShowsTheTaskShift: with server records beside the evidence, each row gets the
// stratified shift of its measured requests' Task time on a log scale, each request against the
// other side's requests of the same input; warmup records are left out, and a row whose measured
// request has no record says so instead of guessing.
func TestCompareShowsTheTaskShift(t *testing.T) {
	withRecords := func(id string, taskMS func(i int) float64) string {
		r := runfixture.ASRRow("sphinx-en-us", golds, 100)
		r.Records = "asr/sphinx-en-us/server-records.jsonl"
		r.Outputs = append(r.Outputs, evidence.Output{RequestID: "warm", Phase: "warmup", InputID: "clipa"})
		dir := runfixture.WriteRun(t, id, r)
		var lines []string
		for i, o := range r.Outputs {
			ms := taskMS(i)
			if o.Phase == "warmup" {
				ms = 1e6 // a warmup outlier must not count
			}
			lines = append(lines, fmt.Sprintf(`{"request_id":%q,"route":"/v1/audio/transcriptions","status":200,"trtmc_timing":{"queue_ms":0,"model_call_ms":%v,"handler_ms":%v}}`, o.RequestID, ms, ms+1))
		}
		path := filepath.Join(dir, r.Records)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	base := withRecords("base", func(i int) float64 { return 100 + 1.37*float64(i) })
	slow := withRecords("slow", func(i int) float64 { return 130 + 1.91*float64(i) })
	out := t.TempDir()
	var stdout bytes.Buffer
	runCompare(context.Background(), []string{"-o", out, base, slow}, &stdout)
	var c Comparison
	data, _ := os.ReadFile(filepath.Join(out, "comparison.json"))
	if err := json.Unmarshal(data, &c); err != nil || len(c.Rows) != 1 {
		t.Fatalf("%v: %s", err, data)
	}
	sh := c.Rows[0].TaskShift
	if sh == nil || math.Exp(sh.Estimate) < 1.29 || math.Exp(sh.Estimate) > 1.34 || sh.N != [2]int{6, 6} || c.Rows[0].TaskInputs != 6 ||
		sh.CI.Lower > sh.Estimate || sh.CI.Upper < sh.Estimate || sh.CI.Lower <= 0 {
		t.Fatalf("a Task about 31%% slower over 6/6 measured requests of 6 inputs: %+v (%s)", sh, c.Rows[0].TaskShiftError)
	}
	if !strings.Contains(stdout.String(), fmt.Sprintf("| %+.1f%% [", 100*(math.Exp(sh.Estimate)-1))) {
		t.Errorf("the table lacks the shift:\n%s", stdout.String())
	}
	os.Remove(filepath.Join(slow, "asr/sphinx-en-us/server-records.jsonl"))
	stdout.Reset()
	runCompare(context.Background(), []string{"-o", out, base, slow}, &stdout)
	data, _ = os.ReadFile(filepath.Join(out, "comparison.json"))
	c = Comparison{}
	json.Unmarshal(data, &c)
	if c.Rows[0].TaskShift != nil || !strings.Contains(c.Rows[0].TaskShiftError, "new: server records") {
		t.Errorf("missing records: %+v %q", c.Rows[0].TaskShift, c.Rows[0].TaskShiftError)
	}
}

// Every combination of lights, missing rows and --allow-missing: "no regression found" is
// printed exactly when Dirs returns nil, and only when every common row's light decided and no
// row is missing (or missing rows are allowed); otherwise the error names what happened.
func TestCompareVerdictDecidesOrSaysItDidNot(t *testing.T) {
	lights := []stats.Light{stats.Green, stats.Yellow, stats.Red, stats.White}
	for _, a := range lights {
		for _, b := range lights {
			for _, missing := range []bool{false, true} {
				for _, allow := range []bool{false, true} {
					c := Comparison{AllowMissing: allow}
					for _, l := range []stats.Light{a, b} {
						row := RowComparison{Performance: &stats.Speedup{Light: l}}
						c.Rows = append(c.Rows, row)
						c.Timed++
						if l == stats.Red {
							c.Red++
						}
						if l != stats.White {
							c.Decided++
						}
					}
					if missing {
						c.OnlyInBase = []string{"asr/x"}
					}
					verdict, err := outcome(c)
					if (err == nil) != (verdict == "no regression found") {
						t.Errorf("verdict %q with error %v", verdict, err)
					}
					decided := a != stats.White && b != stats.White
					want := "no regression found"
					switch {
					case a == stats.Red || b == stats.Red:
						want = "REGRESSION"
					case missing && !allow:
						want = "INCOMPLETE (1 row in one run only)"
					case !decided:
						want = fmt.Sprintf("INCONCLUSIVE (%d of 2 timed rows decided)", c.Decided)
					}
					if verdict != want {
						t.Errorf("lights %s/%s missing %v allow %v: verdict %q, want %q", a, b, missing, allow, verdict, want)
					}
				}
			}
		}
	}
}
