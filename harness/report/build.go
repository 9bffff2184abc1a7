package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/report/doc"
)

// Build is the report of a run as one document: the verdict on one screen, then per stage its
// rows, figures, intervals, gate figures, reproduce commands, audit and inventory; then the
// formulas once and a glossary. qualification.md and report.html are its two renderings, so
// each holds every section, table and figure of the other. Its pictures are drawn here from
// pics, the rows' data (LoadPictures), never read from a file.
func Build(e evidence.Evidence, pics Pictures) doc.Document {
	d := doc.Document{Title: "Qualification report — run " + e.RunID}
	d.Blocks = append(d.Blocks, verdictBlocks(e)...)
	d.Blocks = append(d.Blocks, runBlocks(e)...)
	run := evidence.ScopeOf(e)
	for _, s := range e.Stages {
		d.Blocks = append(d.Blocks, stageSection(s, run, pics))
	}
	if f, ok := formulasSection(e); ok {
		d.Blocks = append(d.Blocks, f)
	}
	d.Blocks = append(d.Blocks, glossarySection())
	return d
}

func verdictBlocks(e evidence.Evidence) []doc.Block {
	var out []doc.Block
	if banner := evidence.TestBuildBanner(e.Versions); banner != "" {
		out = append(out, doc.Paragraph{ID: "testbuild", Role: doc.RoleBanner, Text: doc.Text{}.Strong(banner + ".").
			Plain(" Its binaries were built with a test-only flag that changes what they do; nothing in this run qualifies a checkpoint.")})
	}
	out = append(out, doc.Paragraph{ID: "verdict", Role: doc.RoleVerdict, Text: doc.Text{}.Strong("Verdict: " + evidence.Verdict(e))})
	if line := ScopeLine(e); line != "" {
		out = append(out, doc.Paragraph{ID: "scope", Text: doc.Prose(line)})
	}
	t := doc.Table{ID: "stages", Header: []string{"stage", "status", "counted rows qualified (of the target's)", "rows run (of the target's)", "failures"}}
	run := evidence.ScopeOf(e)
	for _, s := range e.Stages {
		qualified, rows := StageCells(s)
		t.Rows = append(t.Rows, doc.Row{Cells: []doc.Text{doc.T(fmt.Sprintf("%d ", s.Number)).Code(s.Stage), doc.T(evidence.StageWord(s.Status, run)),
			doc.T(qualified), doc.T(rows), doc.T(failedCount(s))}})
	}
	out = append(out, t)
	if failing := FailingRows(e); len(failing) > 0 {
		l := doc.List{}
		for _, f := range failing {
			todo := doc.T("what to do: " + f.Hint)
			if f.Folder != "" {
				todo = todo.Plain(" (").Link("folder", f.Folder).Plain(")")
			}
			l.Items = append(l.Items, doc.Item{Text: doc.Text{}.CodeLink(f.Stage+"/"+f.Profile, "#"+rowID(f.Stage, f.Profile)).Plain(": " + f.First),
				Sub: []doc.Text{todo}})
		}
		out = append(out, doc.Paragraph{ID: "failing", Text: doc.Prose("**Failing rows** (the first failure of each; what to do; the row's folder):")}, l)
	}
	return out
}

func runBlocks(e evidence.Evidence) []doc.Block {
	hw := e.Hardware
	target := doc.T("Target: ").Code(e.Target).Plain(fmt.Sprintf(" (%s). Hardware: %s, %d cores, %.0f GB, GPU: %s.", e.TargetKind, hw.CPU, hw.Cores, hw.MemoryGB, hw.GPU))
	versions := doc.T("Versions:")
	for _, k := range sortedKeys(e.Versions) {
		versions = versions.Plain(fmt.Sprintf(" %s %s;", k, e.Versions[k]))
	}
	lights := doc.T("Lights: ").Light(string(Green)).Plain(": reached what its kind can reach (counted: aiperf-qualified; reduced or variant: family-validated) · ").
		Light(string(Yellow)).Plain(": a counted row stopped short without a failing claim · ").
		Light(string(Red)).Plain(": a claim failed · ").Light(string(White)).Plain(": nothing claimed (planned, not selected, excluded, blocked, a gap).")
	return []doc.Block{doc.Paragraph{Text: target}, doc.Paragraph{Text: versions}, doc.Paragraph{Text: lights}}
}

// notDrawn stands for a picture whose data does not derive from the row's files (verify names
// why: the claims it makes from the same files fail).
const notDrawn = "not drawn: the row's exports and records do not derive it"

// failedCount is a stage's failures cell.
func failedCount(s evidence.Stage) string {
	if s.Status == evidence.StatusBlocked || s.Status == evidence.StatusPlanned {
		return "— (" + string(s.Status) + ")"
	}
	if _, _, f := evidence.StageCounts(s); f > 0 {
		return evidence.CountRows(f)
	}
	return "none"
}

func rowID(stage, profile string) string { return "row-" + stage + "-" + profile }

// stageSection is one stage's section; run is the run's scope, which every status word of the
// stage carries (evidence.StageWord, RowWord).
func stageSection(s evidence.Stage, run evidence.Scope, pics Pictures) doc.Section {
	sec := doc.Section{ID: "stage-" + s.Stage, Title: doc.T(fmt.Sprintf("Stage %d (", s.Number)).Code(s.Stage).Plain("): " + evidence.StageWord(s.Status, run))}
	add := func(b ...doc.Block) { sec.Blocks = append(sec.Blocks, b...) }
	if s.Reason != "" {
		add(doc.Paragraph{Text: doc.T(s.Reason)})
	}
	if len(s.Results) > 0 {
		notes := statementNotes(s)
		for _, st := range notesInOrder(notes) {
			add(doc.Paragraph{Role: "note", Text: doc.Text{}.Strong(fmt.Sprintf("Note [%d]:", notes[st])).Plain(" " + st + ".")})
		}
		add(rowsTable(s, run, notes))
		add(skippedBlocks(s)...) // inputs not sent, by the family's clip limits (skipped.go)
		add(measuredBlocks(s, pics)...)
		add(noCacheBlocks(s)...)
		add(perRunBlocks(s, pics)...)
		add(intervalBlocks(s)...) // intervals over runs and accuracy intervals (intervals.go)
		add(gateFigureBlocks(s)...)
		add(reproduceBlock(s))
	}
	add(probeBlocks(s)...)
	add(auditBlocks(s)...)
	add(inventoryBlocks(s, run)...)
	return sec
}

// statementNotes numbers each distinct statement (e.g. "NOT a trained model", "produced by the
// contract double, not a TRTMC result"); every row it applies to carries its number.
func statementNotes(s evidence.Stage) map[string]int {
	notes := map[string]int{}
	for _, r := range s.Results {
		if r.Statement != "" && notes[r.Statement] == 0 {
			notes[r.Statement] = len(notes) + 1
		}
	}
	return notes
}

func notesInOrder(notes map[string]int) []string {
	out := make([]string, 0, len(notes))
	for st := range notes {
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return notes[out[i]] < notes[out[j]] })
	return out
}

func rowsTable(s evidence.Stage, run evidence.Scope, notes map[string]int) doc.Table {
	t := doc.Table{Class: "rows", Header: []string{"light", "profile", "checkpoint", "kind", "counted", "status", "gate", "join", "failures"}}
	for _, r := range FailedFirst(s.Results) {
		fails := strings.Join(r.Failures, "; ")
		if fails == "" {
			fails = "none"
		}
		profile := r.Profile
		if n := notes[r.Statement]; n > 0 {
			profile = fmt.Sprintf("%s [%d]", r.Profile, n)
		}
		t.Rows = append(t.Rows, doc.Row{ID: rowID(s.Stage, r.Profile), Class: "row", Cells: []doc.Text{doc.Text{}.Light(string(RowLight(r))),
			doc.T(profile), doc.T(checkpointCell(r.Checkpoint, r.Revision)), doc.T(string(r.Kind)), doc.T(yesNo(r.Counted)), doc.T(evidence.RowWord(r.Status, run)),
			doc.T(gateCell(r)), doc.T(joinCell(r)), doc.T(fails)}})
	}
	for _, g := range gapRows(s) {
		// The inventory's own words (profileCell, kind, status), so that the two tables name the row alike.
		t.Rows = append(t.Rows, doc.Row{Class: "gap", Cells: []doc.Text{doc.Text{}.Light(string(White)), doc.T(profileCell(g)), doc.T(checkpointCell(g.Checkpoint, g.Revision)),
			doc.T(string(g.Kind)), doc.T(yesNo(g.Counted)), doc.T(evidence.RowWord(g.Status, run)), doc.T("—"), doc.T("—"), doc.T(g.Reason)}})
	}
	return t
}

// checkpointCell is checkpoint@revision, or the checkpoint alone when its manifest names no
// revision (TRTMC's do not).
func checkpointCell(checkpoint, revision string) string {
	if revision == "" {
		return checkpoint
	}
	return checkpoint + "@" + revision
}

// profileCell is a row's profile, "—" for a gap, which has none (its evidence id is made up).
func profileCell(r evidence.InventoryRow) string {
	if r.Kind == evidence.KindGap {
		return "—"
	}
	return r.Profile
}

// gapRows are the group's checkpoints that have only reduced or variant profiles: no row of
// theirs can stand for the model, and the table says so instead of leaving them out.
func gapRows(s evidence.Stage) []evidence.InventoryRow {
	var out []evidence.InventoryRow
	for _, r := range s.Inventory {
		if r.Kind == evidence.KindGap {
			out = append(out, r)
		}
	}
	return out
}

func gateCell(r evidence.Result) string {
	if r.Gate == nil {
		return "—"
	}
	return passFail(r.Gate.Passed)
}

func joinCell(r evidence.Result) string {
	j := r.Join
	if j == nil {
		return "—"
	}
	total := j.Matched + len(j.UnmatchedClient)
	s := fmt.Sprintf("%d/%d matched", j.Matched, total)
	if n := len(j.UnmatchedClient); n > 0 {
		s += fmt.Sprintf("; %d AIPerf requests without a server record", n)
	}
	if n := len(j.UnmatchedServer); n > 0 {
		s += fmt.Sprintf("; %d server records without an AIPerf request", n)
	}
	if n := len(j.DuplicateClient) + len(j.DuplicateServer); n > 0 {
		s += fmt.Sprintf("; %d duplicate ids", n)
	}
	return s
}

// measured are the rows that have timing figures.
func measured(s evidence.Stage) []evidence.Result {
	var out []evidence.Result
	for _, r := range s.Results {
		if r.Timing != nil {
			out = append(out, r)
		}
	}
	return out
}

// measuredBlocks are the measured rows' performance table (PerfOf's cells), their latency
// figures, and their tail percentiles pooled over every run, each with n and its
// distribution-free interval.
func measuredBlocks(s evidence.Stage, pics Pictures) []doc.Block {
	rows := measured(s)
	if len(rows) == 0 {
		return nil
	}
	perf := doc.Table{Class: "figures", Header: []string{"profile", "client p50 ms (pooled)", "Task p50 ms (pooled)", "p50 of (client − Task) ms, per request", "throughput", "RTF or images/s", "plot"}}
	tails := doc.Table{Class: "tails", Header: []string{"profile", "client p95 ms", "client p99 ms", "Task p95 ms", "Task p99 ms"}}
	var plots doc.Figures
	for _, r := range rows {
		plot := doc.T(notDrawn)
		if p, ok := pics[PictureKey(s.Stage, r.Profile)]; ok {
			if f, err := latencyFigure(s.Stage, r, p); err == nil {
				plot = doc.Text{}.Link("latency", f.Src)
				plots.Items = append(plots.Items, f)
			}
		}
		p := PerfOf(r)
		perf.Rows = append(perf.Rows, doc.Row{Cells: []doc.Text{doc.T(r.Profile), doc.T(p.ClientP50), doc.T(p.TaskP50), doc.T(p.Overhead), doc.T(p.Throughput + OneRunMark(r)), doc.T(p.Rate), plot}})
		tails.Rows = append(tails.Rows, doc.Row{Cells: []doc.Text{doc.T(r.Profile), doc.T(TailCell(r, "client_latency", 95)), doc.T(TailCell(r, "client_latency", 99)),
			doc.T(TailCell(r, "task_call", 95)), doc.T(TailCell(r, "task_call", 99))}})
	}
	out := []doc.Block{doc.Paragraph{Text: doc.T("Figures (measured requests of every run; a rate is the mean over runs of each run's own rate, ± its 95% half-width over runs; formulas at the end):")}}
	out = append(out, explained(perf)...)
	if len(plots.Items) > 0 {
		out = append(out, plots)
	}
	return append(out, doc.Paragraph{Text: doc.Prose("Tails (pooled over every run: value [95% distribution-free interval, widened to hold the value] n; a side no sample can bound is *open*; with neither side bounded, *n too small* for an interval):")}, tails)
}

// gateFigureBlocks is one column per figure the stage's gates report.
func gateFigureBlocks(s evidence.Stage) []doc.Block {
	names := map[string]bool{}
	for _, r := range s.Results {
		if r.Gate != nil {
			for k := range r.Gate.Figures {
				names[k] = true
			}
		}
	}
	if len(names) == 0 {
		return nil
	}
	cols := sortedKeys(names)
	header := []string{"profile"}
	for _, k := range cols {
		header = append(header, gateFigureName(k))
	}
	t := doc.Table{Class: "gate", Header: header}
	for _, r := range s.Results {
		if r.Gate == nil {
			continue
		}
		cells := []doc.Text{doc.T(r.Profile)}
		for _, k := range cols {
			cell := "—"
			if v, ok := r.Gate.Figures[k]; ok {
				cell = fmt.Sprintf("%.4g", v)
			}
			cells = append(cells, doc.T(cell))
		}
		t.Rows = append(t.Rows, doc.Row{Cells: cells})
	}
	return []doc.Block{doc.Paragraph{Text: doc.T("Gate figures:")}, t}
}

func reproduceBlock(s evidence.Stage) doc.Details {
	l := doc.List{}
	for _, r := range s.Results {
		var t doc.Text
		switch {
		case r.Reproduce != "":
			t = doc.T(r.Profile + ": ").Code(r.Reproduce)
		case r.Status == evidence.StatusPlanned:
			t = doc.T(r.Profile + ": nothing to reproduce: the row was not run here (planned)")
		default:
			t = doc.T(r.Profile + ": no reproduce command recorded")
		}
		l.Items = append(l.Items, doc.Item{Text: t})
	}
	return doc.Details{Summary: doc.T("Reproduce each row"), Blocks: []doc.Block{l}}
}

func probeBlocks(s evidence.Stage) []doc.Block {
	p := s.Probe
	switch {
	case p == nil:
		return nil
	case p.Planned != "":
		return []doc.Block{doc.Paragraph{Text: doc.T("Probe: not run — " + p.Planned + ".")}}
	}
	out := []doc.Block{doc.Paragraph{Text: doc.T("Probe: an audio part sent to ").Code(p.Model).Plain(" on ").Code(p.Route).
		Plain(fmt.Sprintf(" answered HTTP %d ", p.Status)).Code(p.ErrorCode).Plain(fmt.Sprintf(" (%s); recorded by the server: %s.", p.Message, yesNo(p.Recorded)))}}
	if p.Expected != "" {
		out = append(out, doc.Paragraph{Text: doc.T(fmt.Sprintf("Documented refusal: %s; %s.", p.Expected, passFail(p.Passed)))})
	}
	return out
}

func auditBlocks(s evidence.Stage) []doc.Block {
	if len(s.Audit) == 0 {
		return nil
	}
	t := doc.Table{Class: "audit", Header: []string{"profile", "family", "task string", "capabilities", "audio_text_to_text"}}
	for _, a := range s.Audit {
		t.Rows = append(t.Rows, doc.Row{Cells: []doc.Text{doc.T(a.Profile), doc.T(a.Family), doc.T(a.TaskString), doc.T(joinNames(a.Capabilities)), doc.T(yesNo(a.Has))}})
	}
	return []doc.Block{doc.Paragraph{Text: doc.T("Capability audit (every profile of the target):")}, t}
}

func inventoryBlocks(s evidence.Stage, run evidence.Scope) []doc.Block {
	if len(s.Inventory) == 0 {
		return nil
	}
	t := doc.Table{Class: "inventory", Header: []string{"checkpoint", "revision", "profile", "native task", "controls", "kind", "counted", "status", "markings / reason"}}
	for _, r := range s.Inventory {
		var notes []string
		for _, n := range append(append(append([]string{}, r.Markings...), r.Notes...), r.Reason) {
			if n != "" {
				notes = append(notes, n)
			}
		}
		t.Rows = append(t.Rows, doc.Row{Cells: []doc.Text{doc.T(r.Checkpoint), doc.T(r.Revision), doc.T(profileCell(r)), doc.T(r.NativeTask),
			doc.T(strings.Join(r.Controls, ", ")), doc.T(string(r.Kind)), doc.T(yesNo(r.Counted)), doc.T(evidence.RowWord(r.Status, run)), doc.T(strings.Join(notes, "; "))}})
	}
	return []doc.Block{doc.Details{Summary: doc.T("Inventory"), Blocks: []doc.Block{t}}}
}

// formulasSection lists every timing figure's formula once for the whole report.
func formulasSection(e evidence.Evidence) (doc.Section, bool) {
	type key struct{ name, unit string }
	formulas := map[key]string{}
	for _, s := range e.Stages {
		for _, r := range s.Results {
			if r.Timing == nil {
				continue
			}
			for _, f := range r.Timing.Figures {
				formulas[key{f.Name, f.Unit}] = f.Formula
			}
		}
	}
	if len(formulas) == 0 {
		return doc.Section{}, false
	}
	keys := make([]key, 0, len(formulas))
	for k := range formulas {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i].name < keys[j].name || keys[i].name == keys[j].name && keys[i].unit < keys[j].unit
	})
	l := doc.List{}
	for _, k := range keys {
		l.Items = append(l.Items, doc.Item{Text: doc.C(k.name).Plain(fmt.Sprintf(" (%s): %s", k.unit, formulas[k]))})
	}
	return doc.Section{ID: "formulas", Title: doc.T("Formulas"), Blocks: []doc.Block{l}}, true
}

func glossarySection() doc.Section {
	l := doc.List{}
	for _, item := range glossary() {
		l.Items = append(l.Items, doc.Item{Text: doc.Prose(item)})
	}
	return doc.Section{ID: "statuses", Title: doc.T("Statuses"), Blocks: []doc.Block{l}}
}

// glossary defines the report's words, one item each.
func glossary() []string {
	return []string{
		"**Verdict**: QUALIFIED when every stage is qualified; PARTIAL when none failed but some are blocked or planned; NOT QUALIFIED when no stage is qualified and none failed; FAILED when any stage failed; TEST BUILD, whatever the stages say, when the binaries carry a test-only build tag (versions: build_tags, e.g. qual_slowdown), followed by the scope when the run selected part of the target (TEST BUILD — SMOKE — …).",
		"**Stage** — *qualified*: at least one counted full-model row is aiperf-qualified and no row failed; *failed*: a row failed, or no counted row was qualified; *blocked*: no profile of the target implements the stage's capability (the audit shows why; JUnit marks it skipped); *planned*: the target could not run here (e.g. no GPU stack), nothing is claimed.",
		"**Scope** — a run that does not select every row of the target (make smoke, a focus, one shard), or that measures at a load below the target's (fewer AIPerf runs, requests or warmup than the target file states: make test-run), is never a qualification: its verdict reads e.g. *SMOKE — not a qualification: 3 of 12 rows (selected rows: QUALIFIED)* or *REDUCED LOAD — not a qualification: 12 of 12 rows, at a load below the target's (asr: runs 2 of 5) (selected rows: QUALIFIED)*, its denominators are the target's, and each row it did not select is *not selected* in the inventory.",
		"**Row** — *aiperf-qualified*: gate passed on the exact bundle, served, AIPerf ran, every request joined, native == HTTP on every request, outputs meaningful, timing derived, bundle unchanged; *family-validated*: the family gate passed on the bundle (reduced and variant rows stop here); *planned*: not run, with the reason; *not selected*: a row of the target this run did not select; *failed*: a claim failed (see failures); *excluded*: not in the stage's group, with the reason.",
		"**Kind** — *full*: the checkpoint's normal profile; *reduced*: L0 / random-weight / smaller settings; *variant*: a precision, parallelism or decode-setting variant; *gap*: a checkpoint of the stage's group that has only reduced or variant profiles, so no row can stand for the model: it is listed (status *" + string(evidence.StatusUnsupported) + "*, never counted) rather than left out. **Counted**: only full rows count toward a stage's qualification.",
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func passFail(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

func joinNames[T ~string](names []T) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = string(n)
	}
	return strings.Join(parts, ", ")
}
