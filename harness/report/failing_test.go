package report

import (
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// A failed row is on the first screen: first in its stage's table, its first failure on one
// line under the verdict with what to do for that kind of failure and a link to the row, and
// counted in the stage table's failures column (HTML too).
func TestFailingRowsComeFirstWithWhatToDo(t *testing.T) {
	e := sampleRun()
	e.Stages[0].Results = append(e.Stages[0].Results, evidence.Result{Profile: "sphinx-tidigits", Checkpoint: "pocketsphinx-testdata/tidigits",
		Revision: "0.8", Kind: "full", Counted: true, Status: evidence.StatusFailed,
		Failures: []string{"gate: gold_wer 0.31\nover its bound 0.25", "join: 2 AIPerf requests without a server record"}})
	e.Stages[0].Status = "failed"
	md := Markdown(e, nil)
	want := "- `asr/sphinx-tidigits`: gate: gold_wer 0.31 over its bound 0.25\n  - what to do: " + failureHints()["gate"] + " ([folder](asr/sphinx-tidigits/))\n"
	if !strings.Contains(md, want) {
		t.Errorf("no failing-row line %q in:\n%s", want, md)
	}
	if v, f := strings.Index(md, "**Verdict: FAILED**"), strings.Index(md, "**Failing rows**"); v < 0 || f < v || f > strings.Index(md, "## Stage 3") {
		t.Errorf("the failing rows must follow the verdict, before the stages")
	}
	table := md[strings.Index(md, "| profile | checkpoint |"):]
	if strings.Index(table, "| sphinx-tidigits |") > strings.Index(table, "| sphinx-en-us [1] |") {
		t.Errorf("the failed row is not first in its stage's table:\n%s", table)
	}
	if !strings.Contains(md, "| 1 row |") {
		t.Errorf("failures column: want \"1 row\":\n%s", md)
	}
	page := HTML(e, nil)
	html := string(page)
	for _, s := range []string{"<th>failures</th></tr>", "<td>1 row</td>", `<a href="#row-asr-sphinx-tidigits">`, `id="row-asr-sphinx-tidigits"`,
		`<a href="asr/sphinx-tidigits/">folder</a>`} {
		if !strings.Contains(html, s) {
			t.Errorf("report.html lacks %q:\n%s", s, html[:min(len(html), 3000)])
		}
	}
	if strings.Index(html, `id="row-asr-sphinx-tidigits"`) > strings.Index(html, `id="row-asr-sphinx-en-us"`) {
		t.Errorf("report.html: the failed row is not first")
	}
}

// A step without a hint of its own gets the general one; every hint names something to do.
func TestEveryFailureGetsAHint(t *testing.T) {
	e := evidence.Evidence{Stages: []evidence.Stage{{Stage: "t2i", Results: []evidence.Result{{Profile: "p", Status: evidence.StatusFailed, Failures: []string{"new-step: broke"}}}}}}
	if f := FailingRows(e); len(f) != 1 || f[0].Hint != generalHint || f[0].First != "new-step: broke" {
		t.Errorf("%+v", f)
	}
}

// A checkpoint without a revision (TRTMC manifests name none) has no trailing "@", and a planned
// row's reproduce line says why there is no command instead of an empty one.
func TestNoTrailingAtNorEmptyReproduce(t *testing.T) {
	e := evidence.Evidence{Stages: []evidence.Stage{{Stage: "t2i", Number: 6, Status: evidence.StatusPlanned, Results: []evidence.Result{
		{Profile: "flux-2-dev", Checkpoint: "black-forest-labs/FLUX.2-dev", Kind: "full", Counted: true, Status: evidence.StatusPlanned}}}}}
	md := Markdown(e, nil)
	if strings.Contains(md, "FLUX.2-dev@") || !strings.Contains(md, "| black-forest-labs/FLUX.2-dev |") {
		t.Errorf("trailing @:\n%s", md)
	}
	if strings.Contains(md, "flux-2-dev: ``") || !strings.Contains(md, "- flux-2-dev: nothing to reproduce: the row was not run here (planned)") {
		t.Errorf("empty reproduce command:\n%s", md)
	}
	if page := HTML(e, nil); strings.Contains(string(page), "FLUX.2-dev@") {
		t.Error("report.html: trailing @ present")
	}
}

// A selected row the run stopped before gets its own hint and no folder link (its checkpoint may
// have made none); every other failed row keeps its link.
func TestNotRunRowHasItsHintAndNoDeadLink(t *testing.T) {
	e := sampleRun()
	nr := evidence.NotRunResult(evidence.InventoryRow{Profile: "sphinx-tidigits", Kind: evidence.KindFull, Counted: true}, "the suite stopped")
	e.Stages[0].Results = append(e.Stages[0].Results, nr)
	f := FailingRows(e)
	if len(f) != 1 || f[0].Hint != failureHints()[evidence.NotRunStep] || f[0].Folder != "" || f[0].First != "not run: the suite stopped" {
		t.Fatalf("%+v", f)
	}
	md := Markdown(e, nil)
	if !strings.Contains(md, "  - what to do: "+failureHints()[evidence.NotRunStep]+"\n") || strings.Contains(md, "(asr/sphinx-tidigits/)") {
		t.Errorf("not-run row's line:\n%s", md)
	}
}
