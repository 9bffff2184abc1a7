package verify

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/report"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
)

// plannedRun publishes a small run whose only row is planned (it claims nothing, so every
// recomputation accepts it), assembled by `qual report`'s own code, in a directory named by its
// run id; the pins are this checkout's.
func plannedRun(t *testing.T) string {
	t.Helper()
	t.Setenv("QUAL_ROOT", repoRoot(t))
	dir := filepath.Join(t.TempDir(), "20260101T000000Z")
	stage := evidence.Stage{SchemaVersion: evidence.SchemaVersion, Stage: "t2i", Number: 6, Status: "planned", Reason: "fixture",
		TargetKind: string(target.TRTMC), // a checkout outside the repository: nothing of its inventory is pinned here
		Results:    []evidence.Result{{Profile: "p", Kind: evidence.KindFull, Counted: true, Status: evidence.StatusPlanned, Statement: "fixture"}},
		Inventory:  []evidence.InventoryRow{{Profile: "p", Kind: evidence.KindFull, Counted: true, Status: evidence.StatusPlanned}},
		Versions:   map[string]string{"trtmc-qual": gitDescribe(repoRoot(t))}}
	if err := evidence.WriteJSON(filepath.Join(dir, "t2i", "stage.json"), stage); err != nil {
		t.Fatal(err)
	}
	if _, err := report.Assemble(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func check(t *testing.T, dir string) Report {
	t.Helper()
	rep, err := Check(dir, envOptions())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func problemsOf(rep Report) []string {
	var out []string
	for _, p := range rep.Problems {
		out = append(out, p.String())
	}
	return out
}

func edit(t *testing.T, path string, fn func([]byte) []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, fn(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestPlannedFixtureVerifies(t *testing.T) {
	rep := check(t, plannedRun(t))
	if len(rep.Problems) != 0 || len(rep.Notes) != 0 || rep.Pins.Root == "" || rep.Pins.How != "QUAL_ROOT" {
		t.Fatalf("the untouched fixture: %+v", rep)
	}
}

// TestEvidenceFilesAreCanonical adds case-variant duplicate keys: Go's decoder keeps the last
// ("Status": failed), jq and Python the exact one ("status": planned).
func TestEvidenceFilesAreCanonical(t *testing.T) {
	for _, rel := range []string{"evidence.json", "t2i/stage.json"} {
		t.Run(rel, func(t *testing.T) {
			dir := plannedRun(t)
			edit(t, filepath.Join(dir, filepath.FromSlash(rel)), func(b []byte) []byte {
				return bytes.Replace(b, []byte(`"status": "planned",`), []byte(`"status": "planned", "Status": "planned",`), 1)
			})
			if got := problemsOf(check(t, dir)); !containsAll(got, rel, "is not canonical JSON", `key "Status"`, `repeats "status"`) {
				t.Fatalf("case-variant duplicate key in %s: %v", rel, got)
			}
		})
	}
	t.Run("a case-variant key alone", func(t *testing.T) {
		dir := plannedRun(t)
		edit(t, filepath.Join(dir, "t2i", "stage.json"), func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"reason": "fixture"`), []byte(`"Reason": "fixture"`), 1)
		})
		if got := problemsOf(check(t, dir)); !containsAll(got, "t2i/stage.json", "is not its own canonical re-encoding", "at .Reason", "re-encoded nothing") {
			t.Fatalf("case-variant key: %v", got)
		}
	})
	t.Run("unknown field", func(t *testing.T) {
		dir := plannedRun(t)
		edit(t, filepath.Join(dir, "evidence.json"), func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"run_id"`), []byte(`"approved_by": "qa", "run_id"`), 1)
		})
		if got := problemsOf(check(t, dir)); !containsAll(got, "evidence.json", "not the evidence schema", "approved_by") {
			t.Fatalf("unknown field: %v", got)
		}
	})
}

// TestReportHTMLIsTheEvidence edits only report.html: the page is re-rendered and compared.
func TestReportHTMLIsTheEvidence(t *testing.T) {
	dir := plannedRun(t)
	edit(t, filepath.Join(dir, "report.html"), func(b []byte) []byte {
		return bytes.Replace(b, []byte("NOT QUALIFIED"), []byte("QUALIFIED"), 1)
	})
	if got := problemsOf(check(t, dir)); !containsAll(got, "report.html", "does not match evidence.json", "QUALIFIED") {
		t.Fatalf("edited report.html: %v", got)
	}
}

// TestJUnitSpecNeedsItsRow is a failed JUnit spec whose row was deleted from the evidence; a
// stage's own Describe is no row.
func TestJUnitSpecNeedsItsRow(t *testing.T) {
	dir := plannedRun(t)
	junit := `<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="2" failures="1"><testsuite name="t2i" tests="2" failures="1">` + suiteProperties(t, dir, "t2i") + `
<testcase name="is recorded as planned" classname="t2i.p" status="skipped"><skipped message="planned"></skipped></testcase>
<testcase name="passes the family's unchanged gate" classname="t2i.procdiff-base" status="failed"><failure message="gate"></failure></testcase>
<testcase name="refuses what it cannot serve" classname="t2i.the_serving_path_refuses_what_it_cannot_serve" status="passed"></testcase>
</testsuite></testsuites>
`
	os.MkdirAll(filepath.Join(dir, "junit"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, "junit", "t2i.xml"), []byte(junit), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := problemsOf(check(t, dir)); len(got) != 1 || !containsAll(got, "junit/t2i.xml", "is failed, but the evidence has no row t2i.procdiff-base") {
		t.Fatalf("a failed spec without its row: %v", got)
	}
}

// suiteProperties are the <properties> suites/qualify writes into a stage's JUnit suite: the
// stage's rendering, the run's id, the stage and the shard.
func suiteProperties(t *testing.T, dir, stage string) string {
	t.Helper()
	e, err := evidence.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, ok := stageNamed(e, stage)
	if !ok {
		t.Fatalf("the run has no stage %s", stage)
	}
	props := report.JUnitStageProperties(s)
	props["run_id"], props["stage"], props["shard"] = e.RunID, stage, "1/1"
	return propertiesXML(props)
}

// propertiesXML is a JUnit <properties> element holding props, sorted by name.
func propertiesXML(props map[string]string) string {
	var b strings.Builder
	b.WriteString("<properties>")
	for _, k := range slices.Sorted(maps.Keys(props)) {
		fmt.Fprintf(&b, `<property name=%q value=%q></property>`, k, props[k])
	}
	return b.String() + "</properties>"
}

// TestPinsInsideTheRunAreRefused ships the pins inside the run directory and points QUAL_ROOT
// at them (or runs from inside): the run would be checked against its own thresholds.
func TestPinsInsideTheRunAreRefused(t *testing.T) {
	dir := plannedRun(t)
	os.MkdirAll(filepath.Join(dir, "golden"), 0o755)
	os.WriteFile(filepath.Join(dir, "golden", "thresholds.sha256"), []byte("loosened\n"), 0o644)
	t.Setenv("QUAL_ROOT", dir)
	if _, err := Check(dir, envOptions()); err == nil || !strings.Contains(err.Error(), "is inside the run directory") {
		t.Fatalf("QUAL_ROOT inside the run: %v", err)
	}
	t.Setenv("QUAL_ROOT", "")
	t.Chdir(filepath.Join(dir, "t2i"))
	if _, err := Check(dir, envOptions()); err == nil || !strings.Contains(err.Error(), "is inside the run directory") {
		t.Fatalf("run from inside the run: %v", err)
	}
}

// TestPinNotes are said, never failed: another commit, and a run copied to another name.
func TestPinNotes(t *testing.T) {
	dir := plannedRun(t)
	copied := filepath.Join(filepath.Dir(dir), "renamed")
	if err := os.Rename(dir, copied); err != nil {
		t.Fatal(err)
	}
	rep := check(t, copied)
	if len(rep.Problems) != 0 || !containsAll(rep.Notes, `run_id "20260101T000000Z" is not the directory's name "renamed"`) {
		t.Fatalf("renamed run: %+v", rep)
	}
	if notes := pinNotes(PinSource{Commit: "abc1234"}, "def5678", "r", "r"); !containsAll(notes, "WARNING", "def5678", "abc1234") {
		t.Fatalf("another commit: %v", notes)
	}
	latest := filepath.Join(t.TempDir(), "latest")
	os.Symlink(copied, latest)
	if rep := check(t, latest); len(rep.Problems) != 0 || len(rep.Notes) != 1 {
		t.Fatalf("a run named through a link is the directory it points to: %+v", rep)
	}
}
