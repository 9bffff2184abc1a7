// Package cephes holds the few special functions harness/stats needs, copied verbatim from
// gonum v0.16.0 (gonum.org/v1/gonum/mathext and its internal cephes and gonum packages; BSD
// licence, the copyright notices kept in each file): the regularized incomplete beta function
// and its inverse (Cephes incbet/incbi), the normal quantile (Wichura's AS241, via the Probab
// authors) and the beta function.
//
// They are copied rather than imported because importing any of gonum's stat or mathext
// packages links 23 of its numeric packages into the offline verifier, which recomputes every
// interval with harness/stats and must stay small; and copied rather than rewritten because the
// verifier compares recomputed intervals with recorded ones exactly (to the last bit): a run
// recorded while harness/stats used gonum must still verify, so these must be gonum's own
// algorithm, operation for operation. harness/stats's distribution_test.go pins each use to
// gonum's result, bit for bit.
package cephes
