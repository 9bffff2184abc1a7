package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Runs that cannot start fail loudly: `make qualify-all` with a wrong input prints one line
// naming the fix and exits 2 before any spec runs — no run directory, no JUnit, no report,
// and reports/latest stays where it was.
func TestQualifyAllRefusesWrongInputsBeforeRunning(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Fatal("make is not installed: the README's commands need it")
	}
	root := repoRoot()
	latest, _ := os.Readlink(filepath.Join(root, "reports", "latest"))
	for _, tc := range []struct {
		name string
		args []string
		env  []string
		want string
	}{
		{"missing target file", []string{"TARGET=nope.yaml"}, nil, "nope.yaml does not exist (QUAL_TARGET, make TARGET=)"},
		{"trtmc without TRTMC_ROOT", []string{"TARGET=suites/targets/trtmc.yaml"}, nil, "set QUAL_TRTMC_ROOT (make TRTMC_ROOT="},
		{"non-integer request count", nil, []string{"QUAL_ASR_REQUESTS=abc"}, `QUAL_ASR_REQUESTS="abc" is not an integer`},
		{"negative request count", nil, []string{"QUAL_T2I_REQUESTS=-5"}, `QUAL_T2I_REQUESTS="-5" is out of range`},
		{"bad shard", []string{"SHARD=3/2"}, nil, "QUAL_SHARD"},
		{"a checkout of the other layout", []string{"TARGET=suites/targets/trtmc.yaml", "TRTMC_ROOT=suites/targets/testdata/trtmc-older"}, nil,
			"has the tests/e2e layout, which target trtmc"},
	} {
		runID := fmt.Sprintf("test-refused-%d", time.Now().UnixNano())
		cmd := exec.Command("make", "--no-print-directory", "-s", "qualify-all", "RUN_ID="+runID)
		cmd.Args = append(cmd.Args, tc.args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), tc.env...)
		out, err := cmd.CombinedOutput()
		exit, _ := err.(*exec.ExitError)
		if exit == nil || exit.ExitCode() != 2 || !strings.Contains(string(out), tc.want) {
			t.Errorf("%s: %v\n%s", tc.name, err, out)
		}
		if strings.Contains(string(out), "goroutine ") || strings.Contains(string(out), "panic") {
			t.Errorf("%s: a stack instead of one line:\n%s", tc.name, out)
		}
		if _, err := os.Stat(filepath.Join(root, "reports", runID)); err == nil {
			t.Errorf("%s: a run directory was created", tc.name)
			os.RemoveAll(filepath.Join(root, "reports", runID))
		}
		if now, _ := os.Readlink(filepath.Join(root, "reports", "latest")); now != latest {
			t.Errorf("%s: reports/latest moved from %q to %q", tc.name, latest, now)
		}
	}
}

// A label filter naming no registered label fails the suite instead of selecting nothing and
// passing.
func TestLabelTypoFailsTheSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compiles and runs a stage suite binary; make test runs it")
	}
	cmd := exec.Command("go", "test", "-count=1", "./suites/asr", "-ginkgo.label-filter=speech")
	cmd.Dir = repoRoot()
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), `--label-filter "speech" names unknown label(s) [speech]`) {
		t.Errorf("label typo: %v\n%s", err, out)
	}
}

var makeErrorLine = regexp.MustCompile(`^make(\[\d+\])?: \*\*\* `)

// `make qualify-all` follows the verdict: a run whose rows are all planned (a TRTMC target on a
// machine without TRTMC) is NOT QUALIFIED: the recipe exits 1 (make itself then exits 2, as for
// any failed recipe), with the verdict as its last line; FAIL_ON=failed accepts it (no stage failed).
func TestQualifyAllExitFollowsTheVerdict(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compiles and runs a stage suite; make test runs it")
	}
	root := repoRoot()
	for _, tc := range []struct {
		failOn       string
		recipe, make int
	}{{"", 1, 2}, {"failed", 0, 0}} {
		runID := fmt.Sprintf("test-verdict-%d", time.Now().UnixNano())
		runDir := filepath.Join("build", "test-run", runID)
		cmd := exec.Command("make", "--no-print-directory", "-s", "qualify-all", "RUN_ID="+runID, "RUN_DIR="+runDir,
			"TARGET=suites/targets/trtmc-older.yaml", "TRTMC_ROOT=suites/targets/testdata/trtmc-older", "SUITES=./suites/t2i",
			"FAIL_ON="+tc.failOn, "QUAL_TRTMC_TRTMC_BINARY=/nonexistent/trtmc")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "QUAL_SIGNING_KEY=")
		for _, name := range loadVars() {
			cmd.Env = append(cmd.Env, name+"=") // at the target's load, whatever make test exported
		}
		out, err := cmd.CombinedOutput()
		os.RemoveAll(filepath.Join(root, runDir))
		code := 0
		if exit, ok := err.(*exec.ExitError); ok {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		// make's own lines on a non-zero exit: "make: ***", or "make[N]: ***" when the test itself
		// runs under make (make test), which numbers the nested make.
		for len(lines) > 1 && makeErrorLine.MatchString(lines[len(lines)-1]) {
			lines = lines[:len(lines)-1]
		}
		last := lines[len(lines)-1]
		if code != tc.make || !strings.HasPrefix(last, "[qualify] Verdict: NOT QUALIFIED (exit "+fmt.Sprint(tc.recipe)) {
			t.Errorf("FAIL_ON=%q: make exit %d (want %d), last line %q\n%s", tc.failOn, code, tc.make, last, out)
		}
	}
}

// With TRTMC_ROOT and no TARGET, qualify-all takes the target file of the checkout's layout.
func TestQualifyAllPicksTheTargetOfTheCheckoutsLayout(t *testing.T) {
	for root, want := range map[string]string{"suites/targets/testdata/trtmc-older": "QUAL_TARGET=suites/targets/trtmc-older.yaml",
		"suites/targets/testdata/trtmc-newer": "QUAL_TARGET=suites/targets/trtmc.yaml", "": "QUAL_TARGET=suites/targets/reference.yaml"} {
		cmd := exec.Command("make", "--no-print-directory", "-n", "qualify-all", "TRTMC_ROOT="+root)
		cmd.Dir = repoRoot()
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), want+" ") {
			t.Errorf("TRTMC_ROOT=%q: %v, want %s in\n%.600s", root, err, want, out)
		}
	}
}

// Both README commands work on a fresh machine (no Docker engine running, nothing built):
// `make test` runs deps first, as `make qualify` does, so neither stops at the engine step.
func TestBothReadmeCommandsInstallWhatTheyNeed(t *testing.T) {
	for _, target := range []string{"qualify", "test"} {
		out, err := exec.Command("make", "-C", repoRoot(), "-n", target).CombinedOutput()
		if err != nil {
			t.Fatalf("make -n %s: %v\n%s", target, err, out)
		}
		first := strings.Index(string(out), "go vet") // test's first own step
		if target == "qualify" {
			first = strings.Index(string(out), "qualify-all")
		}
		for _, step := range []string{"harness/scripts/deps.sh", "containers/engine/ensure-docker.sh", "qual images"} {
			if at := strings.Index(string(out), step); at < 0 || first >= 0 && at > first {
				t.Errorf("make %s does not run %s first", target, step)
			}
		}
	}
}

// make builds the one qual everything else runs: build/bin/qual, with the commit stamped (go
// run stamps none) and qual's own exit statuses (go run turns 2 into 1); nothing in the
// Makefile, the READMEs or CI runs `go run ./harness/cmd/qual`.
func TestMakeBuildsTheOneStampedQual(t *testing.T) {
	root := repoRoot()
	if out, err := exec.Command("make", "-C", root, "--no-print-directory", "-s", "build/bin/qual").CombinedOutput(); err != nil {
		t.Fatalf("make build/bin/qual: %v\n%s", err, out)
	}
	qual := filepath.Join(root, "build", "bin", "qual")
	out, err := exec.Command(qual, "--version").Output()
	if err != nil || !regexp.MustCompile(`(?m)^commit [0-9a-f]{40}`).Match(out) {
		t.Errorf("build/bin/qual --version: %v\n%s", err, out)
	}
	cmd := exec.Command(qual, "verify", "/nonexistent/run")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	exit, _ := cmd.Run().(*exec.ExitError)
	if exit == nil || exit.ExitCode() != exitUsage || stderr.String() != "qual verify: /nonexistent/run is not a run directory: it does not exist\n" {
		t.Errorf("build/bin/qual verify /nonexistent/run: %v, stderr %q (want exit 2)", exit, stderr.String())
	}
	files, err := exec.Command("git", "-C", root, "ls-files", "Makefile", "*.md", ".github", ".ci").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range strings.Fields(string(files)) {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), "go run ./harness/cmd/qual") {
			t.Errorf("%s runs qual with go run: use build/bin/qual (make bin)", f)
		}
	}
}

// make test runs the stage suites once: one reduced run of the reference target, made as
// qualify-all makes it and handed to go test as QUAL_TEST_RUN, and go test runs every other
// package and none of the suites (which would run them a second time, or pass by skipping).
func TestMakeTestRunsTheSuitesOnce(t *testing.T) {
	root := repoRoot()
	cmd := exec.Command("make", "--no-print-directory", "-n", "test", "RUN_ID=once", "GOTEST=echo", "TIMINGS="+filepath.Join(t.TempDir(), "timings.tsv"))
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "MAKEFLAGS=", "MAKELEVEL=") // the plan of a make test, not of the one running this test
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make -n test: %v\n%s", err, out)
	}
	suites, err := filepath.Glob(filepath.Join(root, "suites", "*", "*_suite_test.go"))
	if err != nil || len(suites) == 0 {
		t.Fatalf("no stage suites: %v", err)
	}
	var reference []string
	goTest, goTestAt := "", -1
	for i, l := range strings.Split(strings.ReplaceAll(string(out), "\\\n", ""), "\n") {
		switch {
		case strings.Contains(l, "go tool ginkgo") && strings.Contains(l, "QUAL_TARGET=suites/targets/reference.yaml "):
			reference = append(reference, l)
			if goTestAt >= 0 {
				t.Errorf("the reduced run starts after go test")
			}
		case strings.Contains(l, "QUAL_TEST_RUN="):
			goTest, goTestAt = l, i
		}
	}
	if len(reference) != 1 || goTest == "" {
		t.Fatalf("want one ginkgo run of the reference target and one go test with QUAL_TEST_RUN, got %d and %q:\n%s", len(reference), goTest, out)
	}
	for _, s := range suites {
		if rel := "./" + filepath.ToSlash(mustRel(t, root, filepath.Dir(s))); !strings.Contains(reference[0]+" ", " "+rel+" ") {
			t.Errorf("the reduced run does not run %s: %s", rel, reference[0])
		}
	}
	if run, given := assigned(reference[0], "QUAL_RUN_DIR"), assigned(goTest, "QUAL_TEST_RUN"); run == "" || run != given {
		t.Errorf("go test is given QUAL_TEST_RUN=%q, the reduced run is %q", given, run)
	}
	// The go test line itself, with GOTEST=echo, prints the packages it tests.
	listed, err := exec.Command("bash", "-c", "cd "+root+" && "+goTest).Output()
	if err != nil {
		t.Fatalf("the go test line: %v\n%s", err, goTest)
	}
	tested := map[string]bool{}
	for _, f := range strings.Fields(string(listed)) {
		tested[f] = true
	}
	suitePkgs := map[string]bool{}
	for _, s := range suites {
		suitePkgs[goList(t, root, filepath.Dir(s))[0]] = true
	}
	for _, p := range goList(t, root, "./...") {
		if tested[p] == suitePkgs[p] {
			t.Errorf("package %s: tested by go test %v, a stage suite %v", p, tested[p], suitePkgs[p])
		}
	}
}

func mustRel(t *testing.T, base, path string) string {
	t.Helper()
	rel, err := filepath.Rel(base, path)
	if err != nil {
		t.Fatal(err)
	}
	return rel
}

// assigned is the value of NAME=value in a shell command line.
func assigned(line, name string) string {
	_, after, ok := strings.Cut(" "+line, " "+name+"=")
	if !ok {
		return ""
	}
	value, _, _ := strings.Cut(after, " ")
	return value
}

func goList(t *testing.T, dir string, pattern string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", pattern)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v", pattern, err)
	}
	return strings.Fields(string(out))
}

// A dry run (`make -n`) only prints: make still runs every recipe line that calls $(MAKE), so
// the timing wrapper around those lines must write nothing either, for every target that times
// a step.
func TestMakeDryRunWritesNoTimings(t *testing.T) {
	dir := t.TempDir() // exists, as build/timings does after a first run
	for _, target := range []string{"deps", "qualify", "qualify-all", "smoke", "test", "test-run", "qualify-trtmc-double"} {
		cmd := exec.Command("make", "--no-print-directory", "-n", target, "RUN_ID=dry-run-test", "TIMINGS="+filepath.Join(dir, "run.tsv"))
		cmd.Dir = repoRoot()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("make -n %s: %v\n%s", target, err, out)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			t.Errorf("make -n %s wrote %s in %s", target, e.Name(), dir)
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// The suites' console is quiet unless asked: every target that runs the suites passes V
// (QUAL_VERBOSE) to them and leaves Ginkgo's -v out, so the suites choose the detail from the
// configuration.
func TestMakeSuitesConsoleFollowsV(t *testing.T) {
	for _, target := range []string{"qualify", "qualify-all", "smoke", "test-run"} {
		for _, v := range []string{"", "1"} {
			args := []string{target}
			if v != "" {
				args = append(args, "V="+v)
			}
			var ginkgo string
			for _, line := range strings.Split(strings.ReplaceAll(makeDryRun(t, args...), "\\\n", " "), "\n") {
				if strings.Contains(line, "go tool ginkgo") {
					ginkgo = line
				}
			}
			if ginkgo == "" {
				t.Fatalf("make -n %v runs no ginkgo", args)
			}
			if regexp.MustCompile(`go tool ginkgo .*(^| )-v( |$)`).MatchString(ginkgo) {
				t.Errorf("make %v: ginkgo -v streams every spec's detail whatever V says:\n%s", args, ginkgo)
			}
			if !strings.Contains(ginkgo, " QUAL_VERBOSE="+v+" ") {
				t.Errorf("make %v: the suites are not given QUAL_VERBOSE=%s:\n%s", args, v, ginkgo)
			}
		}
	}
}
