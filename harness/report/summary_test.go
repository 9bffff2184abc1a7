package report

import (
	"encoding/json"
	"fmt"
	"github.com/trtmc-qual/trtmc-qual/harness/claim"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/timing"
)

// summaryRun is a focused run: asr with a measured counted row (several runs), a failed row and
// a row it did not select; t2i not selected at all.
func summaryRun(t *testing.T) evidence.Evidence {
	t.Helper()
	var samples []timing.Sample
	for run := range 3 {
		for i := range 8 {
			start := int64(run*100+i) * 1e9
			samples = append(samples, timing.Sample{ClientMS: 900 + float64(i*37%11), TaskMS: 850 + float64(i*13%7), StartNS: start, EndNS: start + 9e8, AudioSeconds: 2.5, Run: run})
		}
	}
	sum, err := timing.Summarize(samples)
	if err != nil {
		t.Fatal(err)
	}
	rep := &evidence.Repeated{}
	for _, f := range sum.Figures {
		if timing.IsRunMean(f.Name) {
			rep.Figures = append(rep.Figures, evidence.FigureInterval{Name: f.Name, Unit: f.Unit, Interval: evidence.Interval{N: 3, Mean: f.Value,
				CI: &evidence.Bounds{Lower: f.Value * 0.9, Upper: f.Value * 1.1}, HalfWidth: f.Value * 0.1, Inconclusive: true}})
		}
	}
	rows := []evidence.InventoryRow{{Profile: "a", Kind: evidence.KindFull, Counted: true}, {Profile: "b", Kind: evidence.KindFull, Counted: true},
		{Profile: "c", Kind: evidence.KindReduced}}
	dir := t.TempDir()
	asr := evidence.Stage{SchemaVersion: evidence.SchemaVersion, Stage: "asr", Number: 3, Inventory: rows, Selection: evidence.SelectionOf(rows, "focused"),
		Target: "suites/targets/reference.yaml", TargetKind: "reference", Versions: map[string]string{"trtmc-qual": "abc1234", evidence.BuildTagsKey: "none"},
		Results: []evidence.Result{
			{Profile: "a", Checkpoint: "ck/a", Kind: evidence.KindFull, Counted: true, Status: evidence.StatusQualified, AIPerf: &evidence.AIPerfRun{Runs: 3}, Timing: claim.TimingRecord(sum), Repeated: rep,
				Accuracy: []evidence.Accuracy{{Figure: "gold WER", Value: 0.1, Bound: 0.3, Side: "≤", Lower: 0.08, Upper: 0.125, ClusterBy: "speaker"}}},
			{Profile: "c", Checkpoint: "ck/c", Kind: evidence.KindReduced, Status: evidence.StatusFailed, Failures: []string{"gate: gold_wer 0.5\n  over 0.3"}}}}
	t2i := evidence.Stage{SchemaVersion: evidence.SchemaVersion, Stage: "t2i", Number: 6, Inventory: rows, Selection: evidence.SelectionOf(rows, "focused")}
	for _, s := range []evidence.Stage{asr, t2i} {
		if err := evidence.NewStageRun(s).Write(dir, s.Versions, evidence.Hardware{}); err != nil {
			t.Fatal(err)
		}
	}
	e, err := evidence.Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// summary.json holds the evidence's own values: the verdict and scope as the reports state them,
// every stage's status and counts, every row's status and first failure, and each headline figure
// of every row with the evidence's value and intervals — nothing recomputed, nothing left out.
func TestSummaryIsTheEvidencesValues(t *testing.T) {
	e := summaryRun(t)
	s := SummaryOf(e)
	sc := evidence.ScopeOf(e)
	if s.Verdict != evidence.Verdict(e) || !strings.HasPrefix(s.Verdict, "FOCUSED — not a qualification: 2 of 6 rows") || s.Qualification {
		t.Errorf("verdict %q (qualification %v), evidence %q", s.Verdict, s.Qualification, evidence.Verdict(e))
	}
	if want := (SummaryScope{Label: "focused", Partial: true, SelectedRows: sc.Selected, TargetRows: sc.Total, TargetCounted: sc.Counted,
		Words: "FOCUSED — not a qualification: 2 of 6 rows"}); !reflect.DeepEqual(s.Scope, want) {
		t.Errorf("scope %+v, want %+v", s.Scope, want)
	}
	if s.RunID != e.RunID || s.Commit != "abc1234" || s.BuildTags != "none" || s.TestBuild || s.Schema != SummarySchema || s.SchemaVersion != SummarySchemaVersion {
		t.Errorf("run identity %+v", s)
	}
	if len(s.Stages) != len(e.Stages) {
		t.Fatalf("%d stages, evidence %d", len(s.Stages), len(e.Stages))
	}
	for i, st := range e.Stages {
		got := s.Stages[i]
		q, counted, failed := evidence.StageCounts(st)
		if got.Stage != st.Stage || got.Status != string(st.Status) || got.Reason != st.Reason || got.CountedQualified != q || got.Counted != counted || got.Failed != failed {
			t.Errorf("stage %s: %+v", st.Stage, got)
		}
		if len(got.Rows) != len(st.Results) {
			t.Fatalf("stage %s: %d rows, evidence %d", st.Stage, len(got.Rows), len(st.Results))
		}
		for j, r := range st.Results {
			checkRow(t, got.Rows[j], r)
		}
	}
	if asr, t2i := s.Stages[0], s.Stages[1]; !slices.Equal(asr.NotSelected, []string{"b"}) || t2i.Status != string(evidence.StatusNotSelected) ||
		!slices.Equal(t2i.NotSelected, []string{"a", "b", "c"}) || t2i.Scope.TargetRows != 3 || t2i.Scope.SelectedRows != 0 {
		t.Errorf("not selected: asr %v, t2i %+v", asr.NotSelected, t2i)
	}
	if got := s.Stages[0].Rows[1].FirstFailure; got != "gate: gold_wer 0.5 over 0.3" {
		t.Errorf("first failure %q: not the evidence's first failure on one line", got)
	}
}

// checkRow: each headline figure the row's timing holds is in the summary with the same value,
// unit and order interval, and a run mean carries its interval over runs; no other figure is.
func checkRow(t *testing.T, got SummaryRow, r evidence.Result) {
	t.Helper()
	if got.Profile != r.Profile || got.Status != string(r.Status) || got.Kind != string(r.Kind) || got.Counted != r.Counted {
		t.Errorf("row %s: %+v", r.Profile, got)
	}
	var want []string
	if r.Timing != nil {
		for _, f := range r.Timing.Figures {
			if slices.Contains(headline(), f.Name) {
				want = append(want, f.Name)
			}
		}
	}
	var names []string
	for _, f := range got.Figures {
		names = append(names, f.Name)
		ev, ok := figureOf(r.Timing, f.Name)
		if !ok || ev.Value != f.Value || ev.Unit != f.Unit || !reflect.DeepEqual(ev.Interval, f.OrderStat) {
			t.Errorf("row %s figure %s: %+v, evidence %+v", r.Profile, f.Name, f, ev)
		}
		if timing.IsRunMean(f.Name) != (f.OverRuns != nil) {
			t.Errorf("row %s figure %s: interval over runs %+v", r.Profile, f.Name, f.OverRuns)
		}
		if f.OverRuns != nil && f.OverRuns.CI.Lower != f.Value*0.9 {
			t.Errorf("row %s figure %s: interval %+v is not the evidence's", r.Profile, f.Name, f.OverRuns.CI)
		}
	}
	slices.Sort(want)
	slices.Sort(names)
	if !slices.Equal(names, want) {
		t.Errorf("row %s: figures %v, want the headline figures the evidence holds %v", r.Profile, names, want)
	}
	if len(got.Accuracy) != len(r.Accuracy) {
		t.Errorf("row %s: %d accuracy figures, evidence %d", r.Profile, len(got.Accuracy), len(r.Accuracy))
	}
	for i, a := range r.Accuracy {
		if i < len(got.Accuracy) && got.Accuracy[i] != (SummaryAccuracy{Figure: a.Figure, Value: a.Value, P05: a.Lower, P95: a.Upper, Bound: a.Bound, Side: a.Side, ClusterBy: a.ClusterBy}) {
			t.Errorf("row %s accuracy %+v, evidence %+v", r.Profile, got.Accuracy[i], a)
		}
	}
	if r.Timing != nil && len(want) < 9 {
		t.Errorf("row %s: only %v of the headline figures: the fixture proves little", r.Profile, want)
	}
}

func figureOf(s *evidence.Timing, name string) (evidence.Figure, bool) {
	if s == nil {
		return evidence.Figure{}, false
	}
	for _, f := range s.Figures {
		if f.Name == name {
			return f, true
		}
	}
	return evidence.Figure{}, false
}

// The schema is documented: every JSON field of summary.json, at every level, is named in
// harness/evidence/README.md's summary.json section with the schema's version, and the file
// written is what ReadSummary reads back; another version is refused by name.
func TestSummarySchemaIsDocumentedAndVersioned(t *testing.T) {
	e := summaryRun(t)
	dir := t.TempDir()
	if err := WriteSummary(dir, e); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	back, err := ReadSummary(data)
	if err != nil || !reflect.DeepEqual(back, SummaryOf(e)) {
		t.Errorf("read back: %v\n%+v", err, back)
	}
	_, file, _, _ := runtime.Caller(0)
	readme, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "evidence", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "## summary.json")
	if stated := fmt.Sprintf("schema_version` %d", SummarySchemaVersion); !ok || !strings.Contains(section, stated) {
		t.Fatalf("harness/evidence/README.md has no summary.json section stating %s", stated)
	}
	for _, name := range jsonFields(reflect.TypeOf(Summary{})) {
		if !regexp.MustCompile("`" + regexp.QuoteMeta(name) + "`").MatchString(section) {
			t.Errorf("field %s of summary.json is not documented", name)
		}
	}
	var other map[string]any
	json.Unmarshal(data, &other)
	other["schema_version"] = SummarySchemaVersion + 1
	bumped, _ := json.Marshal(other)
	if _, err := ReadSummary(bumped); err == nil || !strings.Contains(err.Error(), "this qual reads") {
		t.Errorf("another schema version read without a word: %v", err)
	}
}

// jsonFields are the JSON names of t's fields and of every struct it holds (the types summary.json
// is made of), without timing's and stats' own types, which their packages document.
func jsonFields(t reflect.Type) []string {
	var out []string
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] || t.PkgPath() != reflect.TypeOf(Summary{}).PkgPath() {
			return
		}
		seen[t] = true
		for i := range t.NumField() {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			out = append(out, name)
			walk(t.Field(i).Type)
		}
	}
	walk(t)
	return out
}

// summary.json carries the revision the run ran from as the evidence records it (git describe
// --always --dirty): the commit and the dirty flag, for every form describe prints, and a null
// flag when the evidence does not know the checkout.
func TestSummaryCarriesTheRunsRevision(t *testing.T) {
	for _, tc := range []struct {
		describe, commit string
		dirty            any // JSON: true, false or nil
	}{
		{"714534d-dirty", "714534d", true},
		{"714534d", "714534d", false},
		{"v1.2-3-g714534d-dirty", "v1.2-3-g714534d", true},
		{"v1.2", "v1.2", false},
		{"unknown", "unknown", nil},
		{"", "unknown", nil},
	} {
		e := summaryRun(t)
		e.Versions = map[string]string{"trtmc-qual": tc.describe}
		data, err := SummaryJSON(e)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Revision *struct {
				Commit string `json:"commit"`
				Dirty  any    `json:"dirty"`
			} `json:"revision"`
		}
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatal(err)
		}
		if got.Revision == nil || got.Revision.Commit != tc.commit || got.Revision.Dirty != tc.dirty {
			t.Errorf("versions trtmc-qual %q: revision %+v, want commit %q dirty %v", tc.describe, got.Revision, tc.commit, tc.dirty)
		}
	}
}
