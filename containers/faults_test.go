package containers_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trtmc-qual/trtmc-qual/containers/containertest"
	"github.com/trtmc-qual/trtmc-qual/containers/images"
	"github.com/trtmc-qual/trtmc-qual/containers/spec"
	"github.com/trtmc-qual/trtmc-qual/harness/checkpoint"
	"github.com/trtmc-qual/trtmc-qual/harness/config"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/plan"
	"github.com/trtmc-qual/trtmc-qual/harness/serving"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
	st "github.com/trtmc-qual/trtmc-qual/server/servertest"
)

// TestKilledServerFailsTheCheckpointWithEveryLostRequestNamed kills the server container in the
// middle of an AIPerf run: the checkpoint must end failed, not qualified, with the requests that
// got no server record listed by id.
func TestKilledServerFailsTheCheckpointWithEveryLostRequestNamed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pl, err := plan.New(configWith(t, map[string]string{"QUAL_ROOT": st.RepoRoot(), "QUAL_ASR_REQUESTS": "30", "QUAL_ASR_WARMUP": "1",
		"QUAL_ASR_RUNS": "1"}), stage.ASR) // one AIPerf run: the kill lands in it
	if err != nil {
		t.Fatal(err)
	}
	var row evidence.InventoryRow
	for _, r := range pl.Rows {
		if r.Profile == "sphinx-en-us" {
			row = r
		}
	}
	set := containertest.Images(t)
	env := &checkpoint.Env{Root: st.RepoRoot(), Target: pl.Target, RunDir: t.TempDir(), Stage: stage.ASR,
		Images: serving.Images{Server: set.Server, AIPerf: set.AIPerf}, NativeBin: filepath.Join(spec.HostBinDir(st.RepoRoot()), "trtmc-native"), Log: containertest.Log{T: t}}
	c, err := checkpoint.New(env, row)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Build(ctx); err != nil {
		t.Fatal(err)
	}
	stopNet, err := c.StartNetwork(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer stopNet(context.Background())
	stopSrv, err := c.StartServer(ctx)
	if stopSrv != nil {
		defer stopSrv(context.Background())
	}
	if err != nil {
		t.Fatal(err)
	}
	watch, stopWatching := context.WithCancel(ctx)
	killed := make(chan error, 1)
	go func() { killed <- killOnceServing(watch, c.Server(), 3) }()
	runErr := c.RunAIPerf(ctx)
	stopWatching()
	if err := <-killed; err != nil {
		t.Fatalf("the server was not killed inside the AIPerf run (run error: %v): %v", runErr, err)
	}
	var joinErr error
	if runErr == nil {
		_, joinErr = c.Join()
	}
	res := c.Finish(true)
	if res.Status != evidence.StatusFailed {
		t.Fatalf("a checkpoint whose server died ended %s", res.Status)
	}
	failures := strings.Join(res.Failures, "\n")
	t.Logf("run error: %v\njoin error: %v\nfailures: %s", runErr, joinErr, failures)
	if runErr == nil {
		// AIPerf finished and exported every request: the lost ones are named by id.
		if res.Join == nil || len(res.Join.UnmatchedClient) == 0 {
			t.Fatalf("no unmatched client ids reported: %+v", res.Join)
		}
		for _, id := range res.Join.UnmatchedClient {
			if !strings.Contains(failures, id) {
				t.Errorf("lost request %s is not named in the failures", id)
			}
		}
	}
}

// configWith is the configuration of this process's environment with vars set over it, read
// as the suites read theirs, without changing the process's environment (which would keep the
// test from running beside the others).
func configWith(t *testing.T, vars map[string]string) config.Config {
	t.Helper()
	environ := os.Environ()
	for k, v := range vars {
		environ = append(environ, k+"="+v)
	}
	getenv := func(k string) string {
		if v, ok := vars[k]; ok {
			return v
		}
		return os.Getenv(k)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.FromEnv(getenv, environ, wd)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// killOnceServing kills the server once it has recorded n transcriptions (AIPerf's warmup and
// its first measured requests), so that the kill lands inside the AIPerf run however long
// AIPerf's container takes to start: a fixed wait either kills the server before AIPerf sent
// anything (on a loaded machine) or waits longer than needed.
func killOnceServing(ctx context.Context, srv *serving.Server, n int) error {
	deadline := time.Now().Add(5 * time.Minute)
	for {
		recs, err := srv.Records(ctx)
		if err != nil {
			return fmt.Errorf("reading the server's records: %w", err)
		}
		if strings.Count(string(recs), `"route":"/v1/audio/transcriptions"`) >= n {
			timeout := time.Duration(0)
			return srv.Stop(context.Background(), &timeout) // SIGKILL at once: a crash, not a drain
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the server recorded no %d transcriptions within 5 minutes of AIPerf's start", n)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the AIPerf run ended before the server recorded %d transcriptions", n)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func TestEngineAndWheelhouseProblemsFailEarlyWithTheFix(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	err := images.CheckEngine(context.Background())
	if err == nil || !strings.Contains(err.Error(), "make deps") {
		t.Fatalf("unreachable engine: %v", err)
	}
	t.Setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple")
	t.Setenv("PIP_RETRIES", "0")
	t.Setenv("PIP_DEFAULT_TIMEOUT", "2")
	t.Setenv("PIP_NO_CACHE_DIR", "1")
	b := &images.Builder{Log: containertest.Log{T: t}, CacheDir: t.TempDir()}
	_, err = b.Wheelhouse(context.Background())
	if err == nil || !strings.Contains(err.Error(), "PIP_INDEX_URL") {
		t.Fatalf("missing wheelhouse with no index: %v", err)
	}
}
