package report

import (
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/report/doc"
)

// Markdown renders qualification.md from the run's document (Build). qual verify re-renders it
// and compares, so it must stay deterministic.
func Markdown(e evidence.Evidence, pics Pictures) string { return doc.Markdown(Build(e, pics)) }
