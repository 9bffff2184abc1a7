package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/plan"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
)

func planOf(t *testing.T, file, root string, stages ...stage.Name) plan.DryRun {
	t.Helper()
	repo, _ := filepath.Abs(filepath.Join("..", "..", ".."))
	tg, err := target.Read(filepath.Join(repo, "suites", "targets", file), filepath.Join(repo, "suites", "targets", "testdata", root))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := plan.Render(context.Background(), tg, stages, "/runs/RUN")
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func commandOf(r plan.DryRunRow, step string) (plan.DryRunCommand, bool) {
	for _, c := range r.Commands {
		if c.Step == step {
			return c, true
		}
	}
	return plan.DryRunCommand{}, false
}

// Image runs carry only the settings a testcase declares: never an empty value, never a negative
// one (TRTMC's CLI refuses both: apps/cli/cli.cpp @022e18f7), and flux-schnell, which declares no
// negative prompt, guidance or cfg scale, gets none of those flags.
func TestPlanImageRunsPassOnlyDeclaredSettings(t *testing.T) {
	rep := planOf(t, "trtmc.yaml", "trtmc-newer", stage.T2I)
	seen := 0
	for _, r := range rep.Rows {
		native, ok := commandOf(r, "native")
		if !ok || native.Where == "none" {
			continue
		}
		seen++
		for i, a := range native.Args {
			if strings.HasPrefix(a, "--") && a != "--runtime-root" && (i+1 >= len(native.Args) || native.Args[i+1] == "" || strings.HasPrefix(native.Args[i+1], "-")) {
				t.Errorf("%s: %s has an empty or negative value: %q", r.Profile, a, native.Args)
			}
		}
		if r.Profile == "flux-schnell" {
			for _, flag := range []string{"--negative-prompt", "--guidance-scale", "--cfg-scale"} {
				if slices.Contains(native.Args, flag) {
					t.Errorf("flux-schnell declares no %s, yet: %q", flag, native.Args)
				}
			}
		}
	}
	if seen < 5 {
		t.Fatalf("only %d image rows rendered a native run", seen)
	}
}

// An ASR run passes the testcase's max_new_tokens as --max-output-tokens, as the family test does
// (families/whisper/tests/test_e2e.py @9777fef7); the plan shows every step, and nothing runs.
func TestPlanShowsEveryStepAndTheTokenLimit(t *testing.T) {
	rep := planOf(t, "trtmc.yaml", "trtmc-double", stage.ASR)
	if len(rep.Rows) != 1 || rep.Checkout.Commit != target.NotGit {
		t.Fatalf("rows %+v, checkout %+v", rep.Rows, rep.Checkout)
	}
	r := rep.Rows[0]
	for _, step := range []string{"build", "inspect", "gate", "serve", "native", "aiperf"} {
		if _, ok := commandOf(r, step); !ok {
			t.Errorf("no %s command: %+v", step, r.Commands)
		}
	}
	native, _ := commandOf(r, "native")
	if i := slices.Index(native.Args, "--max-output-tokens"); i < 0 || native.Args[i+1] != "5" {
		t.Errorf("native %q lacks the testcase's --max-output-tokens 5", native.Args)
	}
	gate, _ := commandOf(r, "gate")
	if gate.Dir != "/runs/RUN/asr/sphinx-en-us/work" || !slices.ContainsFunc(gate.Env, func(e string) bool { return strings.HasPrefix(e, "TRTMC_BINARY=") }) {
		t.Errorf("gate without its directory or environment: %+v", gate)
	}
	// One engine build: the gate builds what it validates, shown as the build step, before inspect.
	if build, _ := commandOf(r, "build"); len(build.Args) != 0 || !strings.Contains(build.Note, "family gate") ||
		slices.IndexFunc(r.Commands, func(c plan.DryRunCommand) bool { return c.Step == "gate" }) > slices.IndexFunc(r.Commands, func(c plan.DryRunCommand) bool { return c.Step == "inspect" }) {
		t.Errorf("the row runs a build of its own, or inspects before the gate built: %+v", r.Commands)
	}
	var out bytes.Buffer
	if err := json.NewEncoder(&out).Encode(rep); err != nil || !strings.Contains(out.String(), `"step":"aiperf"`) {
		t.Errorf("JSON: %v %s", err, out.String())
	}
}

// A checkout of the other layout is refused before anything is rendered, naming the fitting target.
func TestPlanRefusesTheOtherLayout(t *testing.T) {
	err := runPlan(context.Background(), []string{"--target", filepath.Join("..", "..", "..", "suites", "targets", "trtmc.yaml"),
		"--trtmc-root", filepath.Join("..", "..", "..", "suites", "targets", "testdata", "trtmc-older")}, &bytes.Buffer{})
	var ue usageError
	if err == nil || !strings.Contains(err.Error(), "trtmc-older.yaml") || !errors.As(err, &ue) {
		t.Fatalf("%v", err)
	}
}

// qual plan renders the commands a run would make, so it takes the target's values from the
// same configuration: QUAL_TRTMC_PYTHON replaces {python} in the build and gate commands.
func TestPlanUsesTheConfiguredTargetValues(t *testing.T) {
	repo := filepath.Join("..", "..", "..")
	t.Setenv("QUAL_TRTMC_PYTHON", "/opt/custom/bin/python")
	var out bytes.Buffer
	err := runPlan(context.Background(), []string{"--target", filepath.Join(repo, "suites", "targets", "trtmc.yaml"),
		"--trtmc-root", filepath.Join(repo, "suites", "targets", "testdata", "trtmc-double"), "--stage", "asr", "--json"}, &out)
	if err != nil {
		t.Fatal(err)
	}
	var rep plan.DryRun
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || len(rep.Rows) == 0 {
		t.Fatalf("plan JSON: %v %s", err, out.String())
	}
	for _, step := range []string{"gate"} {
		c, ok := commandOf(rep.Rows[0], step)
		if !ok || len(c.Args) == 0 || c.Args[0] != "/opt/custom/bin/python" {
			t.Errorf("%s runs %q, not QUAL_TRTMC_PYTHON's python", step, c.Args)
		}
	}
}

// qual plan renders every row of both real layouts: a manifest-only tree's missing clip is shown
// as the path the run would read, marked MISSING, with the rest of the row rendered; distributed
// rows are shown, planned; no row stops at "cannot render the rest".
func TestPlanRendersEveryRowOfBothLayouts(t *testing.T) {
	stages := stage.Names()
	for _, c := range []struct{ file, root string }{{"trtmc.yaml", "trtmc-newer"}, {"trtmc-older.yaml", "trtmc-older"}} {
		rep := planOf(t, c.file, c.root, stages...)
		var distributed, missing int
		for _, r := range rep.Rows {
			if r.Error != "" {
				t.Errorf("%s %s: cannot render the rest: %s", c.root, r.Profile, r.Error)
			}
			if p, ok := commandOf(r, "planned"); ok && strings.HasPrefix(p.Note, "distributed: planned: needs") {
				distributed++
				continue
			}
			if in, ok := commandOf(r, "inputs"); ok && strings.HasPrefix(in.Note, "MISSING: the run would read /") {
				missing++
				if native, ok := commandOf(r, "native"); ok && native.Where != "none" && !strings.Contains(strings.Join(native.Args, " "), "(MISSING)") {
					t.Errorf("%s %s: native run does not show the missing input: %q", c.root, r.Profile, native.Args)
				}
			}
			if _, ok := commandOf(r, "gate"); !ok {
				t.Errorf("%s %s: no gate rendered: %+v", c.root, r.Profile, r.Commands)
			}
		}
		t.Logf("%s: %d rows, %d distributed, %d with a missing input", c.root, len(rep.Rows), distributed, missing)
		if distributed == 0 || len(rep.Rows) < 10 {
			t.Errorf("%s: %d rows, %d distributed shown", c.root, len(rep.Rows), distributed)
		}
		if c.root == "trtmc-newer" && missing == 0 {
			t.Errorf("%s: no row marked a missing input (the tree holds manifests only)", c.root)
		}
	}
}

// Every env line of a plan, pasted into a shell as `env <line> env`, gives the command exactly
// the environment the run gives it: each set variable with its value, each unset one absent
// (a bare name printed as is would be taken for a command).
func TestPlanEnvLinesRunAsTheRunsEnvironment(t *testing.T) {
	var buf bytes.Buffer
	rep := planOf(t, "trtmc.yaml", "trtmc-newer", stage.Names()...)
	printPlan(&buf, rep)
	lines := map[string]bool{}
	for _, l := range strings.Split(buf.String(), "\n") {
		if rest, ok := strings.CutPrefix(l, "   env "); ok {
			lines[rest] = true
		}
	}
	checked, unset := 0, 0
	for _, r := range rep.Rows {
		for _, c := range r.Commands {
			if len(c.Env) == 0 {
				continue
			}
			line := envArgs(c.Env)
			if !lines[line] {
				t.Fatalf("%s %s: env line %q not printed", r.Profile, c.Step, line)
			}
			cmd := exec.Command("sh", "-c", "env "+line+" env")
			cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
			for _, e := range c.Env {
				if !strings.Contains(e, "=") {
					cmd.Env = append(cmd.Env, e+"=inherited")
				}
			}
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s %s: sh -c %q: %v", r.Profile, c.Step, "env "+line+" env", err)
			}
			got := strings.Split(strings.TrimSpace(string(out)), "\n")
			for _, e := range c.Env {
				if strings.Contains(e, "=") {
					if !slices.Contains(got, e) {
						t.Errorf("%s %s: %q not set by %q", r.Profile, c.Step, e, line)
					}
				} else if unset++; slices.ContainsFunc(got, func(g string) bool { return strings.HasPrefix(g, e+"=") }) {
					t.Errorf("%s %s: %s still set by %q", r.Profile, c.Step, e, line)
				}
			}
			checked++
		}
	}
	if checked == 0 || unset == 0 {
		t.Fatalf("checked %d env lines, %d unset variables: the plan has none to check", checked, unset)
	}
}

// A name both set and unset ends as target.Environ leaves it: the later entry wins.
func TestEnvArgsApplyInOrderAsTheRunDoes(t *testing.T) {
	base := []string{"PATH=" + os.Getenv("PATH"), "A=inherited", "B=inherited"}
	for _, env := range [][]string{{"A=1", "A"}, {"A", "A=1"}, {"A=1", "B", "A=2"}, {"B", "A=x y", "B=3", "B"}} {
		cmd := exec.Command("sh", "-c", "env "+envArgs(env)+" env")
		cmd.Env = base
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%q: %v", env, err)
		}
		got := slices.DeleteFunc(strings.Split(strings.TrimSpace(string(out)), "\n"), func(v string) bool {
			return strings.HasPrefix(v, "PWD=") || strings.HasPrefix(v, "SHLVL=") || strings.HasPrefix(v, "_=") // the shell's own
		})
		want := target.Environ(base, env)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%q: env line %q gives %q, the run %q", env, envArgs(env), got, want)
		}
	}
}
