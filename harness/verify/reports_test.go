package verify

import (
	"bytes"
	"path/filepath"
	"testing"
)

// TestQualificationMarkdownIsTheEvidence edits only qualification.md, a line at a time: the
// report is re-rendered from evidence.json and the first differing line is named.
func TestQualificationMarkdownIsTheEvidence(t *testing.T) {
	for name, c := range map[string]struct{ from, to, line string }{
		"verdict":        {"**Verdict: NOT QUALIFIED**", "**Verdict: QUALIFIED**", "line 3 is `**Verdict: QUALIFIED**`"},
		"appended claim": {"## Statuses", "all good\n\n## Statuses", "is `all good`"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := plannedRun(t)
			edit(t, filepath.Join(dir, "qualification.md"), func(b []byte) []byte {
				if !bytes.Contains(b, []byte(c.from)) {
					t.Fatalf("the fixture's qualification.md has no %q", c.from)
				}
				return bytes.Replace(b, []byte(c.from), []byte(c.to), 1)
			})
			if got := problemsOf(check(t, dir)); !containsAll(got, "qualification.md", "does not match evidence.json", c.line) {
				t.Fatalf("edited qualification.md: %v", got)
			}
		})
	}
}
