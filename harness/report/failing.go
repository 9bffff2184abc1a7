package report

import (
	"path"
	"sort"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// FailingRow is a failed row as the first screen of a report shows it: where it is, its first
// failure on one line, and what to do about that kind of failure.
type FailingRow struct {
	Stage, Profile string
	First          string // the first failure, one line
	Hint           string // what to do, by the step that failed
	Folder         string // the row's folder, relative to the run directory
}

// failureHints is what to do per step that can fail (checkpoint.fail's step names), for the
// first screen of a report. A step without an entry gets the general hint.
func failureHints() map[string]string {
	return map[string]string{
		"build":             "the build command's output is in the failure; run the row's reproduce command to see it whole",
		"capability":        "the built bundle does not implement the stage's Task: check the manifest's task against the family",
		"gate":              "the family's own test or a pinned threshold failed: read gate.stdout.txt and gate.stderr.txt in the row's folder (a TRTMC gate: its gate-junit.xml); a changed threshold file needs its pin in golden/thresholds.sha256 updated on purpose",
		"serve":             "the server did not start or serve the bundle: read server.log in the row's folder",
		"aiperf":            "AIPerf did not complete: read its stdout/stderr under aiperf/ in the row's folder",
		"join":              "requests and server records do not pair by X-Request-ID: a server that crashed or restarted loses records; read server.log",
		"identity":          "the HTTP output differs from the native run on the same input: both must run the same bundle and settings; the row lists the differing inputs",
		"meaning":           "outputs are empty or beyond the family's gold bound: compare them with the gold text in the row's evidence",
		"timing":            "the timing figures could not be derived: check AIPerf's per-request exports in the row's folder",
		"bundle unchanged":  "the served bundle changed after the gate: something wrote to it while serving",
		evidence.NotRunStep: "the run selected this row but stopped before it left a result (interrupted, timed out, or its checkpoint could not be prepared): its JUnit cases say which; its reproduce command runs it alone",
	}
}

const generalHint = "read the row's failures and its folder; its reproduce command runs it alone"

// FailingRows lists the failed rows of every stage, in stage order.
func FailingRows(e evidence.Evidence) []FailingRow {
	hints := failureHints()
	var out []FailingRow
	for _, s := range e.Stages {
		for _, r := range s.Results {
			if r.Status != evidence.StatusFailed {
				continue
			}
			f := FailingRow{Stage: s.Stage, Profile: r.Profile, Hint: generalHint, Folder: path.Join(s.Stage, r.Profile) + "/"}
			if len(r.Failures) > 0 {
				f.First = oneLine(r.Failures[0], 200)
				step, _, _ := strings.Cut(r.Failures[0], ": ")
				if h, ok := hints[step]; ok {
					f.Hint = h
				}
				if step == evidence.NotRunStep { // its checkpoint may have made no folder: no link that leads nowhere
					f.Folder = ""
				}
			}
			out = append(out, f)
		}
	}
	return out
}

// FailedFirst is a stage's rows with the failed ones first, otherwise in their order.
func FailedFirst(rows []evidence.Result) []evidence.Result {
	out := append([]evidence.Result(nil), rows...)
	sort.SliceStable(out, func(i, j int) bool {
		return out[i].Status == evidence.StatusFailed && out[j].Status != evidence.StatusFailed
	})
	return out
}

// oneLine is s on one line, cut at max runes.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}
