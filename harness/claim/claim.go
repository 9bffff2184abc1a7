// Package claim derives each claim a row makes (the family gate's figures and verdict, the join
// of AIPerf's requests to the server's records, the native/HTTP identity of its outputs, their
// meaning, the timing figures, the statistics over repeated runs, the gate's accuracy intervals,
// the no-caching verdict) as one function from the row's stored files and the values given to it
// to the record the evidence stores. The suite derives every claim once, from the files it just
// wrote, and stores the record; `qual verify` derives the same claims with the same functions
// from the published files and names each field where the stored record differs.
package claim

import (
	"fmt"
	"reflect"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// Claim is one derivation: what the row stores of it, whether the row makes it, and how it is
// derived from the artifacts.
type Claim struct {
	// Name is the claim as a problem names it ("join", "timing", ...).
	Name string
	// Claimed says whether a stored row makes the claim (verify checks only those: a row whose
	// step failed before the claim stores none).
	Claimed func(evidence.Result) bool
	derive  func(*Artifacts) (any, error)
	stored  func(*evidence.Result) any
	store   func(*evidence.Result, any)
}

// of builds a Claim over the evidence field a record of type T is stored in.
func of[T any](name string, field func(*evidence.Result) *T, claimed func(evidence.Result) bool, derive func(*Artifacts) (T, error)) Claim {
	return Claim{
		Name:    name,
		Claimed: claimed,
		derive:  func(a *Artifacts) (any, error) { return derive(a) },
		stored:  func(r *evidence.Result) any { return *field(r) },
		store:   func(r *evidence.Result, v any) { *field(r) = v.(T) },
	}
}

// All are the claims, each derived independently of the others from the same artifacts.
func All() []Claim {
	return []Claim{Gate(), Admission(), Join(), Inputs(), Outputs(), Meaning(), Timing(), Repeated(), Accuracy(), NoCache()}
}

// Derive derives the claim's record from the artifacts.
func (c Claim) Derive(a *Artifacts) (any, error) { return c.derive(a) }

// Stored is the claim's record as the row stores it.
func (c Claim) Stored(r evidence.Result) any { return c.stored(&r) }

// Apply derives the claim from the artifacts and stores the record in r (the suite's path); the
// record is stored also when the derivation failed part way, as far as it got.
func (c Claim) Apply(a *Artifacts, r *evidence.Result) error {
	v, err := c.derive(a)
	if v != nil && !reflect.ValueOf(v).IsZero() {
		c.store(r, v)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", c.Name, err)
	}
	return nil
}

// Check derives the claim from the artifacts of a row that makes it and compares the record
// with the stored one (verify's path): nothing when they agree, else the claim named with why it
// is not derivable and, for what was derived, each differing field.
func (c Claim) Check(a *Artifacts) []string {
	if !c.Claimed(a.Row) {
		return nil
	}
	got, err := c.derive(a)
	var out []string
	for _, e := range each(err) {
		out = append(out, fmt.Sprintf("%s not recomputable: %v", c.Name, e))
	}
	if err != nil && (got == nil || reflect.ValueOf(got).IsZero()) {
		return out
	}
	return append(out, differenceLines(c.Name, Differences(got, c.stored(&a.Row)))...)
}

// differenceLines are a claim's differing fields as verify reports them: the first
// maxDifferences one by one, the rest counted.
func differenceLines(claim string, diffs []string) []string {
	var out []string
	for i, d := range diffs {
		if i == maxDifferences {
			return append(out, fmt.Sprintf("%s recomputed differently in %s", claim, evidence.CountOf(len(diffs)-i, "more field", "more fields")))
		}
		out = append(out, fmt.Sprintf("%s recomputed differently: %s", claim, d))
	}
	return out
}

// maxDifferences is how many differing fields of one claim are named one by one, the rest
// counted: a record whose every figure moved names its first fields, not pages of them.
const maxDifferences = 8

// each is err's joined errors one by one (each its own problem, so that none is cut off behind
// another's long message), or err alone; none for nil.
func each(err error) []error {
	if err == nil {
		return nil
	}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		return joined.Unwrap()
	}
	return []error{err}
}
