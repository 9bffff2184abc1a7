package verify

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// buildNative builds trtmc-native from this checkout, as `qual images` does for the host.
func buildNative(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "trtmc-native")
	cmd := exec.Command("go", "build", "-o", bin, "./native/cmd/trtmc-native")
	cmd.Dir = repoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build trtmc-native: %v\n%s", err, out)
	}
	return bin
}

// gatedRow builds a reference bundle into a run directory and gates it with the real binary, as
// the suites do, and publishes evidence holding that gate with the item edit applied.
func gatedRow(t *testing.T, native string, edit func(g *evidence.GateResult)) string {
	t.Helper()
	root := repoRoot(t)
	t.Setenv("QUAL_ROOT", root)
	dir := filepath.Join(t.TempDir(), "run")
	manifest := filepath.Join(root, "native", "families", "procdiff", "manifests", "procdiff-small-l0.json")
	bundlePath := filepath.Join(dir, "t2i", "procdiff-small-l0", "procdiff-small-l0.bundle")
	os.MkdirAll(filepath.Dir(bundlePath), 0o755)
	if out, err := exec.Command(native, "build", "--manifest", manifest, "-o", bundlePath).CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	out, err := exec.Command(native, "gate", bundlePath, "--manifest", manifest, "--testcase", "procdiff-small-l0-prompts", "--root", root, "--json").Output()
	if err != nil {
		t.Fatalf("gate: %v", err)
	}
	var g evidence.GateResult
	if err := json.Unmarshal(out, &g); err != nil || len(g.Items) == 0 {
		t.Fatalf("gate output %s: %v", out, err)
	}
	edit(&g)
	e := evidence.Evidence{SchemaVersion: evidence.SchemaVersion, RunID: "run", Target: "suites/targets/reference.yaml", TargetKind: "reference",
		Stages: []evidence.Stage{{Stage: "t2i", TargetKind: "reference", Results: []evidence.Result{{Profile: "procdiff-small-l0", Status: evidence.StatusFamilyValidated,
			Gate: &g, Bundle: evidence.Bundle{Path: "t2i/procdiff-small-l0/procdiff-small-l0.bundle"}}}}}}
	if err := evidence.WriteJSON(filepath.Join(dir, "evidence.json"), e); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRerunReexecutesTheGate re-executes a reference row's gate from its stored bundle: the
// recorded outputs pass; one output forged in the evidence (as the figures and status would be
// regenerated from it) is named.
func TestRerunReexecutesTheGate(t *testing.T) {
	native := buildNative(t)
	res, err := RerunGates(context.Background(), gatedRow(t, native, func(*evidence.GateResult) {}), native, nil, envOptions())
	if err != nil || len(res.Problems) != 0 || len(res.Rows) != 1 {
		t.Fatalf("the recorded gate: %+v %v", res, err)
	}
	res, err = RerunGates(context.Background(), gatedRow(t, native, func(g *evidence.GateResult) { g.Items[0].Output = "forged" }), native, nil, envOptions())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range res.Problems {
		got = append(got, p.String())
	}
	if len(res.Rows) != 0 || !containsAll(got, "t2i/procdiff-small-l0", "--rerun: gate item", `the evidence records "forged"`) {
		t.Fatalf("a forged gate output: %v", got)
	}
	// a variant row's PSNR raised: no served image holds it, the re-executed gate does
	res, err = RerunGates(context.Background(), gatedRow(t, native, func(g *evidence.GateResult) { g.Figures["ssim_min"] = 1 }), native, nil, envOptions())
	if err != nil || len(res.Problems) != 1 || !containsAll([]string{res.Problems[0].String()}, "--rerun: gate figure ssim_min re-executed", "the evidence records 1") {
		t.Fatalf("a forged gate figure: %+v %v", res, err)
	}
}

// TestNotRederivedIsListedPerRow: a reference row that serves nothing has its gate outputs
// taken as recorded (re-executed only by --rerun); a TRTMC row's gate is its stored report.
func TestNotRederivedIsListedPerRow(t *testing.T) {
	g := &evidence.GateResult{Items: []evidence.GateItem{{ID: "a"}, {ID: "b"}}}
	e := evidence.Evidence{Stages: []evidence.Stage{
		{Stage: "asr", TargetKind: "reference", Results: []evidence.Result{{Profile: "variant", Gate: g}, {Profile: "served", Gate: g, Outputs: []evidence.Output{{RequestID: "x"}}}}},
		{Stage: "t2i", TargetKind: "trtmc", Results: []evidence.Result{{Profile: "sd", Gate: g}}}}}
	var lines []string
	for _, r := range notRederived(e) {
		lines = append(lines, r.Row+": "+r.What+map[bool]string{true: " (rerun)"}[r.ByRerun])
	}
	if !containsAll(lines, "asr/variant: the native Task's outputs of its 2 gate inputs", "(rerun)") ||
		!containsAll(lines, "asr/served: the native Task's outputs of the gate inputs it did not serve", "(rerun)") ||
		!containsAll(lines, "t2i/sd: the gate: the target's own test report") || !containsAll(lines, "run: hardware") {
		t.Fatalf("%v", lines)
	}
}

// TestScopedRerunReexecutesOnlyTheNamedRows: --rerun=ROW,… re-executes the rows it names and no
// other. The run holds the same bundle under three rows: honest (t2i), forged (copy) and
// without a gate (nogate). Each scope's re-executed rows and problems are exactly its rows'.
func TestScopedRerunReexecutesOnlyTheNamedRows(t *testing.T) {
	native := buildNative(t)
	dir := gatedRow(t, native, func(*evidence.GateResult) {})
	e, err := evidence.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	honest := e.Stages[0].Results[0]
	forged := honest
	g := *honest.Gate
	g.Items = slices.Clone(g.Items)
	g.Items[0].Output = "forged"
	forged.Gate = &g
	nogate := honest
	nogate.Gate = nil
	e.Stages = append(e.Stages,
		evidence.Stage{Stage: "copy", TargetKind: "reference", Results: []evidence.Result{forged}},
		evidence.Stage{Stage: "nogate", TargetKind: "reference", Results: []evidence.Result{nogate}})
	if err := evidence.WriteJSON(filepath.Join(dir, "evidence.json"), e); err != nil {
		t.Fatal(err)
	}
	const row = "procdiff-small-l0"
	for _, c := range []struct {
		rows         []string
		reran, wrong []string // rows re-executed identical; rows with a problem
	}{
		{[]string{"t2i/" + row}, []string{"t2i/" + row}, nil},
		{[]string{"copy/" + row}, nil, []string{"copy/" + row}},
		{[]string{"nogate/" + row}, nil, []string{"nogate/" + row}},
		{[]string{"t2i/" + row, "copy/" + row}, []string{"t2i/" + row}, []string{"copy/" + row}},
		{[]string{row}, []string{"t2i/" + row}, []string{"copy/" + row, "nogate/" + row}}, // a profile alone: every stage's row
		{nil, []string{"t2i/" + row}, []string{"copy/" + row}},                            // every gated row
	} {
		res, err := RerunGates(context.Background(), dir, native, c.rows, envOptions())
		if err != nil {
			t.Fatalf("%v: %v", c.rows, err)
		}
		var reran, wrong []string
		for _, r := range res.Rows {
			reran = append(reran, strings.SplitN(r, ":", 2)[0])
		}
		for _, p := range res.Problems {
			wrong = append(wrong, p.Where)
		}
		if !slices.Equal(reran, c.reran) || !slices.Equal(wrong, c.wrong) {
			t.Errorf("--rerun=%v: re-executed %v (want %v), problems %v (want %v)", c.rows, reran, c.reran, res.Problems, c.wrong)
		}
		for _, stage := range []string{"t2i", "copy", "nogate"} {
			named := c.rows == nil || slices.Contains(c.rows, row) || slices.Contains(c.rows, stage+"/"+row)
			if res.Covers(stage+"/"+row) != named {
				t.Errorf("--rerun=%v: Covers(%s/%s) = %v", c.rows, stage, row, !named)
			}
		}
	}
	for _, bad := range [][]string{{"t2i/nope"}, {"nope"}, {""}, {"t2i/" + row, "asr/" + row}, {"t2i"}} {
		if _, err := RerunGates(context.Background(), dir, native, bad, envOptions()); !errors.Is(err, ErrUnknownRow) {
			t.Errorf("--rerun=%q: %v, want ErrUnknownRow", bad, err)
		}
	}
}
