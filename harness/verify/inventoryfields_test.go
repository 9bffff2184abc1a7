package verify

import (
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
	"github.com/trtmc-qual/trtmc-qual/harness/plan"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// ranReference is the reference target's inventory as a run leaves it, stage by stage, and the
// rows the scan gives (manifests relative, as checkInventory compares them).
type ranReference struct {
	stages  []evidence.Stage
	scanned map[string][]evidence.InventoryRow
}

// runReference scans the reference target's pinned manifests as the suites' plan does, starts
// each stage's evidence through the plan (plan.NewStageRun), records results through the
// suite's own calls (StageRun.Add and Planned: every outcome a row can reach, one failed row,
// controls the bundle declared, one row left unselected) and writes and reads back each
// stage.json (StageRun.Write settles the inventory as the suite does).
func runReference(t *testing.T, shards int) ranReference {
	t.Helper()
	root := repoRoot(t)
	tg, err := target.Read(filepath.Join(root, "suites", "targets", "reference.yaml"), root)
	if err != nil {
		t.Fatal(err)
	}
	paths, err := tg.ManifestPaths()
	if err != nil {
		t.Fatal(err)
	}
	rep := inventory.Scan(paths, inventory.Options{Capabilities: plan.Capabilities(tg)})
	dir := t.TempDir()
	out := ranReference{scanned: map[string][]evidence.InventoryRow{}}
	for _, name := range stage.Names() {
		w, err := workload.Of(name)
		if err != nil {
			t.Fatal(err)
		}
		rows := rep.Stages[name]
		scanned := append([]evidence.InventoryRow(nil), rows...)
		inventory.Relative(scanned, tg.Root)
		out.scanned[string(name)] = scanned
		merge := evidence.NewMerge()
		for shard := 1; shard <= shards; shard++ {
			label := ""
			if shards > 1 {
				label = fmt.Sprintf("shard %d/%d", shard, shards)
			}
			p := &plan.Plan{Root: root, Stage: name, W: w, Target: tg, TargetRows: rows, Rows: inventory.Shard(rows, shard, shards), Shard: shard, Shards: shards}
			run := p.NewStageRun(label)
			ranRows := 0
			for _, row := range p.Rows {
				if !evidence.Resulting(row) {
					continue
				}
				ranRows++
				switch {
				case ranRows == 3:
					// not selected: no result
				case row.GPUs > 1:
					run.Planned(row, row.Reason)
				case ranRows == 2:
					run.Add(evidence.Result{Profile: row.Profile, Checkpoint: row.Checkpoint, Revision: row.Revision, Kind: row.Kind, Counted: row.Counted,
						Status: evidence.StatusFailed, Failures: []string{"gate: below the pinned threshold"}})
				case row.Kind == evidence.KindFull && row.Counted:
					run.Add(evidence.Result{Profile: row.Profile, Checkpoint: row.Checkpoint, Revision: row.Revision, Kind: row.Kind, Counted: row.Counted,
						Status: evidence.StatusQualified, Controls: []string{"language"}})
				default:
					run.Add(evidence.Result{Profile: row.Profile, Checkpoint: row.Checkpoint, Revision: row.Revision, Kind: row.Kind, Counted: row.Counted,
						Status: evidence.StatusFamilyValidated})
				}
			}
			shardDir := filepath.Join(dir, fmt.Sprintf("shard%d", shard))
			if err := run.Write(shardDir, map[string]string{"aiperf": "0.13.0"}, evidence.Hardware{Cores: 2}); err != nil {
				t.Fatal(err)
			}
			written, err := evidence.ReadStage(filepath.Join(shardDir, string(name), "stage.json"))
			if err != nil {
				t.Fatal(err)
			}
			if shards == 1 {
				out.stages = append(out.stages, written)
			}
			merge.Add(written)
		}
		if shards > 1 {
			out.stages = append(out.stages, merge.Stages()[string(name)])
		}
	}
	return out
}

// TestAsRunIsHowTheSuiteLeavesARow: the rows the suite's own transitions leave (run, failed,
// planned, not selected, in one run and in merged shards) are the rebuilt rows as run.
func TestAsRunIsHowTheSuiteLeavesARow(t *testing.T) {
	for _, shards := range []int{1, 2} {
		ran := runReference(t, shards)
		statuses := map[evidence.Status]int{}
		for _, s := range ran.stages {
			report, got := collect()
			compareInventory(s, ran.scanned[s.Stage], report)
			if len(*got) != 0 {
				t.Errorf("%d shard(s): the stage %s as the suite leaves it: %v", shards, s.Stage, *got)
			}
			for _, row := range s.Inventory {
				statuses[row.Status]++
			}
		}
		for _, st := range []evidence.Status{evidence.StatusQualified, evidence.StatusFamilyValidated, evidence.StatusFailed, evidence.StatusNotSelected, evidence.StatusUnsupported} {
			if statuses[st] == 0 {
				t.Errorf("%d shard(s): the fixture leaves no row %s (%v): the test exercises less than it says", shards, st, statuses)
			}
		}
	}
}

// TestEveryInventoryFieldEditIsNamed edits every field of every row of the reference target's
// inventory as a run leaves it, one edit at a time, to another plausible value, and wants a
// problem naming the row's profile and the field's JSON name. The fields are enumerated by
// reflection, so a field added to evidence.InventoryRow is edited here too.
func TestEveryInventoryFieldEditIsNamed(t *testing.T) {
	ran := runReference(t, 1)
	typ := reflect.TypeFor[evidence.InventoryRow]()
	edits, unnamed, silent := 0, 0, 0
	var missed []string
	for _, s := range ran.stages {
		want := ran.scanned[s.Stage]
		report, got := collect()
		compareInventory(s, want, report)
		if len(*got) != 0 {
			t.Fatalf("the unedited stage %s: %v", s.Stage, *got)
		}
		for i, row := range s.Inventory {
			for f := range typ.NumField() {
				name := jsonName(typ.Field(f))
				edited := s
				edited.Inventory = slices.Clone(s.Inventory)
				before := fmt.Sprint(reflect.ValueOf(row).Field(f).Interface())
				editField(t, reflect.ValueOf(&edited.Inventory[i]).Elem().Field(f))
				after := fmt.Sprint(reflect.ValueOf(edited.Inventory[i]).Field(f).Interface())
				report, got := collect()
				compareInventory(edited, want, report)
				edits++
				if len(*got) == 0 {
					silent++
				}
				if !names(*got, row.Profile, name) {
					unnamed++
					missed = append(missed, fmt.Sprintf("%s row %s: %s %s → %s: %v", s.Stage, row.Profile, name, before, after, *got))
				}
			}
		}
	}
	t.Logf("%d of %d edits unnamed, %d of them with no problem at all (%d rows × %d fields of evidence.InventoryRow)", unnamed, edits, silent, edits/typ.NumField(), typ.NumField())
	for _, m := range missed[:min(len(missed), 25)] {
		t.Errorf("edit not named: %s", m)
	}
	if edits == 0 {
		t.Fatal("no row to edit")
	}
}

// names says whether a problem names the profile and, as a word of its own, the field.
func names(problems []string, profile, field string) bool {
	word := regexp.MustCompile(`\b` + regexp.QuoteMeta(field) + `\b`)
	for _, p := range problems {
		if _, msg, ok := strings.Cut(p, ": "); ok && strings.Contains(msg, profile) && word.MatchString(msg) {
			return true
		}
	}
	return false
}

// jsonName is the field's name in stage.json.
func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" {
		return f.Name
	}
	return name
}

// editField sets v to another plausible value of its type: another kind or status of the
// evidence's, a string changed, a flag flipped, a count moved, an element added or removed.
func editField(t *testing.T, v reflect.Value) {
	t.Helper()
	other := func(all ...string) string {
		for _, x := range all {
			if x != v.String() {
				return x
			}
		}
		return ""
	}
	switch v.Type() {
	case reflect.TypeFor[evidence.Kind]():
		v.SetString(other("full", "reduced", "variant", "excluded", "gap"))
		return
	case reflect.TypeFor[evidence.Status]():
		v.SetString(other(string(evidence.StatusFamilyValidated), string(evidence.StatusQualified), string(evidence.StatusFailed),
			string(evidence.StatusPlanned), string(evidence.StatusNotSelected), string(evidence.StatusUnsupported)))
		return
	}
	switch v.Kind() {
	case reflect.String:
		if v.String() == "" {
			v.SetString("edited")
		} else {
			v.SetString(v.String() + "-edited")
		}
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int:
		v.SetInt(v.Int() + 1)
	case reflect.Slice:
		if v.Len() > 0 {
			v.Set(v.Slice3(0, v.Len()-1, v.Len()-1))
		} else {
			v.Set(reflect.Append(reflect.MakeSlice(v.Type(), 0, 1), reflect.ValueOf("edited").Convert(v.Type().Elem())))
		}
	default:
		t.Fatalf("no plausible edit for a field of type %s: teach editField one", v.Type())
	}
}

// TestAsRunTakesOnlyWhatTheSuiteCouldRecord: a result's status is copied into the rebuilt row
// only when the suite could have recorded it for that row, so a status forged in both the result
// and the inventory row is named; a row without a result cannot claim one.
func TestAsRunTakesOnlyWhatTheSuiteCouldRecord(t *testing.T) {
	find := func(s evidence.Stage, ok func(evidence.InventoryRow) bool) int {
		i := slices.IndexFunc(s.Inventory, ok)
		if i < 0 {
			t.Fatalf("stage %s has no such row: %+v", s.Stage, s.Inventory)
		}
		return i
	}
	result := func(s *evidence.Stage, profile string) *evidence.Result {
		i := slices.IndexFunc(s.Results, func(r evidence.Result) bool { return r.Profile == profile })
		if i < 0 {
			t.Fatalf("row %s has no result", profile)
		}
		return &s.Results[i]
	}
	cases := []struct {
		name string
		edit func(s *evidence.Stage) string // returns the edited row's profile
		want []string
	}{
		{"a reduced row qualified in its result and its row", func(s *evidence.Stage) string {
			i := find(*s, func(r evidence.InventoryRow) bool {
				return r.Kind == evidence.KindReduced && r.Status == evidence.StatusFamilyValidated
			})
			s.Inventory[i].Status = evidence.StatusQualified
			result(s, s.Inventory[i].Profile).Status = evidence.StatusQualified
			return s.Inventory[i].Profile
		}, []string{"its result says aiperf-qualified; the suite records a reduced row (counted false) only as family-validated or failed"}},
		{"a gap row given a result", func(s *evidence.Stage) string {
			i := find(*s, func(r evidence.InventoryRow) bool { return r.Kind == evidence.KindGap })
			s.Inventory[i].Status = evidence.StatusFamilyValidated
			s.Results = append(s.Results, evidence.Result{Profile: s.Inventory[i].Profile, Status: evidence.StatusFamilyValidated})
			return s.Inventory[i].Profile
		}, []string{"its result says family-validated, but the suite gives a gap row no result"}},
		{"a row not selected said planned", func(s *evidence.Stage) string {
			i := find(*s, func(r evidence.InventoryRow) bool { return r.Status == evidence.StatusNotSelected })
			s.Inventory[i].Status = evidence.StatusPlanned
			return s.Inventory[i].Profile
		}, []string{`status is "planned", the rebuilt row's "not selected"`}},
		{"a row's controls other than its result's", func(s *evidence.Stage) string {
			i := find(*s, func(r evidence.InventoryRow) bool { return len(r.Controls) > 0 })
			s.Inventory[i].Controls = []string{"language", "prompt"}
			return s.Inventory[i].Profile
		}, []string{`controls is ["language","prompt"], the rebuilt row's ["language"]`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ran := runReference(t, 1)
			s := ran.stages[0]
			profile := c.edit(&s)
			report, got := collect()
			compareInventory(s, ran.scanned[s.Stage], report)
			if !containsAll(*got, append([]string{s.Stage + "/stage.json", "inventory row " + profile}, c.want...)...) {
				t.Fatalf("want %q: %v", c.want, *got)
			}
		})
	}
}
