package plan

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/config"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
)

// Selection is what a run selects of one stage's rows (config.Select applied to them).
type Selection struct {
	Active bool     // the run narrows the target (QUAL_STAGE, QUAL_ROWS or QUAL_RERUN)
	Rows   []string // the selected profiles, in inventory order (every resulting row when not Active)
	Label  string   // the word the verdict gives the narrowing: "rerun" or "focused"
}

// Select applies the run's selection to a stage's rows. failed are the failed rows by stage of
// the run named by QUAL_RERUN (nil without it).
func Select(sel config.Select, s stage.Name, rows []evidence.InventoryRow, failed map[string][]string) Selection {
	out := Selection{Active: sel.Active(), Label: "focused"}
	if sel.Rerun != "" {
		out.Label = "rerun"
	}
	for _, r := range rows {
		if !evidence.Resulting(r) {
			continue
		}
		switch {
		case len(sel.Stages) > 0 && !slices.Contains(sel.Stages, s):
		case len(sel.Rows) > 0 && !slices.Contains(sel.Rows, r.Profile):
		case sel.Rerun != "" && !slices.Contains(failed[string(s)], r.Profile): // FailedRows keys by the recorded stage
		default:
			out.Rows = append(out.Rows, r.Profile)
		}
	}
	return out
}

// Focus is the Ginkgo focus that runs exactly the selected rows' specs: each row's Describe
// reads "<profile> (checkpoint …", so a profile that prefixes another (sphinx-en-us,
// sphinx-en-us-fast) selects only itself. A stage with no selected row gets a focus that
// matches no spec.
func (s Selection) Focus() string {
	if len(s.Rows) == 0 {
		return `\A\z.` // matches nothing: the stage runs no spec
	}
	quoted := make([]string, len(s.Rows))
	for i, p := range s.Rows {
		quoted[i] = regexp.QuoteMeta(p)
	}
	return `(^| )(` + strings.Join(quoted, "|") + `) \(checkpoint `
}

// FailedRowsOf reads the failed rows of the run in dir: its evidence.json, or the stages'
// evidence when it was not assembled.
func FailedRowsOf(dir string) (map[string][]string, error) {
	if dir == "" {
		return nil, nil
	}
	e, err := evidence.Read(dir)
	if err != nil {
		if e, err = evidence.Collect(dir); err != nil {
			return nil, fmt.Errorf("QUAL_RERUN=%s: %w", dir, err)
		}
	}
	return evidence.FailedRows(e), nil
}

// CheckSelection reads every stage's rows of the configured target and checks the selection
// against them: a row named by QUAL_ROWS that no selected stage has, or a selection of no row at
// all (a rerun of a run without a failed row), is an error naming it. It returns each stage's
// selection, in stage order.
func CheckSelection(cfg config.Config) (map[stage.Name]Selection, error) {
	failed, err := FailedRowsOf(cfg.Select.Rerun)
	if err != nil {
		return nil, err
	}
	out := map[stage.Name]Selection{}
	known, total := map[string]bool{}, 0
	for _, s := range stage.Names() {
		p, err := New(cfg, s)
		if err != nil {
			return nil, err
		}
		sel := Select(cfg.Select, s, p.TargetRows, failed)
		out[s], total = sel, total+len(sel.Rows)
		if len(cfg.Select.Stages) == 0 || slices.Contains(cfg.Select.Stages, s) {
			for _, r := range p.TargetRows {
				if evidence.Resulting(r) {
					known[r.Profile] = true
				}
			}
		}
	}
	for _, r := range cfg.Select.Rows {
		if !known[r] {
			return out, fmt.Errorf("QUAL_ROWS names %q, which is no row of the selected stages (build/bin/qual inventory lists them)", r)
		}
	}
	if cfg.Select.Active() && total == 0 {
		if cfg.Select.Rerun != "" {
			return out, fmt.Errorf("QUAL_RERUN=%s: the run has no failed row of the selected stages: nothing to run again", cfg.Select.Rerun)
		}
		return out, fmt.Errorf("the selection (QUAL_STAGE, QUAL_ROWS) selects no row")
	}
	return out, nil
}
