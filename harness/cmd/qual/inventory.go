package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
)

func runInventory(_ context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("inventory", flag.ContinueOnError)
	tpath := fs.String("target", "suites/targets/reference.yaml", "target description")
	stage := fs.String("stage", "", "asr | t2i | audioqa (default: all three)")
	trtmcRoot := fs.String("trtmc-root", "", "a TRTMC checkout (for suites/targets/trtmc.yaml)")
	asJSON := fs.Bool("json", false, "print JSON")
	controls := fs.Bool("controls", false, "reference target: build each bundle to list its Task controls")
	if err := fs.Parse(args); err != nil {
		return err
	}
	root := "."
	if *trtmcRoot != "" {
		root = *trtmcRoot
	}
	t, err := target.Read(*tpath, root)
	if err != nil {
		return err
	}
	paths, err := t.ManifestPaths()
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return fmt.Errorf("target %s finds no manifests under %s (globs %v)", t.Name, root, t.Manifests)
	}
	opts := inventory.Options{Capabilities: inventory.ByTaskString}
	if t.Kind == "reference" {
		opts.Capabilities = inventory.RegistryCapabilities
	} else {
		opts.PlannedReason = "planned: TRTMC needs a GPU runner with TensorRT; no TRTMC result is claimed from this machine"
	}
	stages := []string{inventory.StageASR, inventory.StageT2I, inventory.StageAudioQA}
	if *stage != "" {
		stages = []string{*stage}
	}
	result := map[string]any{}
	for _, s := range stages {
		rows, err := inventory.Discover(paths, s, opts)
		if err != nil {
			return err
		}
		if *controls && t.Kind == "reference" {
			for i := range rows {
				if rows[i].Kind != inventory.KindExcluded {
					rows[i].Controls, _ = inventory.ControlsFromBundle(rows[i].Manifest, inventory.StageCapability(s))
				}
			}
		}
		inventory.Relative(rows, root)
		entry := map[string]any{"rows": rows, "counted": len(inventory.Counted(rows))}
		if len(inventory.Counted(rows)) == 0 {
			audit, err := inventory.Audit(paths, inventory.StageCapability(s), opts.Capabilities)
			if err != nil {
				return err
			}
			entry["status"], entry["audit"] = "blocked", audit
		}
		result[s] = entry
		if !*asJSON {
			printRows(stdout, s, rows, entry)
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(result)
	}
	return nil
}

func printRows(w io.Writer, stage string, rows []inventory.Row, entry map[string]any) {
	fmt.Fprintf(w, "\nstage %d (%s): %d rows, %d counted\n", inventory.StageNumber(stage), stage, len(rows), entry["counted"])
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "CHECKPOINT\tREVISION\tPROFILE\tNATIVE TASK\tKIND\tCOUNTED\tSTATUS\tCONTROLS\tNOTES")
	for _, r := range rows {
		var parts []string
		for _, n := range append(append(append([]string{}, r.Markings...), r.Notes...), r.Reason, r.CapabilityGap, r.Statement) {
			if n != "" {
				parts = append(parts, n)
			}
		}
		notes := strings.Join(parts, "; ")
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%v\t%s\t%s\t%s\n", r.Checkpoint, r.Revision, r.Profile, orDash(r.NativeTask), r.Kind, r.Counted, r.Status,
			orDash(strings.Join(r.Controls, ",")), notes)
	}
	tw.Flush()
	if audit, ok := entry["audit"].([]inventory.AuditRow); ok {
		fmt.Fprintf(w, "stage %s is BLOCKED: no profile implements %s. Audit:\n", stage, inventory.StageCapability(stage))
		for _, a := range audit {
			fmt.Fprintf(w, "  %-28s %-10s %-22s %v\n", a.Profile, a.Family, a.TaskString, a.Capabilities)
		}
	}
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
