package verify

import (
	"slices"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
	"github.com/trtmc-qual/trtmc-qual/harness/verify/pinned"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// selectionCheck: the run's selection is stated against the target's whole inventory, rebuilt
// here (checkSelection).
func selectionCheck(r *Run) []Problem {
	return problemsFrom(func(report reporter) { checkSelection(r.Pins, r.Evidence, report) })
}

// checkSelection rebuilds a reference run's target inventory, every stage and every row, from
// the target file and its manifests in the repository (pinned.ScanInventory). Each stage's selection (the rows a whole run gives
// a result, and how many count: the denominators of the verdict) must be the rebuilt one. A run
// that claims a qualified stage must hold every stage of the target that has rows, unless it
// says it covers part of the target (a smoke, focused or sharded run, whose verdict then says
// "not a qualification"): the verdict counts only the stages present, so a stage removed from
// the evidence with its files would leave QUALIFIED standing. (A run that claims nothing, such
// as one planned suite, may hold one stage.) A checkpoint or a stage removed from the evidence
// and its stage files together is refused here.
func checkSelection(p pins, e evidence.Evidence, report reporter) {
	_, paths, ok := referenceManifests(p, e, func(string, string, ...any) {}) // inventoryCheck reports unreadable manifests
	if !ok {
		return
	}
	rebuilt := pinned.ScanInventory(paths)
	label := evidence.ScopeOf(e).Label
	claims := slices.ContainsFunc(e.Stages, func(s evidence.Stage) bool { return s.Status == evidence.StageQualified })
	for _, st := range stage.All() {
		name := string(st.Name)
		want := evidence.SelectionOf(rebuilt.Stages[st.Name], label)
		i := slices.IndexFunc(e.Stages, func(s evidence.Stage) bool { return s.Stage == name })
		switch {
		case i >= 0:
			compareSelection(e.Stages[i], want, report)
		case len(want.TargetRows) > 0 && label == "" && claims:
			report("evidence.json", "stage %s of target %s (%d rows, %d counted: %s) is not in the run, and the run does not say it covers part of the target",
				name, e.Target, len(want.TargetRows), want.Counted, strings.Join(want.TargetRows, ", "))
		}
	}
}

// compareSelection compares a stage's stated selection (its inventory's when it states none, as
// the verdict reads it) with the rebuilt one.
func compareSelection(s evidence.Stage, want *evidence.Selection, report reporter) {
	if s.Status == evidence.StatusBlocked {
		return // a blocked stage selects nothing (evidence.StageScope)
	}
	got := s.Selection
	if got == nil {
		got = evidence.SelectionOf(s.Inventory, "")
	}
	where := s.Stage + "/stage.json"
	if missing := without(want.TargetRows, got.TargetRows); len(missing) > 0 {
		report(where, "selection leaves out target rows %s, which the target's manifests give: the verdict counts %d of the target's %d rows", strings.Join(missing, ", "), len(got.TargetRows), len(want.TargetRows))
	}
	if extra := without(got.TargetRows, want.TargetRows); len(extra) > 0 {
		report(where, "selection names %s, which are no rows of the target's manifests", strings.Join(extra, ", "))
	}
	if got.Counted != want.Counted {
		report(where, "selection says the target counts %d rows; its manifests give %d", got.Counted, want.Counted)
	}
}

// without is a's names that are not in b.
func without(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// referenceManifests are the manifests of a reference run's target file in the repository; ok is
// false for another target kind (its manifests are in its checkout) or a target file that cannot
// be read here (checkTargetKind reports it).
func referenceManifests(p pins, e evidence.Evidence, report reporter) (*target.Target, []string, bool) {
	if !kindOf(e.TargetKind).Embedded() {
		return nil, nil, false
	}
	path, err := workload.InsideDir(p.Root, "target", e.Target)
	if err != nil {
		return nil, nil, false
	}
	t, err := target.Read(path, p.Root)
	if err != nil {
		return nil, nil, false
	}
	paths, err := t.ManifestPaths()
	if err != nil {
		report("evidence.json", "inventory not rebuildable: manifests of %s: %v", e.Target, err)
		return nil, nil, false
	}
	return t, paths, true
}
