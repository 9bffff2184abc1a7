package report

import (
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/report/doc"
)

// Light is a row's traffic light, the first column of both reports' row tables (defined in their legend).
type Light string

// The lights.
const (
	Green  Light = "green"  // the row reached what its kind can reach
	Yellow Light = "yellow" // a counted row stopped short without a failing claim
	Red    Light = "red"    // a claim failed
	White  Light = "white"  // nothing was claimed: planned, excluded or blocked
)

// RowLight is the traffic light of one result row.
func RowLight(r evidence.Result) Light {
	switch {
	case r.Status == "failed":
		return Red
	case r.Status == "aiperf-qualified":
		return Green
	case r.Status == "family-validated" && !r.Counted:
		return Green
	case r.Status == "family-validated" || r.Status == "implemented":
		return Yellow
	default:
		return White
	}
}

// HTML renders report.html from the run's document (Build): one self-contained page (no
// script, no external resource), every picture an inline SVG drawn from pics.
func HTML(e evidence.Evidence, pics Pictures) []byte { return doc.HTML(Build(e, pics)) }
