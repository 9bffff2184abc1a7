package qualify

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// rowFilter says whether Ginkgo's filters select a row's specs, by the rules Ginkgo applies
// (its internal ApplyFocusToSpecs, which it does not export): the label filter on the row's
// labels, and the focus and skip expressions on the text every spec of the row begins with (the
// suite's description, the stage's container, the row's Describe). A focus that matches only
// some claims' own text still runs the row, which then leaves a result of its own. Filters by
// file or by version are not read: under one of them no row counts as selected, so that a row
// such a filter left out is never recorded as failed.
func rowFilter(cfg types.SuiteConfig, of func(evidence.InventoryRow) (text string, labels []string)) (func(evidence.InventoryRow) bool, error) {
	if len(cfg.FocusFiles) > 0 || len(cfg.SkipFiles) > 0 || cfg.SemVerFilter != "" {
		return func(evidence.InventoryRow) bool { return false }, nil
	}
	byLabel := func([]string) bool { return true }
	if cfg.LabelFilter != "" {
		f, err := types.ParseLabelFilter(cfg.LabelFilter)
		if err != nil {
			return nil, fmt.Errorf("--label-filter %q: %w", cfg.LabelFilter, err)
		}
		byLabel = f
	}
	focus, err := joined("--focus", cfg.FocusStrings)
	if err != nil {
		return nil, err
	}
	skip, err := joined("--skip", cfg.SkipStrings)
	if err != nil {
		return nil, err
	}
	return func(row evidence.InventoryRow) bool {
		text, labels := of(row)
		return byLabel(labels) && (focus == nil || focus.MatchString(text)) && (skip == nil || !skip.MatchString(text))
	}, nil
}

// joined is Ginkgo's reading of several focus or skip expressions: one alternation; nil for none.
func joined(flag string, exprs []string) (*regexp.Regexp, error) {
	if len(exprs) == 0 {
		return nil, nil
	}
	re, err := regexp.Compile(strings.Join(exprs, "|"))
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", flag, exprs, err)
	}
	return re, nil
}
