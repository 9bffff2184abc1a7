// Package labels is the one registry of Ginkgo labels the suites use:
// `go tool ginkgo --label-filter=asr ./suites/...` qualifies stage 3 alone. A label filter
// naming a label that is not registered here fails the run (a typo would otherwise select
// nothing and pass).
package labels

import "github.com/trtmc-qual/trtmc-qual/harness/stage"

// Resource labels. Each stage's label is its name (harness/stage).
const (
	Containers = "containers" // starts Docker containers
	GPU        = "gpu"        // needs GPU passthrough (a planned row on a machine without it)
	Slow       = "slow"       // a full qualification: serves the bundle and runs AIPerf (minutes per checkpoint)
)

// All lists every registered label: the resource labels and one per stage of the stage
// registry (a new stage's label needs no line here).
func All() []string {
	out := []string{Containers, GPU, Slow}
	for _, s := range stage.Names() {
		out = append(out, string(s))
	}
	return out
}

// Stage is a stage's label.
func Stage(s stage.Name) string { return string(s) }

// Unknown returns the labels a Ginkgo --label-filter names that are not registered. Regular
// expressions (/.../) are not checked: they may legitimately match nothing in one suite.
func Unknown(filter string) []string {
	known := map[string]bool{}
	for _, l := range All() {
		known[l] = true
	}
	var out []string
	inRegex := false
	word := []rune{}
	flush := func() {
		if len(word) > 0 && !inRegex && !known[string(word)] {
			out = append(out, string(word))
		}
		word = word[:0]
	}
	for _, r := range filter {
		switch {
		case r == '/':
			flush()
			inRegex = !inRegex
		case r == '&' || r == '|' || r == '!' || r == '(' || r == ')' || r == ',' || r == ' ' || r == '\t':
			flush()
		default:
			word = append(word, r)
		}
	}
	flush()
	return out
}
