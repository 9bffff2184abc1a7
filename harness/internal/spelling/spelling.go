// Package spelling walks the places in Go source where a registry's names must not be spelled
// outside it (stages, families, target kinds): switch cases and comparisons, and, for the
// strictest tests, constants, map keys and list items. The registry tests decide what counts as
// a name; this walks where to look, once for all of them.
package spelling

import (
	"go/ast"
	"go/token"
)

// Forms says which places Walk visits.
type Forms int

const (
	// Comparisons are switch cases and == / != operands.
	Comparisons Forms = iota
	// All adds constant and variable values, map keys and list items.
	All
)

// Walk calls report with every expression of f that stands in a place of forms, and how it
// stands there ("switch case", "comparison with", "constant or variable of", "map key",
// "list item").
func Walk(f *ast.File, forms Forms, report func(e ast.Expr, how string)) {
	ast.Inspect(f, func(node ast.Node) bool {
		switch node := node.(type) {
		case *ast.CaseClause:
			for _, e := range node.List {
				report(e, "switch case")
			}
		case *ast.BinaryExpr:
			if node.Op == token.EQL || node.Op == token.NEQ {
				report(node.X, "comparison with")
				report(node.Y, "comparison with")
			}
		case *ast.ValueSpec: // const StageASR = "asr": a second spelling others would then use
			if forms == All {
				for _, v := range node.Values {
					report(v, "constant or variable of")
				}
			}
		case *ast.CompositeLit:
			if forms != All {
				return true
			}
			for _, e := range node.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok {
					report(kv.Key, "map key")
					continue
				}
				report(e, "list item")
			}
		}
		return true
	})
}
