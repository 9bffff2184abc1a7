package containers_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trtmc-qual/trtmc-qual/containers/containertest"
	"github.com/trtmc-qual/trtmc-qual/containers/images"
	"github.com/trtmc-qual/trtmc-qual/containers/spec"
	"github.com/trtmc-qual/trtmc-qual/harness/checkpoint"
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
	ctx := context.Background()
	t.Setenv("QUAL_ROOT", st.RepoRoot())
	t.Setenv("QUAL_ASR_REQUESTS", "30")
	t.Setenv("QUAL_ASR_WARMUP", "1")
	t.Setenv("QUAL_ASR_RUNS", "1") // one AIPerf run: the kill lands in it
	pl, err := plan.FromEnv(stage.ASR)
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
	go func() {
		time.Sleep(8 * time.Second) // AIPerf's container starts and sends a few requests first
		timeout := time.Duration(0)
		c.Server().Stop(context.Background(), &timeout) // SIGKILL at once: a crash, not a drain
	}()
	runErr := c.RunAIPerf(ctx)
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
