package config

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/stage"
)

func checkout() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

func env(m map[string]string) (func(string) string, []string) {
	var environ []string
	for k, v := range m {
		environ = append(environ, k+"="+v)
	}
	return func(k string) string { return m[k] }, environ
}

func read(t *testing.T, m map[string]string) (Config, error) {
	t.Helper()
	getenv, environ := env(m)
	return FromEnv(getenv, environ, checkout())
}

// Every wrong value is an error naming the variable and the value; nothing is silently
// replaced by the target file's count.
func TestStrictValues(t *testing.T) {
	for _, tc := range []struct{ name, value, want string }{
		{"QUAL_ASR_REQUESTS", "abc", `QUAL_ASR_REQUESTS="abc" is not an integer`},
		{"QUAL_ASR_REQUESTS", "1e3", `QUAL_ASR_REQUESTS="1e3" is not an integer`},
		{"QUAL_ASR_REQUESTS", "-5", `QUAL_ASR_REQUESTS="-5" is out of range (an integer >= 1)`},
		{"QUAL_ASR_REQUESTS", "0", `QUAL_ASR_REQUESTS="0" is out of range`},
		{"QUAL_T2I_WARMUP", "-1", `QUAL_T2I_WARMUP="-1" is out of range (an integer >= 0)`},
		{"QUAL_AUDIOQA_CONCURRENCY", "2.5", `QUAL_AUDIOQA_CONCURRENCY="2.5" is not an integer`},
		{"QUAL_SHARD", "3/2", "QUAL_SHARD"},
		{"QUAL_ASR_REQUEST", "8", "unknown variable QUAL_ASR_REQUEST"},
		{"QUAL_TRTMC_ROOT", "/nonexistent/trtmc", `QUAL_TRTMC_ROOT="/nonexistent/trtmc" does not exist`},
		{"QUAL_ROOT", "/tmp", `QUAL_ROOT="/tmp" holds no go.mod`},
		{"QUAL_STAGE", "asr,speech", `QUAL_STAGE: unknown stage "speech"`},
		{"QUAL_RERUN", "/nonexistent/run", `QUAL_RERUN="/nonexistent/run" is not a run directory: it does not exist`},
		{"QUAL_VERBOSE", "yes please", `QUAL_VERBOSE="yes please" is neither 1 nor 0`},
	} {
		_, err := read(t, map[string]string{tc.name: tc.value})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s=%s: %v, want %q", tc.name, tc.value, err, tc.want)
		}
	}
}

func TestOverridesApplyToTheTarget(t *testing.T) {
	c, err := read(t, map[string]string{"QUAL_ASR_REQUESTS": "8", "QUAL_ASR_WARMUP": "0", "QUAL_SHARD": ""})
	if err != nil {
		t.Fatal(err)
	}
	tg, err := c.Target()
	if err != nil {
		t.Fatal(err)
	}
	asr, t2i := tg.StageLoad(stage.ASR), tg.StageLoad(stage.T2I)
	if asr.Requests != 8 || asr.Warmup != 0 || asr.Concurrency < 1 {
		t.Errorf("asr load %+v", asr)
	}
	if t2i.Requests < 1 {
		t.Errorf("t2i load %+v lost the target file's count", t2i)
	}
	if c.Shard.Index != 1 || c.Shard.Total != 1 || c.TargetPath != filepath.Join(checkout(), "suites/targets/reference.yaml") {
		t.Errorf("defaults %+v", c)
	}
}

// QUAL_TRTMC_<NAME> replaces the target file's value NAME in every command the target renders;
// an empty one is unset (make passes unset variables empty), and the file's default stays.
func TestTargetValuesComeFromTheEnvironment(t *testing.T) {
	trtmcRoot := filepath.Join(checkout(), "suites", "targets", "testdata", "trtmc-double")
	c, err := read(t, map[string]string{"QUAL_TARGET": "suites/targets/trtmc.yaml", "QUAL_TRTMC_ROOT": trtmcRoot,
		"QUAL_TRTMC_PYTHON": "/opt/py/bin/python", "QUAL_TRTMC_GPU": ""})
	if err != nil {
		t.Fatal(err)
	}
	tg, err := c.Target()
	if err != nil {
		t.Fatal(err)
	}
	if _, set := c.TargetValues["gpu"]; set {
		t.Errorf("an empty QUAL_TRTMC_GPU is set: %q", c.TargetValues)
	}
	if _, set := c.TargetValues["root"]; set {
		t.Errorf("QUAL_TRTMC_ROOT (the checkout) was taken as a target value: %q", c.TargetValues)
	}
	v := tg.Values()
	if v["python"] != "/opt/py/bin/python" {
		t.Errorf("{python} = %q, want QUAL_TRTMC_PYTHON's", v["python"])
	}
	if v["gpu"] != tg.Placeholders["gpu"] {
		t.Errorf("an empty QUAL_TRTMC_GPU replaced the file's default %q with %q", tg.Placeholders["gpu"], v["gpu"])
	}
}

// A missing target file and the trtmc target without its checkout are one line naming the fix.
func TestTargetErrorsNameTheFix(t *testing.T) {
	c, err := read(t, map[string]string{"QUAL_TARGET": "nope.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Target(); err == nil || !strings.Contains(err.Error(), "nope.yaml does not exist (QUAL_TARGET, make TARGET=)") {
		t.Errorf("missing target: %v", err)
	}
	c, _ = read(t, map[string]string{"QUAL_TARGET": "suites/targets/trtmc.yaml"})
	if _, err := c.Target(); err == nil || !strings.Contains(err.Error(), "set QUAL_TRTMC_ROOT (make TRTMC_ROOT=") {
		t.Errorf("trtmc without TRTMC_ROOT: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("name: [unclosed\n"), 0o644)
	c, _ = read(t, map[string]string{"QUAL_TARGET": bad})
	if _, err := c.Target(); err == nil || strings.Contains(err.Error(), "\n") {
		t.Errorf("invalid target must be one line: %v", err)
	}
}

func TestEveryVariableIsDocumented(t *testing.T) {
	for _, v := range Vars() {
		if !strings.HasPrefix(v.Name, "QUAL_") || v.Meaning == "" {
			t.Errorf("%+v", v)
		}
	}
}

// A relative QUAL_RERUN is under the repository root wherever the reader runs (each suite runs in
// its own package directory), as QUAL_RUN_DIR is.
func TestRerunIsUnderTheRoot(t *testing.T) {
	vars := map[string]string{"QUAL_RERUN": "golden"}
	getenv, environ := env(vars)
	for _, wd := range []string{checkout(), filepath.Join(checkout(), "suites", "asr")} {
		c, err := FromEnv(getenv, environ, wd)
		if err != nil || c.Select.Rerun != filepath.Join(c.Root, "golden") {
			t.Errorf("from %s: %q, %v", wd, c.Select.Rerun, err)
		}
	}
}

// QUAL_VERBOSE (make V=1) is read once here: empty or 0 is the quiet console, 1 the detail.
func TestVerboseIsReadOnce(t *testing.T) {
	for v, want := range map[string]bool{"": false, "0": false, "1": true, "true": true} {
		c, err := read(t, map[string]string{"QUAL_VERBOSE": v})
		if err != nil || c.Verbose != want {
			t.Errorf("QUAL_VERBOSE=%q: verbose %v (%v), want %v", v, c.Verbose, err, want)
		}
	}
}
