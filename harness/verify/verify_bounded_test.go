package verify

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestProblemsAreBounded: a message quoting huge run data (a 5-million-digit number, multibyte
// text) is cut to a readable size that stays valid UTF-8 and says how much was left out; a
// short one is unchanged.
func TestProblemsAreBounded(t *testing.T) {
	for _, what := range []string{strings.Repeat("9", 5_000_000), strings.Repeat("é", 3000), strings.Repeat("x", maxProblemBytes)} {
		p := Problem{Where: "asr/x/profile_export.jsonl", What: what}.bounded()
		if len(p.What) > maxProblemBytes+40 || !utf8.ValidString(p.What) {
			t.Errorf("%d bytes in: %d bytes out, valid UTF-8 %v", len(what), len(p.What), utf8.ValidString(p.What))
		}
		if len(what) > maxProblemBytes && !strings.Contains(p.What, "more bytes)") {
			t.Errorf("a cut message does not say so: …%s", p.What[len(p.What)-30:])
		}
		if len(what) <= maxProblemBytes && p.What != what {
			t.Errorf("a message within the bound was changed")
		}
	}
}
