package evidence

import "testing"

func row(profile string, kind Kind, counted bool, status Status) Result {
	return Result{Profile: profile, Kind: kind, Counted: counted, Status: status}
}

// The one rule, used by a single run, a shard and a merge: a failing uncounted row fails the
// stage (a merged run used to ignore it while a single run failed).
func TestSettle(t *testing.T) {
	for name, tc := range map[string]struct {
		results []Result
		before  Status
		want    Status
	}{
		"all counted qualified": {[]Result{row("a", KindFull, true, StatusQualified), row("l0", KindReduced, false, StatusFamilyValidated)}, "", StageQualified},
		"uncounted row failed":  {[]Result{row("a", KindFull, true, StatusQualified), row("l0", KindReduced, false, StatusFailed)}, "", StatusFailed},
		"counted row short":     {[]Result{row("a", KindFull, true, StatusFamilyValidated)}, "", StatusFailed},
		"nothing counted":       {[]Result{row("l0", KindReduced, false, StatusFamilyValidated)}, "", StatusFailed},
		"no results":            {nil, "", StatusFailed},
		"all planned":           {[]Result{row("a", KindFull, true, StatusPlanned), row("b", KindFull, true, StatusPlanned)}, "", StatusPlanned},
		"some planned":          {[]Result{row("a", KindFull, true, StatusPlanned), row("b", KindFull, true, StatusQualified)}, "", StatusFailed},
		"blocked stays blocked": {nil, StatusBlocked, StatusBlocked},
		"stale status replaced": {[]Result{row("a", KindFull, true, StatusFailed)}, StageQualified, StatusFailed},
	} {
		s := Stage{Status: tc.before, Results: tc.results}
		Settle(&s)
		if s.Status != tc.want || (s.Status != StatusBlocked && s.Status != StatusPlanned && s.Reason == "") {
			t.Errorf("%s: %s (%q), want %s", name, s.Status, s.Reason, tc.want)
		}
	}
}
