package containers_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"

	"github.com/trtmc-qual/trtmc-qual/containers/aiperf"
	"github.com/trtmc-qual/trtmc-qual/containers/containertest"
	"github.com/trtmc-qual/trtmc-qual/containers/engine"
	"github.com/trtmc-qual/trtmc-qual/containers/spec"
	"github.com/trtmc-qual/trtmc-qual/containers/trtmcserver"
	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	st "github.com/trtmc-qual/trtmc-qual/server/servertest"
)

func TestMain(m *testing.M) {
	engine.ApplyTestcontainersDefaults()
	os.Exit(m.Run())
}

// TestAIPerfAgainstTheServerOnAnInternalNetwork starts trtmc-server with the sphinx-en-us bundle
// and AIPerf on a network with no route out, sends the pinned clips with warmup, and requires a
// complete artifact directory whose every raw record's X-Request-ID is in the server's records.
// Each container test has its own network and server, and waits mostly on containers and
// AIPerf's own start and shutdown: they run at once.
func TestAIPerfAgainstTheServerOnAnInternalNetwork(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	set, nw, srv := containertest.StartServer(t, "sphinx-en-us")
	info, err := srv.ServingInfo(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	set2, err := dataset.ReadASR(filepath.Join(st.RepoRoot(), "golden", "asr", "sphinx-en-us", "dataset.json"))
	if err != nil {
		t.Fatal(err)
	}
	clips, err := set2.Materialize(st.RepoRoot(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := spec.Profile{Model: "sphinx-en-us", URL: srv.InternalURL(), EndpointType: spec.AudioTranscription,
		RequestCount: len(clips), WarmupCount: 2, Concurrency: 2, Seed: 1, TimeoutSeconds: 120, Media: map[string]string{}}
	for _, c := range clips {
		dst := "/data/" + c.ID + ".wav"
		p.Inputs = append(p.Inputs, map[string]any{"session_id": c.ID, "audio": dst})
		p.Media[dst] = c.Path
	}
	res, err := aiperf.Run(ctx, set.AIPerf, p, t.TempDir(), aiperf.WithNetwork(nw), aiperf.WithTimeout(10*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 {
		stderr, _ := os.ReadFile(filepath.Join(res.Dir, "aiperf.stderr"))
		t.Fatalf("aiperf exit %d: %s", res.ExitCode, stderr)
	}
	for _, f := range []string{"profile_export_raw.jsonl", "profile_export.jsonl", "profile_export_aiperf.json", "inputs.json", ".aiperf_results_ready.json"} {
		if _, err := os.Stat(filepath.Join(res.ArtifactDir, f)); err != nil {
			t.Errorf("artifact %s missing: %v", f, err)
		}
	}
	exports, err := aiperfexport.Read(res.ArtifactDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(exports.Raw) != len(clips)+2 {
		t.Fatalf("%d raw records, want %d measured + 2 warmup", len(exports.Raw), len(clips))
	}
	recs, err := srv.Records(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range exports.Raw {
		id := r.HeaderRequestID()
		if id == "" || !strings.Contains(string(recs), `"request_id":"`+id+`"`) || r.Status != 200 {
			t.Errorf("raw record line %d (id %q, status %d) has no server record", r.Line, id, r.Status)
		}
	}
	t.Logf("aiperf %s: %d raw records joined; served bundle %s", res.Version, len(exports.Raw), info.Models[0].BundleSHA256)
	proveNoOutsideNetwork(t, set.AIPerf, nw)
}

// proveNoOutsideNetwork runs the AIPerf image on the same internal network: the server answers,
// a public registry host does not resolve or connect.
func proveNoOutsideNetwork(t *testing.T, image string, nw *testcontainers.DockerNetwork) {
	t.Helper()
	probe := `import socket, urllib.request
print("server", urllib.request.urlopen("http://trtmc-server:8000/health/ready", timeout=10).status)
try:
    socket.create_connection(("pypi.org", 443), timeout=5)
    print("outside reachable")
except OSError as e:
    print("outside unreachable:", type(e).__name__)`
	out, err := exec.Command("docker", "run", "--rm", "--network", nw.Name, "--entrypoint", "python", image, "-c", probe).CombinedOutput()
	if err != nil {
		t.Fatalf("network probe: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "server 200") || !strings.Contains(string(out), "outside unreachable") {
		t.Fatalf("the AIPerf network is not cut off from the outside:\n%s", out)
	}
	t.Logf("network probe: %s", strings.TrimSpace(string(out)))
}

// TestAIPerfSendsTheAPIKey: with auth on, AIPerf's --api-key reaches the server as a bearer
// token, every request is served and recorded; without the key the server answers 401.
func TestAIPerfSendsTheAPIKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	set, nw, srv := containertest.StartServer(t, "sphinx-an4-l0", trtmcserver.WithAPIKey("qual-secret"))
	if _, err := srv.ServingInfo(ctx, ""); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("serving info without the key: %v", err)
	}
	clip := "/usr/share/pocketsphinx/test/data/cards/001.wav"
	p := spec.Profile{Model: "sphinx-an4-l0", URL: srv.InternalURL(), EndpointType: spec.AudioTranscription, RequestCount: 3, WarmupCount: 1,
		Concurrency: 1, TimeoutSeconds: 60, APIKey: "qual-secret", Inputs: []map[string]any{{"session_id": "c1", "audio": "/data/c1.wav"}},
		Media: map[string]string{"/data/c1.wav": clip}}
	res, err := aiperf.Run(ctx, set.AIPerf, p, t.TempDir(), aiperf.WithNetwork(nw))
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("aiperf with the key: %v (exit %v)", err, res)
	}
	exports, err := aiperfexport.Read(res.ArtifactDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range exports.Raw {
		if r.Status != 200 {
			t.Errorf("request %s: status %d", r.HeaderRequestID(), r.Status)
		}
	}
	if len(exports.Raw) != 4 {
		t.Fatalf("%d raw records, want 4", len(exports.Raw))
	}
}
