package verify

import (
	"slices"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
)

// servedInfoCheck: what a TRTMC-kind server reported at /v1/serving/info (evidence Served) is the
// row's, its timing scope is the one the timing claim assumes, and the one configuration both
// sides ran with is re-derived from the stored base request and found in the native commands run.
func servedInfoCheck(r *Run) []Problem {
	return r.eachRow(func(row *Row, report reporter) {
		checkServedInfo(row.Where, kindOf(row.Stage.TargetKind), row.Result, report)
	})
}

func checkServedInfo(where string, kind target.Traits, r evidence.Result, report reporter) {
	s := r.Served
	if s == nil {
		if kind.RecordsServedInfo() && r.Status == evidence.StatusQualified {
			report(where, "qualified, but records no served info: nothing says which bundle the server served")
		}
		return
	}
	if s.Profile != r.Profile {
		report(where, "served profile %q is not the row's %q", s.Profile, r.Profile)
	}
	if task, _ := r.Bundle.Header["task"].(string); task != "" && s.Task != task {
		report(where, "served task %q is not the bundle header's %q", s.Task, task)
	}
	if s.TimingScope != "public_task_call_wall" {
		report(where, "served timing_scope %q: model_call_ms is read as public_task_call_wall", s.TimingScope)
	}
	if s.Bundle == "" || len(s.BaseRequest) == 0 {
		report(where, "served info records no bundle path or no base request")
	}
	if s.HTTP["language"] != s.Native["language"] {
		report(where, "HTTP language %q differs from the native run's %q", s.HTTP["language"], s.Native["language"])
	}
	if _, takes := contract.BaseLanguage(s.BaseRequest); takes && s.Native["language"] == "" {
		report(where, "the served operation takes a language, but none was sent explicitly")
	}
	for k, v := range contract.NativeFromBase(s.BaseRequest) {
		if s.Native[k] != v {
			report(where, "native %s %q is not the served base request's %q", k, s.Native[k], v)
		}
	}
	if lang := s.Native["language"]; lang != "" {
		for _, cmd := range r.Commands {
			if len(cmd) > 0 && cmd[0] == "(in server container)" && !followedBy(cmd, "--source-language", lang) {
				report(where, "native run %v does not pass --source-language %s", cmd, lang)
			}
		}
	}
}

// followedBy says whether flag appears in cmd with value right after it.
func followedBy(cmd []string, flag, value string) bool {
	i := slices.Index(cmd, flag)
	return i >= 0 && i+1 < len(cmd) && cmd[i+1] == value
}
