package report

import (
	"regexp"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/internal/runfixture"
	"github.com/trtmc-qual/trtmc-qual/harness/report/doc"
)

// TestNoBareQualifiedOutsideAFullRun: in a run that is no qualification of the target — a smoke
// run, a focus, a shard, a partial selection without a label, a reduced load alone or with a
// smoke selection — no heading, table cell, paragraph, list item or summary of qualification.md
// or report.html, and no JUnit stage property, says QUALIFIED without the run's scope word beside
// it, and no heading or cell (where the stages' and rows' statuses are) says qualified or
// aiperf-qualified without it either. The whole run at the target's load still reads bare
// QUALIFIED, so that the check is seen to bite.
func TestNoBareQualifiedOutsideAFullRun(t *testing.T) {
	pics, full := realRun(t)
	if evidence.ScopeOf(full).Narrowed() {
		t.Fatal("the full fixture is itself narrowed: it cannot show the check bites")
	}
	if bare := bareQualified(t, full, pics, "SMOKE"); len(bare) == 0 {
		t.Error("the whole run at the target's load reads no bare QUALIFIED: the check cannot fail")
	}
	for _, n := range runfixture.Narrowings(full) {
		t.Run(n.Name, func(t *testing.T) {
			if !evidence.ScopeOf(n.Evidence).Narrowed() {
				t.Fatalf("the %s fixture is not narrowed", n.Name)
			}
			for _, b := range bareQualified(t, n.Evidence, pics, n.Word) {
				t.Errorf("%s without %q: %q", b.where, n.Word, b.text)
			}
			if scoped := scopedQualified(t, n.Evidence, pics, n.Word); scoped == 0 {
				t.Errorf("no stage or row of the %s run reads %q beside qualified: the fixture qualifies nothing", n.Name, n.Word)
			}
		})
	}
}

// qualifiedWord is QUALIFIED as a status claims it; notQualified is the verdict that claims nothing.
var (
	qualifiedWord = regexp.MustCompile(`\bQUALIFIED\b`)
	notQualified  = regexp.MustCompile(`(?i)\bnot qualified\b`)
	statusWord    = regexp.MustCompile(`(?i)\b(aiperf-)?qualified\b`)
)

type unit struct{ where, text string }

// units are the texts a reader of the run finds: each kind of block of both reports (the
// glossary left out: it defines the words and says nothing of the run) and each JUnit stage
// property.
func units(t *testing.T, e evidence.Evidence, pics Pictures) []unit {
	t.Helper()
	d := Build(e, pics)
	var blocks []doc.Block
	for _, b := range d.Blocks {
		if s, ok := b.(doc.Section); ok && s.ID == "statuses" {
			continue
		}
		blocks = append(blocks, b)
	}
	d.Blocks = blocks
	var out []unit
	for name, c := range map[string]content{"qualification.md": markdownContent(doc.Markdown(d)), "report.html": htmlContent(t, doc.HTML(d))} {
		for kind, texts := range c {
			for _, x := range texts {
				out = append(out, unit{name + " " + kind, x})
			}
		}
	}
	for _, s := range e.Stages {
		for k, v := range JUnitStageProperties(s) {
			out = append(out, unit{"JUnit " + s.Stage + " property " + k, v})
		}
	}
	for _, s := range SummaryOf(e).Stages { // summary.json's words (its status fields are the bare enum)
		out = append(out, unit{"summary.json " + s.Stage + " words", s.Words})
		for _, r := range s.Rows {
			out = append(out, unit{"summary.json " + s.Stage + "/" + r.Profile + " words", r.Words})
		}
	}
	return out
}

// bareQualified are the units that claim a qualification without word: QUALIFIED anywhere, or a
// status (a heading's or a cell's qualified, aiperf-qualified) in any case.
func bareQualified(t *testing.T, e evidence.Evidence, pics Pictures, word string) []unit {
	t.Helper()
	var out []unit
	for _, u := range units(t, e, pics) {
		if claims(u) && !strings.Contains(u.text, word) {
			out = append(out, u)
		}
	}
	return out
}

// scopedQualified counts the units that claim a qualification with word beside it.
func scopedQualified(t *testing.T, e evidence.Evidence, pics Pictures, word string) int {
	t.Helper()
	n := 0
	for _, u := range units(t, e, pics) {
		if claims(u) && strings.Contains(u.text, word) {
			n++
		}
	}
	return n
}

// claims says whether a unit reads as a qualification: QUALIFIED but for NOT QUALIFIED, which
// claims nothing, or a stage's or row's status word where those are (headings and cells).
func claims(u unit) bool {
	text := notQualified.ReplaceAllString(u.text, "")
	if qualifiedWord.MatchString(text) {
		return true
	}
	status := strings.HasSuffix(u.where, " heading") || strings.HasSuffix(u.where, " cell")
	return status && statusWord.MatchString(text)
}
