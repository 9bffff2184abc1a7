package checkpoint

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/config"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
)

// TestReproduceCarriesTheRunsLoad: a row's reproduce command runs that row alone through make's
// selection, with the AIPerf settings this run used (a smoke's one request a run included), and
// harness/config reads those settings back as this run's load.
func TestReproduceCarriesTheRunsLoad(t *testing.T) {
	root := t.TempDir()
	load := target.Load{Warmup: 1, Requests: 1, Concurrency: 2, Runs: 1}
	env := &Env{Root: root, Stage: stage.Name("asr"),
		Target: &target.Target{Path: filepath.Join(root, "suites", "targets", "reference.yaml"), AIPerf: map[stage.Name]target.Load{"asr": load}}}
	cmd := reproduce(env, "sphinx-tidigits")
	words := strings.Fields(cmd)
	vars := map[string]string{}
	for _, w := range words {
		if k, v, ok := strings.Cut(w, "="); ok {
			vars[k] = v
		}
	}
	if !strings.Contains(cmd, " make qualify ") || vars["STAGE"] != "asr" || vars["ROWS"] != "sphinx-tidigits" || vars["TARGET"] != "suites/targets/reference.yaml" {
		t.Fatalf("reproduce %q: want make qualify with TARGET, STAGE and ROWS of the row", cmd)
	}
	for suffix, want := range map[string]string{"WARMUP": "1", "REQUESTS": "1", "CONCURRENCY": "2", "RUNS": "1"} {
		if got := vars[config.LoadVar("asr", suffix)]; got != want {
			t.Errorf("%s = %q in %q, want %s", config.LoadVar("asr", suffix), got, cmd, want)
		}
	}
}

// A selected row that left no result records failed with why, and says how to run it again.
func TestNotRunSaysHowToRunTheRowAgain(t *testing.T) {
	root := t.TempDir()
	env := &Env{Root: root, Stage: stage.Name("asr"),
		Target: &target.Target{Path: filepath.Join(root, "suites", "targets", "reference.yaml"), AIPerf: map[stage.Name]target.Load{"asr": {Warmup: 2, Requests: 7, Concurrency: 2, Runs: 5}}}}
	for _, row := range []evidence.InventoryRow{
		{Profile: "whisper-tiny-en", Kind: evidence.KindFull, Counted: true},
		{Profile: "sphinx-an4-l0", Kind: evidence.KindReduced},
	} {
		r := NotRun(env, row, "the suite stopped")
		if r.Status != evidence.StatusFailed || r.Profile != row.Profile || r.Counted != row.Counted || len(r.Failures) != 1 ||
			r.Failures[0] != "not run: the suite stopped" || r.Reproduce != reproduce(env, row.Profile) {
			t.Errorf("%s: %+v", row.Profile, r)
		}
	}
}
