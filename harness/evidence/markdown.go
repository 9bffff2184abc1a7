package evidence

import (
	"fmt"
	"sort"
	"strings"
)

// Markdown renders qualification.md: per stage, a table with a row per checkpoint, then the
// formulas, the inventory and (for a blocked stage) the audit.
func Markdown(e Evidence) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Qualification report — run %s\n\n", e.RunID)
	fmt.Fprintf(&b, "Target: `%s` (%s). Hardware: %s, %d cores, %.0f GB, GPU: %s.\n\n", e.Target, e.TargetKind, e.Hardware.CPU, e.Hardware.Cores, e.Hardware.MemoryGB, e.Hardware.GPU)
	keys := make([]string, 0, len(e.Versions))
	for k := range e.Versions {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b.WriteString("Versions:")
	for _, k := range keys {
		fmt.Fprintf(&b, " %s %s;", k, e.Versions[k])
	}
	b.WriteString("\n\n")
	for _, s := range e.Stages {
		writeStage(&b, s)
	}
	return b.String()
}

func writeStage(b *strings.Builder, s Stage) {
	fmt.Fprintf(b, "## Stage %d (`%s`): %s\n\n", s.Number, s.Stage, strings.ToUpper(s.Status))
	if s.Reason != "" {
		fmt.Fprintf(b, "%s\n\n", s.Reason)
	}
	seen := map[string]bool{}
	for _, r := range s.Results {
		if r.Statement != "" && !seen[r.Statement] {
			seen[r.Statement] = true
			fmt.Fprintf(b, "**Note:** %s.\n\n", r.Statement)
		}
	}
	if len(s.Results) > 0 {
		b.WriteString("| checkpoint | profile | kind | counted | status | gate | client p50 / p95 ms | Task p50 / p95 ms | throughput | RTF or images/s | join | failures | reproduce |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
		for _, r := range s.Results {
			writeRow(b, r)
		}
		b.WriteString("\n")
		writeFormulas(b, s)
	}
	if s.Probe != nil && s.Probe.Planned != "" {
		fmt.Fprintf(b, "Probe: not run — %s.\n\n", s.Probe.Planned)
	} else if s.Probe != nil {
		fmt.Fprintf(b, "Probe: an audio part sent to `%s` on `%s` answered HTTP %d `%s` (%s); recorded by the server: %v.\n\n",
			s.Probe.Model, s.Probe.Route, s.Probe.Status, s.Probe.ErrorCode, s.Probe.Message, s.Probe.Recorded)
	}
	if len(s.Audit) > 0 {
		b.WriteString("Capability audit (every profile of the target):\n\n| profile | family | task string | capabilities | audio_text_to_text |\n|---|---|---|---|---|\n")
		for _, a := range s.Audit {
			fmt.Fprintf(b, "| %s | %s | %s | %v | %v |\n", a.Profile, a.Family, a.TaskString, a.Capabilities, a.Has)
		}
		b.WriteString("\n")
	}
	if len(s.Inventory) > 0 {
		b.WriteString("Inventory:\n\n| checkpoint | revision | profile | native task | controls | kind | counted | status | markings / reason |\n|---|---|---|---|---|---|---|---|---|\n")
		for _, r := range s.Inventory {
			var notes []string
			for _, n := range append(append(append([]string{}, r.Markings...), r.Notes...), r.Reason) {
				if n != "" {
					notes = append(notes, n)
				}
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %v | %s | %s |\n", r.Checkpoint, r.Revision, r.Profile, r.NativeTask,
				strings.Join(r.Controls, ", "), r.Kind, r.Counted, r.Status, strings.Join(notes, "; "))
		}
		b.WriteString("\n")
	}
}

func writeRow(b *strings.Builder, r Result) {
	gate := "—"
	if r.Gate != nil {
		gate = fmt.Sprintf("%s %s", passFail(r.Gate.Passed), gateFigures(r.Gate.Figures))
	}
	lat, task, thr, rate, joined := "—", "—", "—", "—", "—"
	if t := r.Timing; t != nil {
		get := func(n string) float64 { v, _ := t.Get(n); return v }
		lat = fmt.Sprintf("%.1f / %.1f", get("client_latency_p50"), get("client_latency_p95"))
		task = fmt.Sprintf("%.1f / %.1f", get("task_call_p50"), get("task_call_p95"))
		thr = fmt.Sprintf("%.2f req/s", get("request_throughput"))
		if v, ok := t.Get("rtf"); ok {
			rate = fmt.Sprintf("RTF %.3f (%.2f audio-s/s)", v, get("audio_seconds_per_second"))
		} else if v, ok := t.Get("images_per_second"); ok {
			rate = fmt.Sprintf("%.2f images/s", v)
		}
	}
	if j := r.Join; j != nil {
		joined = fmt.Sprintf("%d matched, %d/%d unmatched, %d dup", j.Matched, len(j.UnmatchedClient), len(j.UnmatchedServer), len(j.DuplicateClient)+len(j.DuplicateServer))
	}
	fails := strings.Join(r.Failures, "; ")
	if fails == "" {
		fails = "none"
	}
	fmt.Fprintf(b, "| %s@%s | %s | %s | %v | %s | %s | %s | %s | %s | %s | %s | %s | `%s` |\n",
		r.Checkpoint, r.Revision, r.Profile, r.Kind, r.Counted, r.Status, gate, lat, task, thr, rate, joined, escape(fails), r.Reproduce)
}

func writeFormulas(b *strings.Builder, s Stage) {
	for _, r := range s.Results {
		if r.Timing == nil {
			continue
		}
		b.WriteString("Formulas:\n\n")
		for _, f := range r.Timing.Figures {
			fmt.Fprintf(b, "- `%s` (%s): %s\n", f.Name, f.Unit, f.Formula)
		}
		b.WriteString("\n")
		return
	}
}

func gateFigures(f map[string]float64) string {
	keys := make([]string, 0, len(f))
	for k := range f {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%.4g", k, f[k]))
	}
	return strings.Join(parts, " ")
}

func passFail(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

func escape(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
