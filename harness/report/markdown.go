package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
)

// Markdown renders qualification.md: the verdict on one screen, then per stage a narrow table of
// rows, their figures and gate figures, the audit and inventory; then the formulas once and a
// glossary of statuses. qual verify re-renders it and compares, so it must stay deterministic.
func Markdown(e evidence.Evidence) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Qualification report — run %s\n\n", e.RunID)
	writeVerdict(&b, e)
	fmt.Fprintf(&b, "Target: `%s` (%s). Hardware: %s, %d cores, %.0f GB, GPU: %s.\n\n", e.Target, e.TargetKind, e.Hardware.CPU, e.Hardware.Cores, e.Hardware.MemoryGB, e.Hardware.GPU)
	b.WriteString("Versions:")
	for _, k := range sortedKeys(e.Versions) {
		fmt.Fprintf(&b, " %s %s;", k, e.Versions[k])
	}
	b.WriteString("\n\n")
	for _, s := range e.Stages {
		writeStage(&b, s)
	}
	writeFormulas(&b, e)
	b.WriteString(glossary)
	return b.String()
}

func writeVerdict(b *strings.Builder, e evidence.Evidence) {
	if banner := evidence.TestBuildBanner(e.Versions); banner != "" {
		fmt.Fprintf(b, "> **%s.** Its binaries were built with a test-only flag that changes what they do; nothing in this run qualifies a checkpoint.\n\n", banner)
	}
	fmt.Fprintf(b, "**Verdict: %s**\n\n", evidence.Verdict(e))
	if line := ScopeLine(e); line != "" {
		b.WriteString(line + "\n\n")
	}
	b.WriteString("| stage | status | counted rows qualified (of the target's) | rows run (of the target's) | failures |\n|---|---|---|---|---|\n")
	for _, s := range e.Stages {
		_, _, fails := evidence.StageCounts(s)
		qualified, rows := StageCells(s)
		failures := "none"
		if fails > 0 {
			failures = evidence.CountRows(fails)
		}
		if s.Status == "blocked" || s.Status == "planned" {
			failures = "— (" + string(s.Status) + ")"
		}
		fmt.Fprintf(b, "| %d `%s` | %s | %s | %s | %s |\n", s.Number, s.Stage, strings.ToUpper(string(s.Status)), qualified, rows, failures)
	}
	b.WriteString("\n")
	if failing := FailingRows(e); len(failing) > 0 {
		b.WriteString("**Failing rows** (the first failure of each; what to do; the row's folder):\n\n")
		for _, f := range failing {
			fmt.Fprintf(b, "- `%s/%s`: %s\n  - what to do: %s ([folder](%s))\n", f.Stage, f.Profile, escape(f.First), f.Hint, f.Folder)
		}
		b.WriteString("\n")
	}
}

func writeStage(b *strings.Builder, s evidence.Stage) {
	fmt.Fprintf(b, "## Stage %d (`%s`): %s\n\n", s.Number, s.Stage, strings.ToUpper(string(s.Status)))
	if s.Reason != "" {
		fmt.Fprintf(b, "%s\n\n", s.Reason)
	}
	// Each distinct statement (e.g. "NOT a trained model", "produced by the contract double,
	// not a TRTMC result") is a numbered note, and every row it applies to carries its number.
	notes := map[string]int{}
	for _, r := range s.Results {
		if r.Statement != "" && notes[r.Statement] == 0 {
			notes[r.Statement] = len(notes) + 1
			fmt.Fprintf(b, "**Note [%d]:** %s.\n\n", notes[r.Statement], r.Statement)
		}
	}
	if len(s.Results) > 0 {
		b.WriteString("| profile | checkpoint | kind | counted | status | gate | join | failures |\n|---|---|---|---|---|---|---|---|\n")
		for _, r := range FailedFirst(s.Results) {
			fails := strings.Join(r.Failures, "; ")
			if fails == "" {
				fails = "none"
			}
			profile := r.Profile
			if n := notes[r.Statement]; n > 0 {
				profile = fmt.Sprintf("%s [%d]", r.Profile, n)
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", profile, checkpointCell(r.Checkpoint, r.Revision), r.Kind,
				yesNo(r.Counted), r.Status, gateCell(r), joinCell(r), escape(fails))
		}
		for _, g := range gapRows(s) {
			fmt.Fprintf(b, "| — | %s | gap | no | not qualified | — | — | %s |\n", checkpointCell(g.Checkpoint, g.Revision), escape(g.Reason))
		}
		b.WriteString("\n")
		writeSkipped(b, s) // inputs not sent, by the family's clip limits (skipped.go)
		writeFigures(b, s)
		writeNoCache(b, s)
		writeServerMetrics(b, s)
		writeIntervals(b, s) // intervals over runs and accuracy intervals (intervals.go)
		writeGateFigures(b, s)
		writeReproduce(b, s)
	}
	writeProbe(b, s)
	writeAudit(b, s)
	writeInventory(b, s)
}

// checkpointCell is checkpoint@revision, or the checkpoint alone when its manifest names no
// revision (TRTMC's do not).
func checkpointCell(checkpoint, revision string) string {
	if revision == "" {
		return checkpoint
	}
	return checkpoint + "@" + revision
}

// gapRows are the group's checkpoints that have only reduced or variant profiles: no row of
// theirs can stand for the model, and the table says so instead of leaving them out.
func gapRows(s evidence.Stage) []inventory.Row {
	var out []inventory.Row
	for _, r := range s.Inventory {
		if r.Kind == inventory.KindGap {
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

// writeFigures is the performance table: only rows that were measured. Its cells are the
// ones report.html prints (PerfOf).
func writeFigures(b *strings.Builder, s evidence.Stage) {
	header := false
	for _, r := range s.Results {
		if r.Timing == nil {
			continue
		}
		if !header {
			b.WriteString("Figures (measured requests of every run; a rate is the mean over runs of each run's own rate, ± its 95% half-width over runs; formulas at the end):\n\n" +
				"| profile | client p50 ms | Task p50 ms | client − Task p50 ms | throughput | RTF or images/s | plot |\n|---|---|---|---|---|---|---|\n")
			header = true
		}
		plot := "—"
		if r.Plot != "" {
			plot = fmt.Sprintf("[latency](%s)", r.Plot)
		}
		p := PerfOf(r)
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s |\n", r.Profile, p.ClientP50, p.TaskP50, p.Overhead, p.Throughput, p.Rate, plot)
	}
	if header {
		b.WriteString("\n")
	}
	writeTails(b, s)
}

// writeTails is the tail percentiles of every measured row, pooled over its runs, each with n and
// its distribution-free interval.
func writeTails(b *strings.Builder, s evidence.Stage) {
	header := false
	for _, r := range s.Results {
		if r.Timing == nil {
			continue
		}
		if !header {
			b.WriteString("Tails (pooled over every run: value [95% distribution-free interval] n; a side no sample can bound is *open*):\n\n" +
				"| profile | client p95 ms | client p99 ms | Task p95 ms | Task p99 ms |\n|---|---|---|---|---|\n")
			header = true
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", r.Profile, TailCell(r, "client_latency", 95), TailCell(r, "client_latency", 99),
			TailCell(r, "task_call", 95), TailCell(r, "task_call", 99))
	}
	if header {
		b.WriteString("\n")
	}
}

// writeGateFigures is one column per figure the stage's gates report.
func writeGateFigures(b *strings.Builder, s evidence.Stage) {
	names := map[string]bool{}
	for _, r := range s.Results {
		if r.Gate != nil {
			for k := range r.Gate.Figures {
				names[k] = true
			}
		}
	}
	if len(names) == 0 {
		return
	}
	cols := sortedKeys(names)
	fmt.Fprintf(b, "Gate figures:\n\n| profile | %s |\n|---|%s\n", strings.Join(cols, " | "), strings.Repeat("---|", len(cols)))
	for _, r := range s.Results {
		if r.Gate == nil {
			continue
		}
		cells := make([]string, len(cols))
		for i, k := range cols {
			cells[i] = "—"
			if v, ok := r.Gate.Figures[k]; ok {
				cells[i] = fmt.Sprintf("%.4g", v)
			}
		}
		fmt.Fprintf(b, "| %s | %s |\n", r.Profile, strings.Join(cells, " | "))
	}
	b.WriteString("\n")
}

func writeReproduce(b *strings.Builder, s evidence.Stage) {
	b.WriteString("<details><summary>Reproduce each row</summary>\n\n")
	for _, r := range s.Results {
		switch {
		case r.Reproduce != "":
			fmt.Fprintf(b, "- %s: `%s`\n", r.Profile, r.Reproduce)
		case r.Status == evidence.StatusPlanned:
			fmt.Fprintf(b, "- %s: nothing to reproduce: the row was not run here (planned)\n", r.Profile)
		default:
			fmt.Fprintf(b, "- %s: no reproduce command recorded\n", r.Profile)
		}
	}
	b.WriteString("\n</details>\n\n")
}

func writeProbe(b *strings.Builder, s evidence.Stage) {
	switch {
	case s.Probe != nil && s.Probe.Planned != "":
		fmt.Fprintf(b, "Probe: not run — %s.\n\n", s.Probe.Planned)
	case s.Probe != nil:
		fmt.Fprintf(b, "Probe: an audio part sent to `%s` on `%s` answered HTTP %d `%s` (%s); recorded by the server: %s.\n\n",
			s.Probe.Model, s.Probe.Route, s.Probe.Status, s.Probe.ErrorCode, s.Probe.Message, yesNo(s.Probe.Recorded))
		if s.Probe.Expected != "" {
			fmt.Fprintf(b, "Documented refusal: %s; %s.\n\n", s.Probe.Expected, passFail(s.Probe.Passed))
		}
	}
}

func writeAudit(b *strings.Builder, s evidence.Stage) {
	if len(s.Audit) == 0 {
		return
	}
	b.WriteString("Capability audit (every profile of the target):\n\n| profile | family | task string | capabilities | audio_text_to_text |\n|---|---|---|---|---|\n")
	for _, a := range s.Audit {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", a.Profile, a.Family, a.TaskString, joinNames(a.Capabilities), yesNo(a.Has))
	}
	b.WriteString("\n")
}

func writeInventory(b *strings.Builder, s evidence.Stage) {
	if len(s.Inventory) == 0 {
		return
	}
	b.WriteString("<details><summary>Inventory</summary>\n\n| checkpoint | revision | profile | native task | controls | kind | counted | status | markings / reason |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range s.Inventory {
		var notes []string
		for _, n := range append(append(append([]string{}, r.Markings...), r.Notes...), r.Reason) {
			if n != "" {
				notes = append(notes, n)
			}
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Checkpoint, r.Revision, r.Profile, r.NativeTask,
			strings.Join(r.Controls, ", "), r.Kind, yesNo(r.Counted), r.Status, escape(strings.Join(notes, "; ")))
	}
	b.WriteString("\n</details>\n\n")
}

// writeFormulas lists every timing figure's formula once for the whole report.
func writeFormulas(b *strings.Builder, e evidence.Evidence) {
	formulas := map[string]string{}
	for _, s := range e.Stages {
		for _, r := range s.Results {
			if r.Timing == nil {
				continue
			}
			for _, f := range r.Timing.Figures {
				formulas[fmt.Sprintf("`%s` (%s)", f.Name, f.Unit)] = f.Formula
			}
		}
	}
	if len(formulas) == 0 {
		return
	}
	b.WriteString("## Formulas\n\n")
	for _, k := range sortedKeys(formulas) {
		fmt.Fprintf(b, "- %s: %s\n", k, formulas[k])
	}
	b.WriteString("\n")
}

const glossary = `## Statuses

- **Verdict**: QUALIFIED when every stage is qualified; PARTIAL when none failed but some are
  blocked or planned; NOT QUALIFIED when no stage is qualified and none failed; FAILED when any
  stage failed; TEST BUILD, whatever the stages say, when the binaries carry a test-only build tag
  (versions: build_tags, e.g. qual_slowdown).
- **Stage** — *qualified*: at least one counted full-model row is aiperf-qualified and no row
  failed; *failed*: a row failed, or no counted row was qualified; *blocked*: no profile of the
  target implements the stage's capability (the audit shows why; JUnit marks it skipped);
  *planned*: the target could not run here (e.g. no GPU stack), nothing is claimed.
- **Scope** — a run that does not select every row of the target (make smoke, a focus, one
  shard) is never a qualification: its verdict reads e.g. *SMOKE — not a qualification: 3 of 12
  rows (selected rows: QUALIFIED)*, its denominators are the target's, and each row it did not
  select is *not selected* in the inventory.
- **Row** — *aiperf-qualified*: gate passed on the exact bundle, served, AIPerf ran, every
  request joined, native == HTTP on every request, outputs meaningful, timing derived, bundle
  unchanged; *family-validated*: the family gate passed on the bundle (reduced and variant rows
  stop here); *planned*: not run, with the reason; *not selected*: a row of the target this run
  did not select; *failed*: a claim failed (see failures);
  *excluded*: not in the stage's group, with the reason.
- **Kind** — *full*: the checkpoint's normal profile; *reduced*: L0 / random-weight / smaller
  settings; *variant*: a precision, parallelism or decode-setting variant. **Counted**: only
  full rows count toward a stage's qualification.
`

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

func escape(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

func joinNames[T ~string](names []T) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = string(n)
	}
	return strings.Join(parts, ", ")
}
