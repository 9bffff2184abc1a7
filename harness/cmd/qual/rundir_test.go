package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/attest"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// Every command that takes a run directory refuses each kind of path that is not one (missing,
// a file, an empty directory, a run not yet reported) with the same message and exit 2 — never
// a wrapped os error, `<nil>` or exit 1. The commands are found from the registry (a synopsis
// naming reports/…), so a new one must be added to invocation.
func TestEveryCommandRefusesANonRunDirectoryAlike(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	empty := filepath.Join(dir, "empty")
	unreported := filepath.Join(dir, "unreported") // the suites' output, before qual report
	for _, d := range []string{empty, filepath.Join(unreported, "asr")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, body := range map[string]string{file: "x", filepath.Join(unreported, "asr", "stage.json"): "{}"} {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	invocation := map[string]func(run string) []string{
		"report":  func(run string) []string { return []string{"report", run} },
		"sign":    func(run string) []string { return []string{"sign", run} },
		"verify":  func(run string) []string { return []string{"verify", run} },
		"compare": func(run string) []string { return []string{"compare", run, run} },
		"merge":   func(run string) []string { return []string{"merge", "-o", filepath.Join(t.TempDir(), "out"), run} },
	}
	needsReport := map[string]bool{"sign": true, "verify": true, "compare": true}
	for name, s := range commands() {
		if strings.Contains(s.args, "reports/") && invocation[name] == nil {
			t.Errorf("qual %s takes a run directory (%s) and is not in this table", name, s.args)
		}
	}
	for name, args := range invocation {
		cases := map[string]string{
			filepath.Join(dir, "missing"): "it does not exist",
			file:                          "it is a file",
			empty:                         "it holds no stage evidence",
		}
		if needsReport[name] {
			cases[empty] = "it holds no evidence.json (qual report writes it)"
			cases[unreported] = "it holds no evidence.json (qual report writes it)"
		}
		for run, why := range cases {
			code, out, errOut := qualRun(t, args(run)...)
			want := "qual " + name + ": " + run + " is not a run directory: " + why
			if code != exitUsage || out != "" || !strings.HasPrefix(errOut, want) || strings.Count(errOut, "\n") != 1 {
				t.Errorf("qual %v: exit %d, stdout %q, stderr %q (want exit 2 and %q)", args(run), code, out, errOut, want)
			}
		}
	}
}

// A run written in another evidence schema (an older qual's run) is not a forgery: verify says
// so first, with exit 2, naming the commit whose qual reads it, instead of listing the schema's
// differences as mismatches; every other command that reads the evidence names the same cause.
func TestARunOfAnotherSchemaIsNamedNotRefused(t *testing.T) {
	run := filepath.Join(t.TempDir(), "old")
	if err := os.MkdirAll(filepath.Join(run, "asr"), 0o755); err != nil {
		t.Fatal(err)
	}
	old := fmt.Sprintf(`{"schema_version":%d,"run_id":"old","versions":{"trtmc-qual":"fff3b1e"},"stages":[],"plot":"asr/x/latency.svg"}`, evidence.SchemaVersion-1)
	for p, body := range map[string]string{filepath.Join(run, "evidence.json"): old, filepath.Join(run, "asr", "stage.json"): "{}"} {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := fmt.Sprintf("evidence schema %d, this qual reads %d: read it with the qual of trtmc-qual fff3b1e", evidence.SchemaVersion-1, evidence.SchemaVersion)
	code, out, errOut := qualRun(t, "verify", run)
	if code != exitUsage || !strings.HasPrefix(out, "NOT VERIFIED "+run+": written in another evidence schema") || !strings.Contains(errOut, want) ||
		!strings.Contains(errOut, "git checkout fff3b1e && make bin") || strings.Contains(out, "MISMATCH") {
		t.Errorf("qual verify of a schema-%d run: exit %d\nstdout %s\nstderr %s", evidence.SchemaVersion-1, code, out, errOut)
	}
	if code, _, errOut := qualRun(t, "compare", run, run); code == exitOK || !strings.Contains(errOut, want) {
		t.Errorf("qual compare of a schema-%d run: exit %d, stderr %s", evidence.SchemaVersion-1, code, errOut)
	}
}

// Every command that takes a run directory names a run it cannot use alike, exit 2: a path that
// is no directory, an empty directory, a signed run that lost its evidence.json (saying so, not
// "not a run directory" nor "run qual report", which would break the signature), and a run of
// another evidence schema (naming the schema and the qual that reads it).
func TestEveryCommandNamesARunItCannotUseAlike(t *testing.T) {
	dir := t.TempDir()
	file, empty := filepath.Join(dir, "a-file"), filepath.Join(dir, "empty")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(dir, "key")
	if _, err := run(t, runKeygen, "-o", key); err != nil {
		t.Fatal(err)
	}
	signed := plannedRun(t)
	if _, err := run(t, runSign, "--key", key, signed); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(signed, "evidence.json")); err != nil {
		t.Fatal(err)
	}
	old := plannedRun(t)
	for _, f := range []string{"evidence.json", filepath.Join("t2i", "stage.json")} {
		p := filepath.Join(old, f)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		current := fmt.Sprintf(`"schema_version": %d,`, evidence.SchemaVersion)
		if !strings.Contains(string(data), current) {
			t.Fatalf("%s does not hold %s", f, current)
		}
		data = []byte(strings.Replace(string(data), current, fmt.Sprintf(`"schema_version": %d,`, evidence.SchemaVersion-1), 1))
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	invocation := map[string]func(run string) []string{
		"report":  func(run string) []string { return []string{"report", run} },
		"sign":    func(run string) []string { return []string{"sign", "--key", key, run} },
		"verify":  func(run string) []string { return []string{"verify", run} },
		"compare": func(run string) []string { return []string{"compare", run, run} },
		"merge":   func(run string) []string { return []string{"merge", "-o", filepath.Join(t.TempDir(), "out"), run} },
	}
	for name, s := range commands() {
		if strings.Contains(s.args, "reports/") && invocation[name] == nil {
			t.Errorf("qual %s takes a run directory (%s) and is not in this table", name, s.args)
		}
	}
	schema := fmt.Sprintf("has evidence schema %d, this qual reads %d", evidence.SchemaVersion-1, evidence.SchemaVersion)
	for name, args := range invocation {
		for run, want := range map[string]string{
			file:   "qual " + name + ": " + file + " is not a run directory: it is a file",
			empty:  "qual " + name + ": " + empty + " is not a run directory: it holds no ",
			signed: "qual " + name + ": " + signed + " is a signed run without its evidence.json, a file its signature (" + attest.EnvelopeFile + ") covers",
			old:    schema,
		} {
			code, _, errOut := qualRun(t, args(run)...)
			if code != exitUsage || !strings.Contains(errOut, want) || strings.Contains(errOut, "<nil>") {
				t.Errorf("qual %v: exit %d, stderr %q (want exit 2 and %q)", args(run), code, errOut, want)
			}
		}
	}
}
