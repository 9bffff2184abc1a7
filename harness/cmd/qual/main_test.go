package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/config"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
)

// Each wrong invocation gets its message and exit status 2; a failing command gets 1.
func TestWrongInvocationsExit2(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "Usage:"},
		{[]string{"bogus"}, 2, `unknown command "bogus"`},
		{[]string{"inventory", "--target", "../../../suites/targets/reference.yaml", "--stage", "foo"}, 2, `unknown stage "foo" (stages: asr, audioqa, t2i)`},
		{[]string{"report", "/nonexistent/run"}, 2, "qual report: /nonexistent/run is not a run directory: it does not exist"},
		{[]string{"help"}, 0, ""},
	} {
		var stdout, stderr bytes.Buffer
		code := runQual(context.Background(), tc.args, &stdout, &stderr)
		if code != tc.code || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("qual %v: exit %d (want %d), stderr %q (want %q)", tc.args, code, tc.code, stderr.String(), tc.want)
		}
	}
}

// qual config is the Makefile's preflight: each wrong input is one line and exit 2.
func TestConfigPreflight(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"QUAL_ASR_REQUESTS": "abc"}, `QUAL_ASR_REQUESTS="abc" is not an integer`},
		{map[string]string{"QUAL_TARGET": "nope.yaml"}, "nope.yaml does not exist (QUAL_TARGET, make TARGET=)"},
		{map[string]string{"QUAL_TARGET": "suites/targets/trtmc.yaml"}, "set QUAL_TRTMC_ROOT (make TRTMC_ROOT="},
	} {
		for k, v := range tc.env {
			t.Setenv(k, v)
		}
		var stdout, stderr bytes.Buffer
		code := runQual(context.Background(), []string{"config"}, &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), tc.want) || strings.Count(strings.TrimSpace(stderr.String()), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q (want one line with %q)", tc.env, code, stderr.String(), tc.want)
		}
		for k := range tc.env {
			t.Setenv(k, "")
		}
	}
	var stdout, stderr bytes.Buffer
	if code := runQual(context.Background(), []string{"config"}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "target reference") {
		t.Errorf("default configuration: exit %d %q %q", code, stdout.String(), stderr.String())
	}
}

// qual config prints every load setting a run uses, each stage's runs (QUAL_<STAGE>_RUNS)
// beside its warmup, requests and concurrency, for every override variable.
func TestConfigPrintsEveryLoadSetting(t *testing.T) {
	useTarget(t, "reference.yaml", "")
	for _, s := range stage.Names() {
		t.Setenv(config.LoadVar(s, "WARMUP"), "3")
		t.Setenv(config.LoadVar(s, "REQUESTS"), "11")
		t.Setenv(config.LoadVar(s, "CONCURRENCY"), "2")
		t.Setenv(config.LoadVar(s, "RUNS"), "7")
	}
	code, stdout, stderr := qualRun(t, "config")
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	for _, s := range stage.Names() {
		want := fmt.Sprintf("stage %s: 7 run(s) × (3 warmup + 11 measured requests) at concurrency 2", s)
		if !strings.Contains(stdout, want) {
			t.Errorf("no line %q in\n%s", want, stdout)
		}
	}
}
