package report

import (
	"regexp"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// sampleRun is a small run as the suites write it: one qualified ASR row, one reduced row, and
// a blocked stage 9.
func sampleRun() evidence.Evidence {
	sum := evidence.Timing{Requests: 50, Figures: []evidence.Figure{
		{Name: "client_latency_p50", Value: 2211.1, Unit: "ms", Formula: "p50 of AIPerf request_latency"},
		{Name: "client_latency_p95", Value: 3665.1, Unit: "ms", Formula: "p95 of AIPerf request_latency"},
		{Name: "task_call_p50", Value: 2208.8, Unit: "ms", Formula: "p50 of model_call_ms"},
		{Name: "task_call_p95", Value: 3663.0, Unit: "ms", Formula: "p95 of model_call_ms"},
		{Name: "client_minus_task_p50", Value: 2.3, Unit: "ms", Formula: "p50 of (request_latency − model_call_ms)"},
		{Name: "request_throughput", Value: 0.91, Unit: "req/s", Formula: "requests / duration"},
		{Name: "rtf", Value: 0.473, Unit: "ratio", Formula: "Σ model_call_ms / Σ clip ms"},
		{Name: "audio_seconds_per_second", Value: 4.16, Unit: "s/s", Formula: "Σ clip s / duration"},
	}}
	gate := &evidence.GateResult{Passed: true, Figures: map[string]float64{"gold_wer": 0.2667, "ned_max": 0}}
	asr := evidence.Stage{Stage: "asr", Number: 3, Status: "qualified", Results: []evidence.Result{
		{Profile: "sphinx-en-us", Checkpoint: "pocketsphinx-en-us/en-us", Revision: "0.8", Kind: "full", Counted: true,
			Status: "aiperf-qualified", Gate: gate, Timing: &sum,
			Join: &evidence.Join{Matched: 55}, Statement: "produced by the contract double, not a TRTMC result", Reproduce: "QUAL_TARGET=suites/targets/reference.yaml go tool ginkgo --label-filter=asr ./suites/asr"},
		{Profile: "sphinx-an4-l0", Checkpoint: "pocketsphinx-testdata/an4", Revision: "0.8", Kind: "reduced",
			Status: "family-validated", Gate: gate, Reproduce: "go tool ginkgo --label-filter=asr ./suites/asr"},
	}}
	asr.Inventory = []evidence.InventoryRow{{Checkpoint: "pocketsphinx-testdata/an4", Revision: "0.8", Profile: "gap:pocketsphinx-testdata/an4",
		Kind: evidence.KindGap, Status: evidence.StatusUnsupported, Reason: "only reduced or variant profiles: sphinx-an4-l0"}}
	qa := evidence.Stage{Stage: "audioqa", Number: 9, Status: "blocked", Reason: "none of the 8 profiles implements audio_text_to_text"}
	return evidence.Evidence{RunID: "r1", Target: "reference", Stages: []evidence.Stage{asr, qa}}
}

func TestVerdictFollowsStageStatuses(t *testing.T) {
	for _, tc := range []struct {
		statuses []string
		want     string
	}{
		{[]string{"qualified", "qualified"}, "QUALIFIED"},
		{[]string{"qualified", "blocked"}, "PARTIAL"},
		{[]string{"qualified", "failed", "blocked"}, "FAILED"},
		{[]string{"planned", "blocked"}, "NOT QUALIFIED"},
		{nil, "NO STAGES"},
	} {
		var e evidence.Evidence
		for _, s := range tc.statuses {
			e.Stages = append(e.Stages, evidence.Stage{Status: evidence.Status(s)})
		}
		if got := evidence.Verdict(e); got != tc.want {
			t.Errorf("stages %v: verdict %s, want %s", tc.statuses, got, tc.want)
		}
	}
}

func TestMarkdownReadsOnOneScreen(t *testing.T) {
	md := Markdown(sampleRun(), picturesOf(sampleRun()))
	verdict := strings.Index(md, "**Verdict: PARTIAL**")
	if verdict < 0 || verdict > strings.Index(md, "## Stage") {
		t.Fatalf("the verdict must come before the stage sections:\n%s", md)
	}
	for _, want := range []string{
		"| 3 `asr` | QUALIFIED | 1 / 1 | 2 | none |",
		"| 9 `audioqa` | BLOCKED | 0 / 0 | 0 | — (blocked) |",
		"55/55 matched",
		"**Note [1]:** produced by the contract double, not a TRTMC result.",
		"| sphinx-en-us [1] | pocketsphinx-en-us/en-us@0.8 |",
		"| sphinx-an4-l0 | pocketsphinx-testdata/an4@0.8 |",
		"| — | pocketsphinx-testdata/an4@0.8 | gap | no | unsupported | — | — | only reduced or variant profiles: sphinx-an4-l0 |",
		"[latency](figures/asr-sphinx-en-us-latency.svg)",
		"![latency of sphinx-en-us](figures/asr-sphinx-en-us-latency.svg)",
		"RTF 0.473 (4.16 audio-s/s)",
		"| sphinx-en-us | 0.2667 | 0 |",
		"go tool ginkgo --label-filter=asr",
		"## Statuses", "**Counted**",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if n := strings.Count(md, "- `rtf` (ratio):"); n != 1 {
		t.Errorf("formula for rtf listed %d times, want once", n)
	}
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| ") && len([]rune(line)) > 160 {
			t.Errorf("table row of %d characters (want ≤ 160, no horizontal scrolling): %s", len([]rune(line)), line)
		}
	}
}

// A smoke run's reports say so where the verdict is, with the target's denominators, and its
// stage's status carries the scope as the verdict does.
func TestReportsShowTheRunsScope(t *testing.T) {
	rows := []evidence.InventoryRow{{Profile: "a", Kind: evidence.KindFull, Counted: true}, {Profile: "b", Kind: evidence.KindFull, Counted: true},
		{Profile: "c", Kind: evidence.KindReduced}}
	s := evidence.Stage{Stage: "asr", Number: 3, Status: evidence.StageQualified, Inventory: rows, Selection: evidence.SelectionOf(rows, "smoke"),
		Results: []evidence.Result{{Profile: "a", Kind: evidence.KindFull, Counted: true, Status: evidence.StatusQualified}}}
	e := evidence.Evidence{RunID: "smoke-1", Stages: []evidence.Stage{s}}
	md := Markdown(e, nil)
	page := HTML(e, nil)
	for _, want := range []string{"**Verdict: SMOKE — not a qualification: 1 of 3 rows (selected rows: QUALIFIED)**",
		"Scope: this run selected 1 of the target's 3 rows", "| 3 `asr` | SMOKE — not a qualification (selected rows: QUALIFIED) | 1 / 2 | 1 of 3 | none |"} {
		if !strings.Contains(md, want) {
			t.Errorf("qualification.md lacks %q:\n%s", want, md)
		}
	}
	for _, want := range []string{"Verdict: SMOKE — not a qualification: 1 of 3 rows", "<td>1 / 2</td><td>1 of 3</td>", `<p id="scope">Scope: this run selected 1 of the target&#39;s 3 rows`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

// No Go identifier (a package-qualified name such as evidence.Stage) in any text a reader sees.
func TestReportsHaveNoGoIdentifiers(t *testing.T) {
	e := sampleRun()
	page := HTML(e, nil)
	goName := regexp.MustCompile(`\b(evidence|timing|schema|stats|inventory|report)\.[A-Z]\w*`)
	for name, text := range map[string]string{"qualification.md": Markdown(e, nil), "report.html": string(page)} {
		if m := goName.FindAllString(text, -1); len(m) > 0 {
			t.Errorf("%s shows Go identifiers %q", name, m)
		}
	}
}
