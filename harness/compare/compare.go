// Package compare compares two qualification runs checkpoint by checkpoint (qual compare): the
// speedup of the Task's p50 with its interval and light, the gate's accuracy non-inferiority on
// the same inputs, and every output that changed. It reads evidence only.
package compare

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/accuracy"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
	"github.com/trtmc-qual/trtmc-qual/harness/stats"
	"github.com/trtmc-qual/trtmc-qual/harness/stats/schema"
)

// ErrRegression makes `qual compare` exit non-zero after it has written its report, so that CI
// can gate a candidate on the last qualified run.
var ErrRegression = errors.New("regression")

// ErrInconclusive makes `qual compare` exit with its own status when no regression was found
// but some common row's light did not decide (white): "no regression found" would be a claim
// the data does not support.
var ErrInconclusive = errors.New("undecided (exit 3): more runs, or interleaved pairs (make compare-ab), can decide")

// ErrMissing fails a comparison in which a row of either run is absent from the other (a smoke
// run against a full one), unless the caller allows it.
var ErrMissing = errors.New("rows missing from one side")

// ErrNothingInCommon is returned when the runs share no checkpoint (a usage error).
var ErrNothingInCommon = errors.New("no checkpoint in common")

// ErrUsage marks a wrong invocation, such as an A/A pair that is not two runs of one build.
var ErrUsage = errors.New("usage")

// Declared accuracy margins. WER follows TRTMC's ASR margin, max(0.3 points, 5% of the base).
// Images are judged on mean SSIM against the family's expected PNGs, not mean PSNR: identical
// images (the reference target's normal case) have PSNR +Inf, so a mean PSNR is undefined.
const (
	werMarginPoints   = 0.003
	werMarginRelative = 0.05
	ssimMargin        = 0.01
)

// perfFigure is the per-run statistic compared (TRTMC: the server-side model-call p50), and
// perfWords what a reader is told it is.
const (
	perfFigure = "task_call_p50"
	perfWords  = "the Task call's p50 of each run (ms)"
)

// Comparison is `qual compare`'s JSON output.
type Comparison struct {
	Base       string          `json:"base"`
	New        string          `json:"new"`
	BaseBuild  Build           `json:"base_build"`
	NewBuild   Build           `json:"new_build"`
	Rows       []RowComparison `json:"rows"`
	OnlyInBase []string        `json:"only_in_base,omitempty"`
	OnlyInNew  []string        `json:"only_in_new,omitempty"`
	Red        int             `json:"red"`
	Failed     int             `json:"accuracy_failed"`
	// Decided counts the common rows whose performance decided (decide): red, or an interval
	// wholly above the red bound.
	Decided int `json:"decided"`
	// Timed counts the common rows measured on at least one side: a row neither side times (a
	// reduced or variant row, by design) has no light to decide and is not waited for.
	Timed        int  `json:"timed"`
	AllowMissing bool `json:"allow_missing"`
	// SlowerWithinTolerance are the common rows cleared of regression (decided, not red) whose
	// interval of S still lies wholly below 1: measurably slower, by less than the red bound
	// tolerates. The verdict names them: "no regression found" would read as "no slower".
	SlowerWithinTolerance []string `json:"slower_within_tolerance,omitempty"`
	// Pairs is how many interleaved pairs of runs a paired comparison read (0: two runs).
	Pairs   int    `json:"pairs,omitempty"`
	Verdict string `json:"verdict"` // overall
	Rules   map[string]string
}

// Build is one side's binaries: their Go build tags and, for a test build (e.g. -tags
// qual_slowdown), the banner its report carries: such a side is a test, not a qualification.
type Build struct {
	Tags      string `json:"build_tags"`
	TestBuild string `json:"test_build,omitempty"`
}

func buildOf(e evidence.Evidence) Build {
	b := Build{Tags: e.Versions[evidence.BuildTagsKey], TestBuild: evidence.TestBuildBanner(e.Versions)}
	if b.Tags == "" {
		b.Tags = "not recorded"
	}
	return b
}

// RowComparison is one checkpoint present in both runs.
type RowComparison struct {
	Stage       string         `json:"stage"`
	Profile     string         `json:"profile"`
	WorkDiffers []string       `json:"work_differs,omitempty"`
	Figure      string         `json:"figure"`
	Performance *stats.Speedup `json:"performance,omitempty"`
	PerfError   string         `json:"performance_error,omitempty"`
	// Decided and Decision are what the verdict reads off the light (decide), in the words every
	// output gives them.
	Decided  bool   `json:"decided"`
	Decision string `json:"decision"`
	// TaskShift is the stratified shift of ln(per-request Task time), ln(new/base), over the
	// measured requests of every run, each compared with requests of the same input
	// (stats.StratifiedShift), beside the Welch interval of run medians.
	TaskShift *stats.Shift `json:"task_shift,omitempty"`
	// Untimed: neither side timed the row (its status measures nothing), so no light is awaited.
	Untimed        bool   `json:"untimed,omitempty"`
	TaskShiftError string `json:"task_shift_error,omitempty"`
	// TaskInputs is how many inputs the shift compared (those sent on both sides).
	TaskInputs int `json:"task_shift_inputs,omitempty"`
	// TaskShiftDetectable is the smallest slowdown (fraction) the Task shift's own spread lets it
	// establish: e^h/RedBelow − 1, h the half-width of its interval of ln(new/base), which, like the
	// light's, does not move with the shift. Zero when the shift has no interval.
	TaskShiftDetectable float64 `json:"task_shift_detectable,omitempty"`
	// FewRuns warns when a side has fewer runs than benchstat asks for.
	FewRuns string `json:"few_runs,omitempty"`
	// Detectable is the smallest slowdown this row's spread lets the light call red (detectable.go).
	Detectable    *Detectable     `json:"detectable,omitempty"`
	DetectableWhy string          `json:"detectable_none,omitempty"`
	NoiseFloor    *NoiseFloor     `json:"noise_floor,omitempty"` // noise.go
	Accuracy      *Accuracy       `json:"accuracy,omitempty"`
	Changed       []ChangedOutput `json:"changed_outputs"`
}

// Accuracy is the non-inferiority of the gate's corpus figure on the same inputs.
type Accuracy struct {
	Metric  string                 `json:"metric"`
	Base    float64                `json:"base"`
	New     float64                `json:"new"`
	Margin  float64                `json:"margin"`
	Why     string                 `json:"margin_rule"`
	Verdict *schema.NonInferiority `json:"bootstrap,omitempty"`
	Error   string                 `json:"error,omitempty"`
}

// ChangedOutput is one input whose output differs between the runs.
type ChangedOutput struct {
	Source string `json:"source"` // gate (native, full pinned set) or http (served requests)
	ID     string `json:"id"`
	Base   string `json:"base"`
	New    string `json:"new"`
}

// Options are `qual compare`'s flags.
type Options struct {
	Out          string // also write comparison.md and comparison.json here
	NoisePair    string // two runs of one build, A1,A2 (noise.go)
	AllowMissing bool   // rows in one run only are listed but do not fail the comparison
}

// Dirs compares the runs in baseDir and newDir, writes the Markdown to w and, when o.Out is
// not "", comparison.md and comparison.json there. After everything is written: a red light or
// an accuracy fail is ErrRegression; else a row in one run only is ErrMissing (unless allowed);
// else a common row whose light did not decide is ErrInconclusive.
func Dirs(baseDir, newDir string, o Options, w io.Writer) error {
	outDir, noisePair := o.Out, o.NoisePair
	for _, dir := range []string{baseDir, newDir} {
		if err := runfile.CheckTree(dir); err != nil {
			return err
		}
	}
	base, err := evidence.Read(baseDir)
	if err != nil {
		return fmt.Errorf("base: %w", err)
	}
	cand, err := evidence.Read(newDir)
	if err != nil {
		return fmt.Errorf("new: %w", err)
	}
	c := compareRuns(base, cand)
	c.AllowMissing = o.AllowMissing
	addTaskShifts(&c, baseDir, newDir, base, cand)
	if err := addNoiseFloor(&c, noisePair); err != nil {
		return err
	}
	if len(c.Rows) == 0 {
		return fmt.Errorf("runs %s (target %s) and %s (target %s) have %w: nothing to compare", base.RunID, base.Target, cand.RunID, cand.Target, ErrNothingInCommon)
	}
	if sameRun(baseDir, newDir, base, cand) {
		fmt.Fprintf(w, "Note: both sides are the same run (%s): every row is compared with itself.\n\n", base.RunID)
	}
	c.Verdict = overall(c)
	md := compareMarkdown(c)
	fmt.Fprint(w, md)
	if outDir != "" {
		if err := evidence.WriteJSON(filepath.Join(outDir, "comparison.json"), c); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(outDir, "comparison.md"), []byte(md), 0o644); err != nil {
			return fmt.Errorf("write comparison.md: %w", err)
		}
	}
	_, err = outcome(c)
	return err
}

// missing says whether rows of one run are absent from the other and that fails the comparison.
func (c Comparison) missing() bool {
	return !c.AllowMissing && len(c.OnlyInBase)+len(c.OnlyInNew) > 0
}

// sameRun says whether the two sides are one run: the same directory, the same run id, or the
// same evidence bytes.
func sameRun(baseDir, newDir string, base, cand evidence.Evidence) bool {
	b, errB := filepath.EvalSymlinks(baseDir)
	n, errN := filepath.EvalSymlinks(newDir)
	if errB == nil && errN == nil && b == n {
		return true
	}
	if base.RunID != "" && base.RunID == cand.RunID {
		return true
	}
	bb, errB := runfile.ReadIn(baseDir, "evidence.json")
	nb, errN := runfile.ReadIn(newDir, "evidence.json")
	return errB == nil && errN == nil && string(bb) == string(nb)
}

type rowKey struct{ stage, profile string }

func (k rowKey) String() string { return k.stage + "/" + k.profile }

func rowsByKey(e evidence.Evidence) map[rowKey]evidence.Result {
	out := map[rowKey]evidence.Result{}
	for _, s := range e.Stages {
		for _, r := range s.Results {
			out[rowKey{s.Stage, r.Profile}] = r
		}
	}
	return out
}

// compareRuns compares every checkpoint present in both runs, in stage then profile order.
func compareRuns(base, cand evidence.Evidence) Comparison {
	c := Comparison{Base: base.RunID, New: cand.RunID, BaseBuild: buildOf(base), NewBuild: buildOf(cand), Rules: map[string]string{
		"performance": "S compares " + perfWords + ": " + stats.SpeedupRule, "mean": stats.MeanRule, "accuracy": stats.BootstrapRule, "task shift": stats.StratifiedShiftRule,
		"runs":               fmt.Sprintf("a side with fewer than %d runs is flagged (benchstat's rule): its interval is wide and a light rarely decides", minRuns),
		"detectable":         detectableRule,
		"task shift decides": taskShiftDecidesRule(),
		"work":               "white when dataset pins, request counts, concurrency, endpoint settings (image size, steps), the gate testcase or bundle settings differ",
	}}
	b, n := rowsByKey(base), rowsByKey(cand)
	var keys []rowKey
	for k := range b {
		if _, ok := n[k]; ok {
			keys = append(keys, k)
		} else {
			c.OnlyInBase = append(c.OnlyInBase, k.String())
		}
	}
	for k := range n {
		if _, ok := b[k]; !ok {
			c.OnlyInNew = append(c.OnlyInNew, k.String())
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	sort.Strings(c.OnlyInBase)
	sort.Strings(c.OnlyInNew)
	for _, k := range keys {
		c.add(compareRow(k, b[k], n[k]))
	}
	return c
}

// add appends a compared row and counts what the verdict reads from it.
func (c *Comparison) add(row RowComparison) {
	if !row.Untimed {
		c.Timed++
	}
	if row.Performance != nil && row.Performance.Light == stats.Red {
		c.Red++
	}
	row.Decided, row.Decision = decide(row.Performance)
	if row.Decided {
		c.Decided++
	}
	if p := row.Performance; row.Decided && p.Light != stats.Red && p.CI != nil && p.CI.Upper < 1 {
		c.SlowerWithinTolerance = append(c.SlowerWithinTolerance, row.Stage+"/"+row.Profile)
	}
	if accuracyFailed(row.Accuracy) {
		c.Failed++
	}
	c.Rows = append(c.Rows, row)
}

func compareRow(k rowKey, b, n evidence.Result) RowComparison {
	row := RowComparison{Stage: k.stage, Profile: k.profile, Figure: perfWords}
	row.WorkDiffers = workDiffers(b, n)
	row.Untimed = untimed(b) && untimed(n)
	bRuns, bErr := perRun(b)
	nRuns, nErr := perRun(n)
	if bErr != nil || nErr != nil {
		row.PerfError = sideErrors(bErr, nErr)
	} else if sp, err := stats.Compare(bRuns, nRuns, strings.Join(row.WorkDiffers, "; ")); err != nil {
		row.PerfError = err.Error()
	} else {
		row.Performance = &sp
		if sp.Base.N < minRuns || sp.New.N < minRuns {
			row.FewRuns = fmt.Sprintf("%d/%d runs: fewer than %d a side", sp.Base.N, sp.New.N, minRuns)
		}
	}
	row.Detectable, row.DetectableWhy = detectable(row.Performance)
	row.Accuracy = compareAccuracy(b, n)
	row.Changed = changedOutputs(b, n)
	return row
}

// sideErrors says which side lacks a figure, on one line.
func sideErrors(bErr, nErr error) string {
	var parts []string
	if bErr != nil {
		parts = append(parts, "base: "+bErr.Error())
	}
	if nErr != nil {
		parts = append(parts, "new: "+nErr.Error())
	}
	return strings.Join(parts, "; ")
}

// perRun is the per-run statistic of a row. Evidence with one AIPerf run per row (the default
// before repeated runs) holds one value: every interval is undefined and the light white by rule.
func perRun(r evidence.Result) ([]float64, error) {
	if r.Repeated != nil {
		return r.Repeated.PerRun(perfFigure)
	}
	if r.Timing == nil {
		return nil, fmt.Errorf("no timing (status %s: not measured)", r.Status)
	}
	v, ok := r.Timing.Get(perfFigure)
	if !ok {
		return nil, fmt.Errorf("timing has no %s", perfFigure)
	}
	return []float64{v}, nil
}

// workDiffers names every way the two rows were asked to do different work.
func workDiffers(b, n evidence.Result) []string {
	var diffs []string
	same := func(what string, x, y any) {
		if d := Difference(x, y); d != "" {
			diffs = append(diffs, what+" "+d)
		}
	}
	same("dataset", b.Dataset.SHA256, n.Dataset.SHA256)
	same("dataset items", b.Dataset.Items, n.Dataset.Items)
	for _, key := range []string{"warmup", "requests", "concurrency", "lanes", "endpoint_type", "extra_inputs"} {
		same(key, b.Settings[key], n.Settings[key])
	}
	same("bundle settings", b.Bundle.Header["settings"], n.Bundle.Header["settings"])
	same("bundle precision", b.Bundle.Header["precision"], n.Bundle.Header["precision"])
	if b.Gate != nil && n.Gate != nil {
		same("gate testcase", b.Gate.Testcase, n.Gate.Testcase)
	}
	return diffs
}

// Difference is "x vs y", each in brief JSON, when x and y differ as JSON values ("" when they
// are the same): numbers read back from two files compare by value, not by Go type.
func Difference(x, y any) string {
	if reflect.DeepEqual(canonical(x), canonical(y)) {
		return ""
	}
	return brief(x) + " vs " + brief(y)
}

// canonical round-trips a value through JSON so that numbers read back from two files compare
// by value, not by Go type.
func canonical(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		return string(data)
	}
	return out
}

func brief(v any) string {
	data, _ := json.Marshal(v)
	s := string(data)
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// compareAccuracy pairs the gate items of both runs by input id and bootstraps the difference of
// the corpus figure: gold WER for transcripts, mean SSIM against the expected images for images.
// Clips are resampled by the speaker/recording groups the base run's dataset declared (recorded
// with its accuracy interval; a different dataset makes the work differ anyway).
func compareAccuracy(br, nr evidence.Result) *Accuracy {
	b, n := br.Gate, nr.Gate
	if b == nil || n == nil {
		return nil
	}
	_, asr := b.Figures["gold_wer"]
	if _, images := b.Thresholds["ssim_min"]; !asr && !images {
		return nil // no corpus figure (e.g. audio QA's answer accuracy): nothing to bootstrap
	}
	acc := &Accuracy{Metric: "mean SSIM vs the expected images, base − new", Margin: ssimMargin,
		Why: "0.01 SSIM (declared here; PSNR is +Inf for identical images, so a mean PSNR is undefined)"}
	unitsOf := accuracy.SSIMUnits
	if asr {
		acc = &Accuracy{Metric: "gold WER (corpus, gold-wer-v1), new − base", Why: "max(0.3 points, 5% of the base WER), TRTMC's ASR margin"}
		unitsOf = accuracy.GoldWERUnits
	}
	bu, err := unitsOf(b.Items)
	if err != nil {
		return &Accuracy{Error: "base: " + err.Error()}
	}
	nu, err := unitsOf(n.Items)
	if err != nil {
		return &Accuracy{Error: "new: " + err.Error()}
	}
	units := accuracy.PairUnits(bu, nu)
	var groups map[string]string
	for _, a := range br.Accuracy {
		groups = a.Groups
	}
	accuracy.Cluster(units, groups)
	if len(units) == 0 {
		return &Accuracy{Error: "no gate item is in both runs"}
	}
	var bs, ns stats.Ratio
	for _, u := range units {
		if u.Base.Den != u.New.Den {
			acc.Error = fmt.Sprintf("clip %s: %v gold words in base, %v in new: not the same clip", u.ID, u.Base.Den, u.New.Den)
			return acc
		}
		bs.Num, bs.Den, ns.Num, ns.Den = bs.Num+u.Base.Num, bs.Den+u.Base.Den, ns.Num+u.New.Num, ns.Den+u.New.Den
	}
	acc.Base, acc.New = bs.Value(), ns.Value()
	reg := stats.Decrease(ssimMargin)
	if asr {
		acc.Margin = math.Max(werMarginPoints, werMarginRelative*acc.Base)
		reg = stats.Increase(acc.Margin)
	}
	return judgeAccuracy(acc, units, reg)
}

func judgeAccuracy(acc *Accuracy, units []stats.Unit, reg stats.Regression) *Accuracy {
	ni, err := stats.Bootstrap(units, reg, stats.Resamples, stats.Seed)
	if err != nil {
		acc.Error = err.Error()
		return acc
	}
	acc.Verdict = &ni
	return acc
}

// changedOutputs lists every input whose output differs: the gate's native outputs over the full
// pinned set, and the served outputs (transcript or image pixel hash) of requests on the same input.
func changedOutputs(b, n evidence.Result) []ChangedOutput {
	out := []ChangedOutput{}
	if b.Gate != nil && n.Gate != nil {
		out = append(out, diffOutputs("gate", gateOutputs(b.Gate), gateOutputs(n.Gate))...)
	}
	return append(out, diffOutputs("http", httpOutputs(b.Outputs), httpOutputs(n.Outputs))...)
}

func gateOutputs(g *evidence.GateResult) map[string]string {
	m := map[string]string{}
	for _, it := range g.Items {
		m[it.ID] = it.Output
	}
	return m
}

// httpOutputs keeps one output per input; two different outputs for one input in the same run
// are already an identity failure in that run, and are shown joined so that the change is visible.
func httpOutputs(outs []evidence.Output) map[string]string {
	seen := map[string]map[string]bool{}
	for _, o := range outs {
		if seen[o.InputID] == nil {
			seen[o.InputID] = map[string]bool{}
		}
		seen[o.InputID][o.HTTPOutput] = true
	}
	m := map[string]string{}
	for id, set := range seen {
		var vals []string
		for v := range set {
			vals = append(vals, v)
		}
		sort.Strings(vals)
		m[id] = strings.Join(vals, " | ")
	}
	return m
}

func diffOutputs(source string, b, n map[string]string) []ChangedOutput {
	var out []ChangedOutput
	for id, bv := range b {
		if nv, ok := n[id]; ok && nv != bv {
			out = append(out, ChangedOutput{Source: source, ID: id, Base: bv, New: nv})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// compareMarkdown renders the comparison for a reviewer: one table, then the reasons.
func compareMarkdown(c Comparison) string {
	var w strings.Builder
	fmt.Fprintf(&w, "# Comparison: %s → %s\n\n", c.Base, c.New)
	if c.Pairs > 0 {
		fmt.Fprintf(&w, "Paired: %s, each pair back to back in alternating order; each light judges the interval over the pairs.\n\n", evidence.CountOf(c.Pairs, "pair of runs", "pairs of runs"))
	}
	fmt.Fprintf(&w, "Verdict: **%s** (%d red, %d accuracy fail, %d of %d timed common rows decided (%d common in all), %d only in base, %d only in new).\n\n",
		c.Verdict, c.Red, c.Failed, c.Decided, c.Timed, len(c.Rows), len(c.OnlyInBase), len(c.OnlyInNew))
	fmt.Fprintf(&w, "Builds: base %s; new %s.\n\n", buildCell(c.BaseBuild), buildCell(c.NewBuild))
	w.WriteString("| stage | checkpoint | runs base/new | S = base/new of each run's Task p50 (90% CI) | light | A/A noise floor S (90% CI) | Task time new/base − 1, same inputs (stratified HL, 90% CI) | accuracy | margin | changed outputs |\n")
	w.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range c.Rows {
		fmt.Fprintf(&w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %d |\n", r.Stage, r.Profile, runsCell(r), speedupCell(r), lightCell(r), noiseCell(r), shiftCell(r), accuracyCell(r.Accuracy), marginCell(r.Accuracy), len(r.Changed))
	}
	w.WriteString("\n## Why\n\n")
	for _, r := range c.Rows {
		fmt.Fprintf(&w, "- **%s/%s**: %s; %s", r.Stage, r.Profile, whyCell(r), detectableCell(r))
		if p := r.Performance; p != nil && p.Pairs > 0 {
			fmt.Fprintf(&w, "; %s", pairsCell(*p))
		}
		if a := r.Accuracy; a != nil && a.Verdict != nil {
			fmt.Fprintf(&w, "; accuracy %s: base %.4f, new %.4f, R − margin p5 %.4f, p95 %.4f over %d clusters", a.Metric, a.Base, a.New, a.Verdict.P05, a.Verdict.P95, a.Verdict.Clusters)
		}
		w.WriteString("\n")
		for _, ch := range r.Changed {
			fmt.Fprintf(&w, "  - changed %s output %s: %q → %q\n", ch.Source, ch.ID, ch.Base, ch.New)
		}
	}
	if len(c.OnlyInBase) > 0 {
		fmt.Fprintf(&w, "\nMissing from new (only in base, not compared): %s.\n", strings.Join(c.OnlyInBase, ", "))
	}
	if len(c.OnlyInNew) > 0 {
		fmt.Fprintf(&w, "\nMissing from base (only in new, not compared): %s.\n", strings.Join(c.OnlyInNew, ", "))
	}
	w.WriteString("\n## Rules\n\n")
	for _, k := range ruleOrder(c.Rules) {
		fmt.Fprintf(&w, "- %s: %s\n", k, c.Rules[k])
	}
	return w.String()
}

// ruleOrder lists every rule once: the usual reading order first, then any other in name order,
// so a rule the Why lines rely on is never left out of the Markdown.
func ruleOrder(rules map[string]string) []string {
	order := []string{"performance", "detectable", "noise floor", "task shift", "task shift decides", "runs", "mean", "accuracy", "work"}
	var out, rest []string
	for _, k := range order {
		if _, ok := rules[k]; ok {
			out = append(out, k)
		}
	}
	for k := range rules {
		if !slices.Contains(order, k) {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

func buildCell(b Build) string {
	if b.TestBuild != "" {
		return "**" + b.TestBuild + "**"
	}
	return "normal build (build tags: " + b.Tags + ")"
}

// overall is the comparison's verdict: no regression only when every common row's light decided
// and no row is missing; "no regression found" only when, besides, no row is measurably slower
// within the tolerance.
func overall(c Comparison) string {
	v, _ := outcome(c)
	return v
}

// outcome is the verdict and the error Dirs returns with it, decided in one place: a slower row
// or an accuracy fail is ErrRegression; else a row in one run only is ErrMissing (unless
// allowed); else a common row whose light did not decide is ErrInconclusive; else no regression,
// naming the rows measurably slower within the tolerance (exit 0 all the same: the red bound is
// the gate, and they are within it).
//
// A row is slower when its light is red or when the Task shift it computes says so
// (slowerByShift): a light left white by one side's wide interval of run medians must not hide a
// shift the per-request Task times establish.
func outcome(c Comparison) (string, error) {
	shifted := 0
	for _, r := range c.Rows {
		if slowerByShift(r) && (r.Performance == nil || r.Performance.Light != stats.Red) {
			shifted++
		}
	}
	switch {
	case c.Red > 0 || c.Failed > 0 || shifted > 0:
		return "REGRESSION", fmt.Errorf("%w: %d red, %d slower by the Task shift, %d accuracy fail", ErrRegression, c.Red, shifted, c.Failed)
	case c.missing():
		return fmt.Sprintf("INCOMPLETE (%s in one run only)", evidence.CountRows(len(c.OnlyInBase)+len(c.OnlyInNew))),
			fmt.Errorf("%w: %d only in base, %d only in new (--allow-missing to compare the common rows alone)", ErrMissing, len(c.OnlyInBase), len(c.OnlyInNew))
	case c.Decided < c.Timed || c.Timed == 0:
		v := fmt.Sprintf("INCONCLUSIVE (%d of %d timed rows decided)", c.Decided, c.Timed)
		return v, fmt.Errorf("%s: %w", v, ErrInconclusive)
	}
	if len(c.SlowerWithinTolerance) > 0 {
		return "no regression beyond the tolerance; measurably slower within it: " + strings.Join(c.SlowerWithinTolerance, ", "), nil
	}
	return "no regression found", nil
}

// untimed says a row has no timing of its own: its status measures nothing (reduced, variant,
// blocked rows).
func untimed(r evidence.Result) bool { return r.Timing == nil && r.Repeated == nil }

func runsCell(r RowComparison) string {
	if r.Performance == nil {
		return "–"
	}
	if r.FewRuns != "" {
		return fmt.Sprintf("%d/%d ⚠ fewer than %d", r.Performance.Base.N, r.Performance.New.N, minRuns)
	}
	return fmt.Sprintf("%d/%d", r.Performance.Base.N, r.Performance.New.N)
}

func shiftCell(r RowComparison) string {
	if r.TaskShift == nil {
		if r.TaskShiftError != "" {
			return "– (" + r.TaskShiftError + ")"
		}
		return "–"
	}
	sh := r.TaskShift
	pct := func(ln float64) string { return fmt.Sprintf("%+.1f%%", 100*(math.Exp(ln)-1)) }
	if sh.TooFew {
		return fmt.Sprintf("%s (n %d/%d over %d inputs: too few for an interval)", pct(sh.Estimate), sh.N[0], sh.N[1], r.TaskInputs)
	}
	return fmt.Sprintf("%s [%s, %s] (n %d/%d over %d inputs)", pct(sh.Estimate), pct(sh.CI.Lower), pct(sh.CI.Upper), sh.N[0], sh.N[1], r.TaskInputs)
}

func speedupCell(r RowComparison) string {
	if r.Performance == nil {
		return "–"
	}
	if r.Performance.CI == nil {
		return fmt.Sprintf("%.3f (no interval)", r.Performance.S)
	}
	return fmt.Sprintf("%.3f [%.3f, %.3f]", r.Performance.S, r.Performance.CI.Lower, r.Performance.CI.Upper)
}

func lightCell(r RowComparison) string {
	if r.Performance == nil {
		return string(stats.White)
	}
	return string(r.Performance.Light)
}

func whyCell(r RowComparison) string {
	if r.Performance == nil {
		return "white: " + r.PerfError
	}
	return fmt.Sprintf("%s: %s — %s", r.Performance.Light, r.Performance.Why, r.Decision)
}

// decide is the one definition of a decided row, and its words: a row decides only when its
// interval lies wholly on one side of the red bound, the bound the verdict depends on: red
// (slower), or wholly above it (no regression, whether the light is green or yellow). A yellow
// interval reaching below the red bound holds slowdowns the red light exists to catch; a white
// light has no interval to judge.
func decide(sp *stats.Speedup) (bool, string) {
	if sp == nil {
		return false, "undecided: no speedup could be computed"
	}
	red := sp.RedBelow
	if red == 0 {
		red = stats.RedBelow // a Speedup from before the bounds were recorded
	}
	switch {
	case sp.Light == stats.Red:
		return true, fmt.Sprintf("decided: slower (the whole interval lies below the red bound %.3f)", red)
	case sp.Light == stats.White || sp.CI == nil:
		return false, "undecided: a white light judges no interval"
	case sp.CI.Lower > red:
		return true, fmt.Sprintf("decided: no regression (the whole interval lies above the red bound %.3f)", red)
	}
	return false, fmt.Sprintf("undecided: the interval reaches below the red bound %.3f, so a regression is neither shown nor excluded", red)
}

func accuracyCell(a *Accuracy) string {
	switch {
	case a == nil:
		return "–"
	case a.Verdict == nil:
		return "error: " + a.Error
	default:
		return string(a.Verdict.Verdict)
	}
}

func marginCell(a *Accuracy) string {
	if a == nil || a.Verdict == nil {
		return "–"
	}
	return fmt.Sprintf("%.4g", a.Margin)
}
