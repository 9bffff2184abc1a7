package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/config"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
	"github.com/trtmc-qual/trtmc-qual/harness/plan"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// runInventory prints a target's inventory: each stage's rows (gap rows included), the stage-3
// family limits, the stage-9 audit when that stage is blocked, and every other manifest with
// the reason it is in no stage. It never stops on a manifest it cannot use.
func runInventory(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("inventory", flag.ContinueOnError)
	tpath := fs.String("target", "", "target file (default $QUAL_TARGET, then suites/targets/reference.yaml)")
	stageFlag := fs.String("stage", "", stageChoices())
	trtmcRoot := fs.String("trtmc-root", "", "a TRTMC checkout (for suites/targets/trtmc*.yaml; default $QUAL_TRTMC_ROOT)")
	asJSON := fs.Bool("json", false, "print JSON")
	controls := fs.Bool("controls", false, "reference target: build each bundle to list its Task controls")
	check := fs.Bool("check", false, "fail unless stages 3 and 6 each have a counted checkpoint")
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	stages := stage.Names()
	if *stageFlag != "" {
		name, err := stageName(*stageFlag)
		if err != nil {
			return usageError{err}
		}
		stages = []stage.Name{name}
	}
	start := time.Now()
	cfg, err := config.Load()
	if err != nil {
		return usageError{err}
	}
	if *tpath == "" {
		*tpath = cfg.TargetPath
	}
	root := cfg.TRTMCRoot
	if *trtmcRoot != "" {
		root = *trtmcRoot
	}
	if root == "" {
		root = "."
	} else if err := mustExist(root); err != nil {
		return err
	}
	if err := mustExist(*tpath); err != nil {
		return err
	}
	t, err := target.Read(*tpath, root)
	if err != nil {
		return usageError{err}
	}
	t.Overrides = cfg.TargetValues
	if err := t.CheckLayout(); err != nil {
		return usageError{err}
	}
	paths, err := t.ManifestPaths()
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return fmt.Errorf("target %s finds no manifests under %s (globs %v)", t.Name, root, t.Manifests)
	}
	// The rows a run here cannot give a result are planned with the reason a run records.
	opts := inventory.Options{Capabilities: plan.Capabilities(t), PlannedReason: plan.PlannedReason(t)}
	rep := inventory.Scan(paths, opts)
	result := map[string]any{"manifests": len(paths), "other_manifests": rep.Other, "asr_family_limits": rep.Limits}
	for _, s := range stages {
		rows := rep.Stages[s]
		if *controls && t.Traits().Embedded() {
			if err := listControls(ctx, plan.NativeBin(cfg.Root), rows, string(s.Capability())); err != nil {
				return err
			}
		}
		inventory.Relative(rows, root)
		inventory.MarkRunnable(rows)
		entry := map[string]any{"rows": rows, "counted": len(inventory.Counted(rows))}
		if len(inventory.Counted(rows)) == 0 {
			audit, err := inventory.Audit(paths, s.Capability(), opts.Capabilities)
			if err != nil {
				return err
			}
			entry["status"], entry["audit"] = "blocked", audit
		}
		result[string(s)] = entry
		if !*asJSON {
			printRows(stdout, s, rows, entry)
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(result)
	}
	printLimits(stdout, rep.Limits)
	printOther(stdout, rep.Other, root)
	fmt.Fprintf(stdout, "\n%d manifests read in %s\n", len(paths), time.Since(start).Round(time.Millisecond))
	if *check {
		return checkCounted(rep)
	}
	return nil
}

// checkCounted is the inventory check a user runs against a real checkout: the reader must
// find at least one counted checkpoint in every stage a target must implement (a Blockable
// workload's stage, audio QA, may be blocked).
func checkCounted(rep *inventory.Report) error {
	var empty []string
	for _, w := range workload.All() {
		if workload.MayBeBlocked(w) != "" {
			continue
		}
		if s := w.Stage(); len(inventory.Counted(rep.Stages[s])) == 0 {
			empty = append(empty, fmt.Sprintf("stage %d (%s)", s.Number(), s))
		}
	}
	if len(empty) > 0 {
		return fmt.Errorf("inventory check: no counted checkpoint in %s", strings.Join(empty, " and "))
	}
	return nil
}

func printRows(w io.Writer, name stage.Name, rows []evidence.InventoryRow, entry map[string]any) {
	kinds := map[evidence.Kind]int{}
	for _, r := range rows {
		kinds[r.Kind]++
	}
	// The denominators a run's report gives (evidence.SelectionOf): the rows a whole run gives a
	// result; excluded rows and gaps are listed beside them, never run.
	sel := evidence.SelectionOf(rows, "")
	fmt.Fprintf(w, "\nstage %d (%s): %s a whole run gives a result, %d counted (full %d, reduced %d, variant %d); listed only: excluded %d, gap %d\n",
		name.Number(), name, evidence.CountRows(len(sel.TargetRows)), sel.Counted, kinds[evidence.KindFull], kinds[evidence.KindReduced],
		kinds[evidence.KindVariant], kinds[evidence.KindExcluded], kinds[evidence.KindGap])
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "CHECKPOINT\tREVISION\tPROFILE\tNATIVE TASK\tKIND\tCOUNTED\tSTATUS\tCONTROLS\tNOTES")
	for _, r := range rows {
		var parts []string
		for _, n := range append(append(append([]string{}, r.Markings...), r.Notes...), r.Reason, r.CapabilityGap, r.Statement) {
			if n != "" && !contains(parts, n) {
				parts = append(parts, n)
			}
		}
		if r.CapabilitySource != "" {
			parts = append(parts, "capability: "+r.CapabilitySource)
		}
		controls := strings.Join(r.Controls, ",")
		if controls == "" {
			controls = "not declared"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%v\t%s\t%s\t%s\n", r.Checkpoint, orDash(short(r.Revision)), r.Profile, orDash(r.NativeTask), r.Kind, r.Counted, r.Status,
			controls, strings.Join(parts, "; "))
	}
	tw.Flush()
	if audit, ok := entry["audit"].([]evidence.AuditRow); ok {
		var audio []evidence.AuditRow
		for _, a := range audit {
			if a.AudioInput != "" || a.Has {
				audio = append(audio, a)
			}
		}
		fmt.Fprintf(w, "stage %s is BLOCKED: none of %d profiles implements %s.", name, len(audit), name.Capability())
		if len(audio) == 0 {
			fmt.Fprintln(w, " No family takes audio input.")
			return
		}
		fmt.Fprintln(w, " Audio-input families and why they do not count:")
		for _, a := range audio {
			fmt.Fprintf(w, "  %-34s %-20s %-26s %v (%s): %s\n", a.Profile, a.Family, a.TaskString, a.Capabilities, a.Source, a.AudioInput)
		}
	}
}

func printLimits(w io.Writer, limits []inventory.FamilyLimits) {
	fmt.Fprintln(w, "\nstage 3 family limits (a clip longer than the family's maximum, or at another rate than the profile declares, is not sent; the report lists it with the reason):")
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "FAMILY\tMAX CLIP SECONDS\tSAMPLE RATE\tTOKEN LIMIT\tLANGUAGE DEFAULT")
	for _, l := range limits {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", l.Family, l.MaxClipSeconds, l.SampleRate, l.TokenLimit, l.Language)
	}
	tw.Flush()
}

// printOther lists malformed manifests and stage members missing fields one by one, and
// summarises unrelated ones by task (a real checkout has hundreds).
func printOther(w io.Writer, other []inventory.OtherRow, root string) {
	fmt.Fprintf(w, "\nother manifests: %d (in no stage table)\n", len(other))
	byTask := map[string][]string{}
	for _, o := range other {
		if strings.Contains(o.Reason, "is in no stage") {
			byTask[o.TaskString] = append(byTask[o.TaskString], o.Profile)
			continue
		}
		fmt.Fprintf(w, "  %s: %s\n", rel(root, o.Manifest), o.Reason)
	}
	tasks := make([]string, 0, len(byTask))
	for k := range byTask {
		tasks = append(tasks, k)
	}
	sort.Strings(tasks)
	for _, k := range tasks {
		fmt.Fprintf(w, "  task %-28q %3d profiles, no stage's Task (e.g. %s)\n", k, len(byTask[k]), byTask[k][0])
	}
}

func rel(root, path string) string {
	if r, ok := strings.CutPrefix(path, strings.TrimSuffix(root, "/")+"/"); ok {
		return r
	}
	return path
}

func short(rev string) string {
	if len(rev) == 40 {
		return rev[:10]
	}
	return rev
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// stageName accepts a stage's name or its number (asr or 3), as the help lists them.
func stageName(s string) (stage.Name, error) {
	for _, name := range stage.Names() {
		if s == string(name) || s == strconv.Itoa(name.Number()) {
			return name, nil
		}
	}
	_, err := stage.Get(s) // the error lists the stages
	return "", err
}

// stageChoices is the --stage help: "asr (3) | t2i (6) | audioqa (9) (default: all)".
func stageChoices() string {
	var out []string
	for _, name := range stage.Names() {
		out = append(out, fmt.Sprintf("%s (%d)", name, name.Number()))
	}
	return strings.Join(out, " | ") + " (default: all)"
}

// listControls fills each buildable row's Task controls from the reference target's trtmc-native
// (qual links no family runtime): it builds the row's bundle into a scratch directory and
// inspects it, and the loaded model declares them. A row whose bundle does not build keeps none.
func listControls(ctx context.Context, native string, rows []evidence.InventoryRow, want string) error {
	if _, err := os.Stat(native); err != nil {
		return usageError{fmt.Errorf("--controls needs trtmc-native (`qual images` in this checkout builds it): %w", err)}
	}
	dir, err := os.MkdirTemp("", "qual-inventory-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	for i := range rows {
		if rows[i].Kind == evidence.KindExcluded || rows[i].Kind == evidence.KindGap {
			continue
		}
		b := filepath.Join(dir, fmt.Sprintf("%d.bundle", i))
		if exec.CommandContext(ctx, native, "build", "--manifest", rows[i].Manifest, "-o", b).Run() != nil {
			continue
		}
		out, err := exec.CommandContext(ctx, native, "inspect", b).Output()
		var got struct { // native/task.Info, as trtmc-native inspect prints it
			Tasks []struct {
				Name     string
				Controls []struct{ Name string }
			}
		}
		if err != nil || json.Unmarshal(out, &got) != nil {
			continue
		}
		for _, info := range got.Tasks {
			if info.Name == want {
				rows[i].Controls = nil
				for _, c := range info.Controls {
					rows[i].Controls = append(rows[i].Controls, c.Name)
				}
			}
		}
	}
	return nil
}
