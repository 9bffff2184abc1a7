package report

import (
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/report/doc"
)

// A gap row (a checkpoint with only reduced or variant profiles) reads alike wherever a reader
// meets it: the rows table and the inventory give it the same profile, kind, counted and status
// cells, the glossary defines its kind and names its status, and the lights' legend names it
// among the white rows. Over every status a gap row could be recorded with.
func TestAGapRowHasOneName(t *testing.T) {
	for _, status := range []evidence.Status{evidence.StatusUnsupported, evidence.StatusPlanned, evidence.StatusNotSelected} {
		gap := evidence.InventoryRow{Stage: "asr", Checkpoint: "ck", Revision: "r1", Profile: "gap:ck", Kind: evidence.KindGap, Status: status,
			Reason: "gap: checkpoint ck has only reduced/variant profiles (ck-l0); no full-model profile to qualify"}
		e := evidence.Evidence{SchemaVersion: evidence.SchemaVersion, RunID: "r", Stages: []evidence.Stage{{SchemaVersion: evidence.SchemaVersion, Stage: "asr", Number: 3, Status: "failed",
			Results:   []evidence.Result{{Profile: "ck-l0", Checkpoint: "ck", Revision: "r1", Kind: evidence.KindReduced, Status: evidence.StatusFamilyValidated}},
			Inventory: []evidence.InventoryRow{{Stage: "asr", Checkpoint: "ck", Revision: "r1", Profile: "ck-l0", Kind: evidence.KindReduced, Status: evidence.StatusFamilyValidated}, gap}}}}
		d := Build(e, nil)
		rows, inv := findTable(d.Blocks, "rows"), findTable(d.Blocks, "inventory")
		if rows == nil || inv == nil {
			t.Fatal("no rows or inventory table")
		}
		inRows := cellsOf(t, *rows, func(r doc.Row) bool { return r.Class == "gap" }, "profile", "kind", "counted", "status")
		inInventory := cellsOf(t, *inv, func(r doc.Row) bool { return r.Cells[5].String() == string(evidence.KindGap) }, "profile", "kind", "counted", "status")
		if strings.Join(inRows, " | ") != strings.Join(inInventory, " | ") {
			t.Errorf("status %s: the rows table calls the gap %q, the inventory %q", status, inRows, inInventory)
		}
		if inRows[3] != string(status) {
			t.Errorf("the gap recorded %s reads %q", status, inRows[3])
		}
		md := doc.Markdown(d)
		for _, want := range []string{"*" + string(evidence.KindGap) + "*: a checkpoint", "status *" + string(evidence.StatusUnsupported) + "*", "blocked, a gap)"} {
			if !strings.Contains(md, want) {
				t.Errorf("the report does not say %q", want)
			}
		}
	}
}

func findTable(blocks []doc.Block, class string) *doc.Table {
	for _, tb := range tablesIn(blocks) {
		if tb.Class == class {
			return &tb.Table
		}
	}
	return nil
}

// cellsOf are the named columns of the one row of t that match.
func cellsOf(t *testing.T, table doc.Table, match func(doc.Row) bool, columns ...string) []string {
	t.Helper()
	var found []doc.Row
	for _, r := range table.Rows {
		if match(r) {
			found = append(found, r)
		}
	}
	if len(found) != 1 {
		t.Fatalf("table %s: %d gap rows, want 1", table.Class, len(found))
	}
	var out []string
	for _, c := range columns {
		i := -1
		for k, h := range table.Header {
			if h == c {
				i = k
			}
		}
		if i < 0 {
			t.Fatalf("table %s has no column %q", table.Class, c)
		}
		out = append(out, found[0].Cells[i].String())
	}
	return out
}
