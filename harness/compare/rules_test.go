package compare

import (
	"fmt"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/stats"
)

// Every term a row's Why line uses to decide has its rule in the comparison's Rules: the two
// detectable slowdowns and the Task shift's red bound, stated from the bound the code applies.
func TestRulesDefineWhatTheWhyLinesDecideBy(t *testing.T) {
	rules := compareRuns(evidence.Evidence{}, evidence.Evidence{}).Rules
	bound := fmt.Sprintf("+%.1f%%", 100*(1/stats.RedBelow-1))
	for key, want := range map[string][]string{
		"detectable":         {"light calls red"},
		"task shift decides": {"ln Task time", "REGRESSION", bound, "detectable slowdown by the Task shift"},
	} {
		rule, ok := rules[key]
		if !ok {
			t.Errorf("no rule %q", key)
			continue
		}
		for _, w := range want {
			if !strings.Contains(rule, w) {
				t.Errorf("rule %q = %q lacks %q", key, rule, w)
			}
		}
	}
}

// The Markdown's Rules section lists every rule the comparison carries, whatever its name.
func TestMarkdownListsEveryRule(t *testing.T) {
	c := compareRuns(evidence.Evidence{}, evidence.Evidence{})
	c.Rules["a rule added later"] = "stated"
	md := compareMarkdown(c)
	for k, v := range c.Rules {
		if !strings.Contains(md, "- "+k+": "+v+"\n") {
			t.Errorf("Rules section lacks %q", k)
		}
	}
}
