package verify

// inlineDatasetCheck: a row whose input is its TRTMC testcase's own prompt or clip is held to
// that testcase as strictly as to a pinned dataset file (pinned.Pins.CheckInlineDataset).
func inlineDatasetCheck(r *Run) []Problem {
	return r.eachRow(func(row *Row, report reporter) { r.Pins.CheckInlineDataset(row.Where, row.Stage, row.Result, report) })
}
