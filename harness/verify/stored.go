package verify

import (
	"errors"
	"fmt"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// inputPins are what the inputs and admission claims (harness/claim) derive a row's stored
// inputs against: the pinned inputs (a dataset file must be the pinned one and hash to what the
// evidence records; a TRTMC testcase's own clip or prompt), where the run stores them, and the
// limits of the row's manifest. What the pins themselves show wrong is the error.
func inputPins(runDir string, p pins, where string, s evidence.Stage, r evidence.Result) func() (workload.Admission, bool, error) {
	return func() (workload.Admission, bool, error) {
		var errs []error
		report := func(at, format string, args ...any) {
			if at == where {
				errs = append(errs, fmt.Errorf(format, args...))
			} else {
				errs = append(errs, fmt.Errorf("%s: %s", at, fmt.Sprintf(format, args...)))
			}
		}
		src, ok := p.StoredSource(where, s, r, report)
		if !ok {
			return workload.Admission{}, false, errors.Join(errs...)
		}
		limits, family := pinnedLimits(p, where, s, r, report)
		in := workload.Admission{StoredInputs: workload.StoredInputs{RunDir: runDir, Root: p.Root, Where: where, Source: src, Result: r},
			Dir: workload.StoredInputsDir(runDir, s.Stage, r), Family: family, Limits: limits}
		return in, true, errors.Join(errs...)
	}
}
