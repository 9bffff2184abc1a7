package evidence

// FailedRows are the rows of each stage whose result is failed, by stage: what a rerun of the
// run selects (make qualify RERUN=reports/<run>).
func FailedRows(e Evidence) map[string][]string {
	out := map[string][]string{}
	for _, s := range e.Stages {
		for _, r := range s.Results {
			if r.Status == StatusFailed {
				out[s.Stage] = append(out[s.Stage], r.Profile)
			}
		}
	}
	return out
}

// ran says whether a stage ran at all in this run (it was selected, or is blocked with its audit).
func ran(s Stage) bool { return s.Status != StatusNotSelected }
