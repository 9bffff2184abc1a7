package stats

import "github.com/trtmc-qual/trtmc-qual/harness/stats/schema"

// The result types live in stats/schema (gonum-free, for the evidence schema); these names keep
// the computations here reading as before.
type (
	Bounds         = schema.Bounds
	Interval       = schema.Interval
	Tail           = schema.Tail
	Run            = schema.Run
	FigureInterval = schema.FigureInterval
	TailFigure     = schema.TailFigure
	Repeated       = schema.Repeated
	Verdict        = schema.Verdict
	NonInferiority = schema.NonInferiority
)

// Verdicts, rules and the sample rule's bound, from stats/schema.
const (
	Pass           = schema.Pass
	Fail           = schema.Fail
	Inconclusive   = schema.Inconclusive
	TailConfidence = schema.TailConfidence
	TailRule       = schema.TailRule
)

// MinTailSamples is the smallest n for which x(n) is a 95% upper bound of the p-th percentile.
func MinTailSamples(p float64) int { return schema.MinTailSamples(p) }
