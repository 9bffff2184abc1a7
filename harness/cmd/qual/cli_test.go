package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/checkpoint"
	"github.com/trtmc-qual/trtmc-qual/harness/config"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/internal/runfixture"
	"github.com/trtmc-qual/trtmc-qual/harness/plan"
	"github.com/trtmc-qual/trtmc-qual/harness/plan/setup"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
)

// qualRun runs qual in-process and returns its exit status, stdout and stderr.
func qualRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := runQual(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// useTarget points the configuration at a target file under the repository (and, for a TRTMC
// target, at a fixture checkout).
func useTarget(t *testing.T, file, trtmcFixture string) {
	root := repoRoot()
	t.Setenv("QUAL_ROOT", root)
	t.Setenv("QUAL_TARGET", filepath.Join(root, "suites", "targets", file))
	t.Setenv("QUAL_TRTMC_ROOT", "")
	for _, name := range loadVars() {
		t.Setenv(name, "") // make test exports its reduced load; a test's run is at the target's
	}
	if trtmcFixture != "" {
		t.Setenv("QUAL_TRTMC_ROOT", filepath.Join(root, "suites", "targets", "testdata", trtmcFixture))
	}
}

// loadVars are the stage load overrides (QUAL_ASR_REQUESTS, ...): make test exports them to every
// package's tests, and a run made under them is a REDUCED LOAD run, not the verdict a test expects.
func loadVars() []string {
	var names []string
	for _, v := range config.Vars() {
		for _, s := range stage.Names() {
			if strings.HasPrefix(v.Name, "QUAL_"+strings.ToUpper(string(s))+"_") {
				names = append(names, v.Name)
			}
		}
	}
	return names
}

// plannedStageRun writes one stage of the configured target with every row planned (what a machine
// without the target's stack records) into a fresh run directory, optionally as one shard.
func plannedStageRun(t *testing.T, s stage.Name, shardSpec string) (dir string, rows int) {
	t.Helper()
	t.Setenv("QUAL_SHARD", shardSpec)
	p, err := plan.FromEnv(s)
	if err != nil {
		t.Fatal(err)
	}
	reason := p.PlannedReason
	if reason == "" { // a runner with the target's stack: the evidence mechanics are the same
		reason = "planned: recorded by the test"
	}
	dir = t.TempDir()
	run := p.NewStageRun("")
	for _, row := range p.Rows {
		run.Planned(row, reason)
	}
	if err := setup.WriteStage(context.Background(), &checkpoint.Env{Root: repoRoot(), RunDir: dir}, run); err != nil {
		t.Fatal(err)
	}
	return dir, len(p.Rows)
}

// Every subcommand explains itself: a description, its arguments, its flags and an example, on
// stdout with exit 0, through `qual CMD --help`, `qual CMD -h` and `qual help CMD`.
func TestEverySubcommandHasHelp(t *testing.T) {
	for name, s := range commands() {
		for _, args := range [][]string{{name, "--help"}, {name, "-h"}, {"help", name}} {
			code, out, errOut := qualRun(t, args...)
			if code != exitOK || errOut != "" || !strings.HasPrefix(out, "Usage: qual "+name+" ") ||
				!strings.Contains(out, wrap(s.about, 96)) || !strings.Contains(out, "\nExample:\n  "+s.example) {
				t.Errorf("qual %v: exit %d, stderr %q, stdout:\n%s", args, code, errOut, out)
			}
		}
		if s.about == "" || s.example == "" || !strings.HasPrefix(s.example, "qual "+name) && !strings.Contains(s.example, " qual "+name) {
			t.Errorf("%s: help needs a description and an example of itself (%q)", name, s.example)
		}
	}
}

// A wrong invocation of each subcommand exits 2 with its message printed once; the flag
// package's own printing (a second copy and a bare usage line) is silenced.
func TestEverySubcommandRefusesWrongUsageWithExit2(t *testing.T) {
	useTarget(t, "reference.yaml", "")
	needQualRun(t) // images and capacity are qual-run's
	for name := range commands() {
		code, out, errOut := qualRun(t, name, "--no-such-flag")
		if code != exitUsage || out != "" || errOut != "qual "+name+": flag provided but not defined: -no-such-flag (qual "+name+" --help)\n" {
			t.Errorf("qual %s --no-such-flag: exit %d, stdout %q, stderr %q", name, code, out, errOut)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"config", "extra"}, `unexpected argument "extra"`},
		{[]string{"inventory", "suites/targets/trtmc.yaml"}, `unexpected argument "suites/targets/trtmc.yaml"`},
		{[]string{"inventory", "--stage", "4"}, `unknown stage "4" (stages: asr, audioqa, t2i)`},
		{[]string{"doctor", "extra"}, `unexpected argument "extra"`},
		{[]string{"images", "extra"}, `unexpected argument "extra"`},
		{[]string{"report"}, "missing argument: qual report [--fail-on LEVEL] [-o DIR] reports/RUN"},
		{[]string{"report", "--fail-on", "partial", t.TempDir()}, `fail-on "partial" is neither not-qualified nor failed`},
		{[]string{"report", "/nonexistent/run"}, "/nonexistent/run is not a run directory: it does not exist"},
		{[]string{"keygen"}, "-o PATH is required"},
		{[]string{"sign", "a", "b"}, `unexpected argument "b"`},
		{[]string{"verify"}, "missing argument"},
		{[]string{"merge", t.TempDir()}, "-o is required"},
		{[]string{"merge", "-o", t.TempDir(), "/nonexistent/shard"}, "/nonexistent/shard is not a run directory: it does not exist"},
		{[]string{"compare", "only-one"}, "missing argument"},
	} {
		code, _, errOut := qualRun(t, tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) || strings.Count(errOut, tc.want) != 1 {
			t.Errorf("qual %v: exit %d, stderr %q (want exit 2 and %q once)", tc.args, code, errOut, tc.want)
		}
	}
	t.Setenv("QUAL_FAIL_ON", "sometimes")
	if code, _, errOut := qualRun(t, "report", t.TempDir()); code != exitUsage || !strings.Contains(errOut, "QUAL_FAIL_ON") {
		t.Errorf("QUAL_FAIL_ON=sometimes: exit %d, %q", code, errOut)
	}
}

// Flags go before or after the positional arguments, and --stage takes a stage's number.
func TestFlagsAnywhereAndStageNumbers(t *testing.T) {
	useTarget(t, "trtmc.yaml", "trtmc-newer")
	code, byNumber, errOut := qualRun(t, "inventory", "--json", "--stage", "3")
	if code != exitOK {
		t.Fatalf("--stage 3: exit %d %s", code, errOut)
	}
	_, byName, _ := qualRun(t, "inventory", "--stage", "asr", "--json")
	if byNumber != byName || !strings.Contains(byName, `"asr"`) {
		t.Errorf("--stage 3 and --stage asr differ:\n%s\n%s", byNumber, byName)
	}
	run, _ := plannedStageRun(t, "asr", "")
	_, before, _ := qualRun(t, "report", "--fail-on", "failed", run)
	code, after, errOut := qualRun(t, "report", run, "--fail-on", "failed")
	if code != exitOK || before != after {
		t.Errorf("a flag after the run directory: exit %d %s\n%s", code, errOut, after)
	}
}

// qual inventory reads the same configuration as a run: QUAL_TARGET and QUAL_TRTMC_ROOT pick
// the target when no flag is given; a flag overrides them.
func TestInventoryHonoursTheEnvironment(t *testing.T) {
	useTarget(t, "trtmc.yaml", "trtmc-newer")
	_, fromEnv, _ := qualRun(t, "inventory", "--stage", "asr")
	if !strings.Contains(fromEnv, "nemotron") {
		t.Errorf("QUAL_TARGET=trtmc.yaml: not the TRTMC fixture's inventory:\n%s", fromEnv)
	}
	_, fromFlag, _ := qualRun(t, "inventory", "--stage", "asr", "--target", filepath.Join(repoRoot(), "suites", "targets", "reference.yaml"), "--trtmc-root", repoRoot())
	if strings.Contains(fromFlag, "nemotron") || !strings.Contains(fromFlag, "sphinx") {
		t.Errorf("--target reference.yaml did not override QUAL_TARGET:\n%s", fromFlag)
	}
	code, _, errOut := qualRun(t, "inventory", "--trtmc-root", "/nonexistent/trtmc")
	if code != exitUsage || !strings.Contains(errOut, "/nonexistent/trtmc does not exist") {
		t.Errorf("missing checkout: exit %d %q", code, errOut)
	}
	// A directory that is no checkout of either layout is a configuration error, named at once.
	code, _, errOut = qualRun(t, "inventory", "--trtmc-root", t.TempDir())
	if code != exitUsage || !strings.Contains(errOut, "is not a TensorRT-Model-Connect checkout of either layout") {
		t.Errorf("empty checkout: exit %d %q", code, errOut)
	}
}

// A failing check exits 1 in every subcommand that checks something.
func TestFailingChecksExit1(t *testing.T) {
	useTarget(t, "trtmc.yaml", "trtmc-newer")
	run, _ := plannedStageRun(t, "asr", "")
	keyDir := t.TempDir()
	key := filepath.Join(keyDir, "key")
	if _, err := writeKeyPair(key); err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(keyDir, "garbage.pem")
	os.WriteFile(garbage, []byte("not a key"), 0o600)

	// report: every row planned is NOT QUALIFIED; exit 1 by default, 0 when only FAILED fails.
	code, out, errOut := qualRun(t, "report", run)
	if code != exitFailed || !strings.HasSuffix(out, "Verdict: NOT QUALIFIED\n") || !strings.Contains(errOut, "verdict NOT QUALIFIED fails --fail-on not-qualified") {
		t.Errorf("report of a NOT QUALIFIED run: exit %d\n%s%s", code, out, errOut)
	}
	t.Setenv("QUAL_FAIL_ON", "failed")
	if code, _, errOut := qualRun(t, "report", run); code != exitOK {
		t.Errorf("QUAL_FAIL_ON=failed on a NOT QUALIFIED run: exit %d %s", code, errOut)
	}
	if code, _, _ := qualRun(t, "report", "--fail-on", "not-qualified", run); code != exitFailed {
		t.Errorf("--fail-on overrides QUAL_FAIL_ON: exit %d", code)
	}
	t.Setenv("QUAL_FAIL_ON", "")

	if code, _, errOut := qualRun(t, "sign", "--key-file", key, run); code != exitOK {
		t.Fatalf("sign: exit %d %s", code, errOut)
	}
	evidenceJSON := filepath.Join(run, "evidence.json")
	data, _ := os.ReadFile(evidenceJSON)
	os.WriteFile(evidenceJSON, bytes.Replace(data, []byte(`"planned"`), []byte(`"qualified"`), 1), 0o644)

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"verify of a tampered run", []string{"verify", "--key", key + ".pub", run}, "mismatches"},
	} {
		code, _, errOut := qualRun(t, tc.args...)
		if code != exitFailed || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: exit %d, stderr %q (want exit 1 and %q)", tc.name, code, errOut, tc.want)
		}
	}
	// A key that cannot sign is the caller's to fix, not a failed check (TestEveryUnusableKeyExits2).
	if code, _, errOut := qualRun(t, "sign", "--key-file", garbage, run); code != exitUsage || !strings.Contains(errOut, garbage) {
		t.Errorf("sign with a bad key: exit %d, stderr %q (want exit 2 naming the key)", code, errOut)
	}
	// An existing key is the caller's choice of path, not a failed check: exit 2, as an -o of
	// merge that holds a run.
	if code, _, errOut := qualRun(t, "keygen", "-o", key); code != exitUsage || !strings.Contains(errOut, "not overwriting a key") {
		t.Errorf("keygen over a key: exit %d, stderr %q (want exit 2)", code, errOut)
	}
	t.Run("compare", func(t *testing.T) {
		base := runfixture.WriteRun(t, "base", runfixture.ASRRow("sphinx-en-us", runfixture.Golds(), 100))
		worse := runfixture.WriteRun(t, "worse", runfixture.ASRRow("sphinx-en-us", []string{"x", "y", "z", "w", "v", "u"}, 100))
		if code, _, errOut := qualRun(t, "compare", base, worse); code != exitFailed || !strings.Contains(errOut, "regression") {
			t.Errorf("compare with an accuracy regression: exit %d %q", code, errOut)
		}
	})
	t.Run("doctor on a machine without make deps", func(t *testing.T) {
		useTarget(t, "reference.yaml", "")
		t.Setenv("QUAL_CACHE", t.TempDir())
		t.Setenv("QUAL_WHISPER_PYTHON", "")
		code, out, errOut := qualRun(t, "doctor")
		if code != exitFailed || !strings.Contains(out, "MISSING  whisper venv") || !strings.Contains(out, "does not exist; fix: make deps") ||
			!strings.Contains(errOut, "whisper venv") {
			t.Errorf("doctor without the whisper venv: exit %d\n%s%s", code, out, errOut)
		}
	})
	t.Run("doctor and images without docker", func(t *testing.T) {
		needQualRun(t)
		t.Setenv("PATH", t.TempDir())
		code, out, errOut := qualRun(t, "doctor")
		if code != exitFailed || !strings.Contains(out, "MISSING  Docker engine") || !strings.Contains(out, "fix: make engine") ||
			!strings.Contains(errOut, "a run cannot start: missing Docker engine") {
			t.Errorf("doctor without docker: exit %d\n%s%s", code, out, errOut)
		}
		if code, _, errOut := qualRun(t, "images"); code != exitFailed || !strings.HasPrefix(errOut, "qual images: ") {
			t.Errorf("images without go or docker on PATH: exit %d %q", code, errOut)
		}
	})
}

// The console summary of a failed run names each failing row, its first failure and what to do,
// and ends with the verdict.
func TestSummaryNamesFailingRows(t *testing.T) {
	run := runfixture.WriteRun(t, "failed", evidence.Result{Profile: "sphinx-en-us", Status: evidence.StatusFailed, Counted: true,
		Failures: []string{"join: 2 AIPerf requests without a server record: r-7, r-9"}})
	e, err := evidence.Read(run)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	printSummary(&out, run, e)
	want := "FAILED asr/sphinx-en-us: join: 2 AIPerf requests without a server record: r-7, r-9\n    what to do: requests and server records"
	if !strings.Contains(out.String(), want) || !strings.HasSuffix(out.String(), "Verdict: "+evidence.Verdict(e)+"\n") {
		t.Errorf("summary:\n%s", out.String())
	}
}

// compare refuses runs with no checkpoint in common (exit 2) and says when both sides are one run;
// one AIPerf run per row decides no light: INCONCLUSIVE, exit 3, never "no regression found".
func TestCompareRefusesUnrelatedRunsAndNamesTheSameRun(t *testing.T) {
	base := runfixture.WriteRun(t, "base", runfixture.ASRRow("sphinx-en-us", runfixture.Golds(), 100))
	other := runfixture.WriteRun(t, "other", runfixture.ASRRow("whisper-tiny-en", runfixture.Golds(), 100))
	code, out, errOut := qualRun(t, "compare", base, other)
	if code != exitUsage || out != "" || !strings.Contains(errOut, "have no checkpoint in common") {
		t.Errorf("unrelated runs: exit %d %q %q", code, out, errOut)
	}
	code, out, _ = qualRun(t, "compare", base, base)
	if code != exitUndecided || !strings.HasPrefix(out, "Note: both sides are the same run (base)") {
		t.Errorf("a run with itself: exit %d\n%s", code, out)
	}
	code, out, errOut = qualRun(t, "compare", base, runfixture.WriteRun(t, "new", runfixture.ASRRow("sphinx-en-us", runfixture.Golds(), 100)))
	if code != exitUndecided || strings.Contains(out, "same run") || strings.Contains(out, "no regression found") ||
		!strings.Contains(out, "Verdict: **INCONCLUSIVE (0 of 1 timed rows decided)**") || !strings.Contains(errOut, "INCONCLUSIVE (0 of 1 timed rows decided): undecided") {
		t.Errorf("two runs of one AIPerf run each: exit %d\n%s%s", code, out, errOut)
	}
	smoke := runfixture.WriteRun(t, "smoke", runfixture.ASRRow("sphinx-en-us", runfixture.Golds(), 100))
	full := runfixture.WriteRun(t, "full", runfixture.ASRRow("sphinx-en-us", runfixture.Golds(), 100), runfixture.ASRRow("whisper-tiny-en", runfixture.Golds(), 100))
	code, out, _ = qualRun(t, "compare", full, smoke)
	if code != exitFailed || !strings.Contains(out, "Missing from new (only in base, not compared): asr/whisper-tiny-en.") {
		t.Errorf("a full run against a smoke run: exit %d\n%s", code, out)
	}
	if code, _, _ = qualRun(t, "compare", "--allow-missing", full, smoke); code != exitUndecided {
		t.Errorf("--allow-missing: exit %d, want the common row's verdict (inconclusive, 3)", code)
	}
}

// merge refuses shards that are not parts of one run, and an output that already holds a run,
// each with a message saying so (exit 2), before writing anything.
func TestMergeRefusesForeignShards(t *testing.T) {
	useTarget(t, "trtmc.yaml", "trtmc-newer")
	trtmc, _ := plannedStageRun(t, "asr", "1/2")
	useTarget(t, "reference.yaml", "")
	reference, _ := plannedStageRun(t, "asr", "")
	key := teamKey(t)
	publishShard(t, reference, key)
	out := filepath.Join(t.TempDir(), "merged")
	code, _, errOut := qualRun(t, "merge", "--key", key+".pub", "-o", out, reference, trtmc)
	if code != exitUsage || !strings.Contains(errOut, filepath.Join(trtmc, "asr", "stage.json")+" are not parts of one run: target suites/targets/reference.yaml (reference) vs suites/targets/trtmc.yaml (trtmc)") {
		t.Errorf("reference + trtmc shards: exit %d %q", code, errOut)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a refused merge wrote %s", out)
	}
	// The merges below need a shard that verifies: a reference run whose every row is planned
	// cannot (the suite plans a reference row only when it needs more GPUs), a TRTMC run on a
	// machine without its stack can.
	useTarget(t, "trtmc.yaml", "trtmc-newer")
	whole, _ := plannedStageRun(t, "asr", "")
	publishShard(t, whole, key)
	code, mergeOut, errOut := qualRun(t, "merge", "--key", key+".pub", "-o", out, whole)
	if code != exitOK {
		t.Fatalf("merge of one shard: exit %d %s", code, errOut)
	}
	if !strings.Contains(mergeOut, "the merged run is not signed yet: qual sign [--key-file KEY] "+out) {
		t.Errorf("merge does not say how to sign the merged run:\n%s", mergeOut)
	}
	code, _, errOut = qualRun(t, "merge", "--key", key+".pub", "-o", out, whole)
	if code != exitUsage || !strings.Contains(errOut, out+" already holds a run (a previous merge?)") {
		t.Errorf("merging into an existing run: exit %d %q", code, errOut)
	}
	code, _, errOut = qualRun(t, "merge", "--key", key+".pub", "-o", t.TempDir(), whole, whole)
	if code != exitUsage || !strings.Contains(errOut, "is in "+whole+" and in "+whole+": each row belongs to one shard") {
		t.Errorf("one shard twice: exit %d %q", code, errOut)
	}
}

// `qual --version` names the module and the commit (or says it was not stamped).
func TestVersion(t *testing.T) {
	code, out, _ := qualRun(t, "--version")
	if code != exitOK || !strings.HasPrefix(out, "qual github.com/trtmc-qual/trtmc-qual ") || !strings.Contains(out, "\ncommit ") {
		t.Errorf("--version: exit %d %q", code, out)
	}
}

// "planned" keeps one meaning in qual inventory: the row cannot run here, with the reason (no
// target stack, a distributed profile). A row a run here would give a result is "runnable", for
// every target kind and stage: the reference target, the TRTMC fixture without its CLI, and the
// TRTMC target on its contract double.
func TestInventorySaysPlannedOnlyForRowsThatCannotRun(t *testing.T) {
	double := filepath.Join(repoRoot(), "suites", "targets", "testdata", "trtmc-double")
	t.Chdir(repoRoot()) // the reference target's manifests are under the working directory, as for make inventory
	for _, tc := range []struct {
		file, fixture string
		env           map[string]string
		runs          bool // the target can run on this machine
	}{
		{"reference.yaml", "", nil, true},
		{"trtmc.yaml", "trtmc-newer", nil, false},
		{"trtmc.yaml", "trtmc-double", map[string]string{"QUAL_TRTMC_TRTMC_BINARY": filepath.Join(double, "bin", "trtmc"),
			"QUAL_TRTMC_CUDA_IMAGE": "{reference_server_image}", "QUAL_TRTMC_GPU": "none", "QUAL_TRTMC_PYTHON": "python3"}, true},
	} {
		useTarget(t, tc.file, tc.fixture)
		for k, v := range tc.env {
			t.Setenv(k, v)
		}
		code, out, errOut := qualRun(t, "inventory", "--json")
		if code != exitOK {
			t.Fatalf("%s %s: exit %d %s", tc.file, tc.fixture, code, errOut)
		}
		var inv map[string]json.RawMessage
		if err := json.Unmarshal([]byte(out), &inv); err != nil {
			t.Fatal(err)
		}
		resulting := 0
		for _, s := range stage.Names() {
			var entry struct{ Rows []evidence.InventoryRow }
			if err := json.Unmarshal(inv[string(s)], &entry); err != nil {
				t.Fatal(err)
			}
			for _, r := range entry.Rows {
				if !evidence.Resulting(r) {
					continue
				}
				resulting++
				runs := tc.runs && r.GPUs <= 1
				switch {
				case runs && r.Status != "runnable": // the word a user reads
					t.Errorf("%s %s: %s can run here but is %q", tc.file, tc.fixture, r.Profile, r.Status)
				case !runs && (r.Status != evidence.StatusPlanned || r.Reason == ""):
					t.Errorf("%s %s: %s cannot run here but is %q (reason %q)", tc.file, tc.fixture, r.Profile, r.Status, r.Reason)
				}
			}
		}
		if resulting == 0 {
			t.Errorf("%s %s: no row with a result to check", tc.file, tc.fixture)
		}
		for k := range tc.env {
			t.Setenv(k, "")
		}
	}
}

// qual inventory's per-stage count is the report's denominator: the rows a whole run gives a
// result (evidence.SelectionOf), with excluded rows and gaps listed apart, for every target.
func TestInventoryCountsAreTheReportsDenominators(t *testing.T) {
	t.Chdir(repoRoot())
	checked := 0
	defer func() {
		if checked < 6 {
			t.Errorf("checked %d stages of three targets", checked)
		}
	}()
	for _, tc := range []struct{ file, fixture string }{{"reference.yaml", ""}, {"trtmc.yaml", "trtmc-newer"}, {"trtmc-older.yaml", "trtmc-older"}} {
		useTarget(t, tc.file, tc.fixture)
		_, text, _ := qualRun(t, "inventory")
		_, js, _ := qualRun(t, "inventory", "--json")
		var inv map[string]json.RawMessage
		if err := json.Unmarshal([]byte(js), &inv); err != nil {
			t.Fatal(err)
		}
		for _, s := range stage.Names() {
			var entry struct{ Rows []evidence.InventoryRow }
			if raw, ok := inv[string(s)]; !ok || json.Unmarshal(raw, &entry) != nil || len(entry.Rows) == 0 {
				continue
			}
			sel := evidence.SelectionOf(entry.Rows, "")
			kinds := map[evidence.Kind]int{}
			for _, r := range entry.Rows {
				kinds[r.Kind]++
			}
			if kinds[evidence.KindExcluded]+kinds[evidence.KindGap] != len(entry.Rows)-len(sel.TargetRows) {
				t.Fatalf("%s %s: rows neither resulting nor listed", tc.file, s)
			}
			want := fmt.Sprintf("stage %d (%s): %s a whole run gives a result, %d counted", s.Number(), s, evidence.CountRows(len(sel.TargetRows)), sel.Counted)
			listed := fmt.Sprintf("; listed only: excluded %d, gap %d\n", kinds[evidence.KindExcluded], kinds[evidence.KindGap])
			if !strings.Contains(text, want) || !strings.Contains(text[strings.Index(text, want):], listed) {
				t.Errorf("%s: no %q …%q in\n%s", tc.file, want, listed, text)
			}
			checked++
		}
	}
}

// A blocked stage's audit lists the audio-input families under its header, and says there are
// none rather than print the header over an empty list.
func TestBlockedStageNeverPrintsAnEmptyList(t *testing.T) {
	for _, tc := range []struct {
		audit []evidence.AuditRow
		want  string
	}{
		{[]evidence.AuditRow{{Profile: "p", Family: "f"}}, "No family takes audio input.\n"},
		{[]evidence.AuditRow{{Profile: "p", Family: "f"}, {Profile: "q", Family: "whisper", AudioInput: "transcribes only"}}, "Audio-input families and why they do not count:\n  q "},
	} {
		var b strings.Builder
		printRows(&b, stage.AudioQA, nil, map[string]any{"audit": tc.audit})
		if !strings.Contains(b.String(), tc.want) || strings.HasSuffix(b.String(), "count:\n") {
			t.Errorf("audit %+v printed\n%s", tc.audit, b.String())
		}
	}
}
