package evidence

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"
)

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
		"probe failed":          {[]Result{row("a", KindFull, true, StatusQualified)}, StageQualified, StatusFailed},
	} {
		s := Stage{Status: tc.before, Results: tc.results}
		if name == "probe failed" {
			s.Probe = &Probe{Route: "/v1/chat/completions", Status: 200, Expected: "400 unsupported_capability"}
		}
		Settle(&s)
		if s.Status != tc.want || (s.Status != StatusBlocked && s.Status != StatusPlanned && s.Reason == "") {
			t.Errorf("%s: %s (%q), want %s", name, s.Status, s.Reason, tc.want)
		}
	}
}

// A merged run settles like a single run: the shard with a failing reduced row fails the merge.
func TestMergeSettlesLikeASingleRun(t *testing.T) {
	m := NewMerge()
	m.Add(Stage{Stage: "asr", Status: StageQualified, Results: []Result{row("a", KindFull, true, StatusQualified)}})
	m.Add(Stage{Stage: "asr", Status: StatusFailed, Results: []Result{row("l0", KindReduced, false, StatusFailed)}})
	got := m.Stages()["asr"]
	if got.Status != StatusFailed || len(got.Results) != 2 || got.Results[0].Profile != "a" {
		t.Errorf("merged %s (%s) %+v", got.Status, got.Reason, got.Results)
	}
	single := Stage{Results: []Result{row("a", KindFull, true, StatusQualified), row("l0", KindReduced, false, StatusFailed)}}
	Settle(&single)
	if single.Status != got.Status || single.Reason != got.Reason {
		t.Errorf("single %s %q, merged %s %q", single.Status, single.Reason, got.Status, got.Reason)
	}
	b := NewMerge()
	b.Add(Stage{Stage: "audioqa", Status: StatusBlocked, Reason: "no capable profile"})
	b.Add(Stage{Stage: "audioqa", Status: StatusFailed})
	if s := b.Stages()["audioqa"]; s.Status != StatusBlocked || s.Reason != "no capable profile" {
		t.Errorf("blocked shard lost: %+v", s)
	}
}

// A narrowed run's stage reason counts against the target's counted checkpoints, so a smoke
// that ran one of three never reads "the 1 counted checkpoints".
func TestSettleReasonCountsAgainstTheTarget(t *testing.T) {
	for _, tc := range []struct {
		sel  *Selection
		want string
	}{
		{&Selection{Label: "smoke", Counted: 3}, "the 1 counted checkpoint this run (smoke) selected, of the stage's 3, aiperf-qualified"},
		{&Selection{Counted: 1}, "the 1 counted checkpoint aiperf-qualified"},
		{nil, "the 1 counted checkpoint aiperf-qualified"},
	} {
		s := Stage{Selection: tc.sel, Results: []Result{row("a", KindFull, true, StatusQualified)}}
		Settle(&s)
		if s.Reason != tc.want {
			t.Errorf("selection %+v: %q, want %q", tc.sel, s.Reason, tc.want)
		}
	}
}

// TestMergeIsTheSameInAnyShardOrder: over 300 random shard sets merged in every order, the
// merged stage ran from the earliest recorded start to the latest finish, keeps the refusal
// probe and the audit whichever shard holds them, and settles alike (it once kept the first
// added shard's times, probe and audit).
func TestMergeIsTheSameInAnyShardOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 4))
	base := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	for draw := range 300 {
		n := 2 + rng.IntN(3)
		shards := make([]Stage, n)
		var start, end time.Time
		for i := range shards {
			s := Stage{Stage: "audioqa", Status: StageQualified, Results: []Result{row(fmt.Sprintf("p%d", i), KindFull, true, StatusQualified)}}
			if rng.IntN(5) > 0 {
				s.Started = base.Add(time.Duration(rng.IntN(600)) * time.Second)
				s.Finished = s.Started.Add(time.Duration(1+rng.IntN(600)) * time.Second)
				if start.IsZero() || s.Started.Before(start) {
					start = s.Started
				}
				if s.Finished.After(end) {
					end = s.Finished
				}
			}
			shards[i] = s
		}
		holder := rng.IntN(n)
		shards[holder].Probe = &Probe{Route: "/v1/chat/completions", Passed: true}
		shards[holder].Audit = []AuditRow{{Profile: "p0"}}
		var first Stage
		for k := range 6 {
			order := rng.Perm(n)
			if k == 0 {
				slices.Sort(order)
			}
			m := NewMerge()
			for _, i := range order {
				m.Add(shards[i])
			}
			got := m.Stages()["audioqa"]
			if !got.Started.Equal(start) || !got.Finished.Equal(end) {
				t.Fatalf("draw %d order %v: ran %s–%s, want %s–%s", draw, order, got.Started, got.Finished, start, end)
			}
			if got.Probe == nil || len(got.Audit) != 1 {
				t.Fatalf("draw %d order %v: probe %v, audit %v (held by shard %d)", draw, order, got.Probe, got.Audit, holder)
			}
			got.Inventory = nil
			if k == 0 {
				first = got
			} else if !reflect.DeepEqual(got, first) {
				t.Fatalf("draw %d: merged in order %v differs from in shard order:\n%+v\n%+v", draw, order, got, first)
			}
		}
	}
}

// A shard that selected none of a stage's rows stamped times where nothing ran: the merged
// stage's window is the shards' that ran it.
func TestMergeTimesAreOfShardsThatRanTheStage(t *testing.T) {
	at := func(h int) time.Time { return time.Date(2026, 12, 4, h, 0, 0, 0, time.UTC) }
	for _, order := range [][]int{{0, 1}, {1, 0}} {
		shards := []Stage{
			{Stage: "asr", Status: StatusNotSelected, Started: at(1), Finished: at(9)},
			{Stage: "asr", Status: StageQualified, Started: at(3), Finished: at(4), Results: []Result{row("a", KindFull, true, StatusQualified)}},
		}
		m := NewMerge()
		for _, i := range order {
			m.Add(shards[i])
		}
		if got := m.Stages()["asr"]; !got.Started.Equal(at(3)) || !got.Finished.Equal(at(4)) {
			t.Errorf("order %v: ran %s–%s, want 03:00–04:00", order, got.Started, got.Finished)
		}
	}
}
