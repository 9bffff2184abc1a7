package verify

import (
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
)

// inventoryForgeries edit fields of a qualified row's inventory entry that the inventory check
// once took as recorded (it compared kind, counted and manifest only), each re-signed by a
// forger: every field is now compared with the row the pinned manifests give.
func inventoryForgeries() []tamper {
	asr := string(stage.ASR)
	return []tamper{
		{name: "INV family relabelled", forged: true,
			want: []string{"asr/stage.json", "is not the row its pinned manifest gives", `family is "`},
			edit: func(t *testing.T, f *forger) {
				_, r := f.result(asr, evidence.StatusQualified, evidence.KindFull)
				f.stage(asr, func(s *evidence.Stage) {
					other := ""
					for _, row := range s.Inventory {
						if row.Family != "" && row.Family != inventoryRow(t, s, r.Profile).Family {
							other = row.Family
						}
					}
					if other == "" {
						t.Fatalf("stage %s has one family only: nothing to relabel %s to", asr, r.Profile)
					}
					inventoryRow(t, s, r.Profile).Family = other
				})
			}},
		{name: "INV precision changed", forged: true,
			want: []string{"asr/stage.json", "is not the row its pinned manifest gives", `precision is "`},
			edit: func(t *testing.T, f *forger) {
				i, r := f.result(asr, evidence.StatusQualified, evidence.KindFull)
				f.stage(asr, func(s *evidence.Stage) {
					row := inventoryRow(t, s, r.Profile)
					row.Precision = map[bool]string{true: "fp16", false: "fp32"}[row.Precision == "fp32"]
					s.Results[i].Precision = row.Precision // the forger keeps the result's copy in step
				})
			}},
	}
}

// inventoryRow is the stage's inventory row of a profile, to edit in place.
func inventoryRow(t *testing.T, s *evidence.Stage, profile string) *evidence.InventoryRow {
	t.Helper()
	for i := range s.Inventory {
		if s.Inventory[i].Profile == profile {
			return &s.Inventory[i]
		}
	}
	t.Fatalf("stage %s has no inventory row %s", s.Stage, profile)
	return nil
}
