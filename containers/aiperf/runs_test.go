package aiperf_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trtmc-qual/trtmc-qual/containers/aiperf"
	"github.com/trtmc-qual/trtmc-qual/containers/containertest"
	"github.com/trtmc-qual/trtmc-qual/containers/engine"
	"github.com/trtmc-qual/trtmc-qual/containers/spec"
	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
)

func TestMain(m *testing.M) {
	engine.ApplyTestcontainersDefaults()
	os.Exit(m.Run())
}

// Several runs from one Python process (run_profiles.py: AIPerf imported once, each run a fork
// into its CLI) send exactly what a plain `aiperf profile` with the same arguments sends: the
// same inputs.json and the same request payloads, every run, each run's exports complete (ready
// marker, W+N raw records) when the container packs them.
func TestRunsFromOneProcessSendWhatThePlainCLISends(t *testing.T) {
	if testing.Short() {
		t.Skip("starts containers")
	}
	ctx := context.Background()
	set, nw, srv := containertest.StartServer(t, "sphinx-an4-l0")
	clips := []string{"/usr/share/pocketsphinx/test/data/cards/001.wav", "/usr/share/pocketsphinx/test/data/cards/002.wav"}
	p := spec.Profile{Model: "sphinx-an4-l0", URL: srv.InternalURL(), EndpointType: spec.AudioTranscription, RequestCount: 3, WarmupCount: 1,
		Concurrency: 2, Seed: 5, TimeoutSeconds: 120, Runs: 2, Media: map[string]string{}}
	for i, c := range clips {
		dst := fmt.Sprintf("/data/c%d.wav", i)
		p.Inputs = append(p.Inputs, map[string]any{"session_id": fmt.Sprintf("c%d", i), "audio": dst})
		p.Media[dst] = c
	}
	res, err := aiperf.Run(ctx, set.AIPerf, p, t.TempDir(), aiperf.WithNetwork(nw), aiperf.WithTimeout(10*time.Minute))
	if err != nil || res.ExitCode != 0 {
		stderr := ""
		if res != nil {
			b, _ := os.ReadFile(filepath.Join(res.Dir, "aiperf.stderr"))
			stderr = string(b)
		}
		t.Fatalf("aiperf runs: %v (result %+v)\n%s", err, res, stderr)
	}
	plain := plainCLI(t, set.AIPerf, nw.Name, p)
	want := sentBy(t, plain)
	for n := 1; n <= p.Runs; n++ {
		dir := filepath.Join(res.ArtifactDir, "profile_runs", fmt.Sprintf("run_%04d", n))
		if _, err := os.Stat(filepath.Join(dir, ".aiperf_results_ready.json")); err != nil {
			t.Errorf("run %d: no ready marker: %v", n, err)
		}
		got := sentBy(t, dir)
		if got.inputs != want.inputs {
			t.Errorf("run %d: inputs.json %s, the plain CLI's %s", n, got.inputs, want.inputs)
		}
		if len(got.payloads) != p.WarmupCount+p.RequestCount || !slices.Equal(got.payloads, want.payloads) {
			t.Errorf("run %d sent payloads %v, the plain CLI %v", n, got.payloads, want.payloads)
		}
	}
}

type sent struct {
	inputs   string   // sha256 of inputs.json
	payloads []string // sha256 of each raw record's request payload, sorted
}

func sentBy(t *testing.T, dir string) sent {
	t.Helper()
	in, err := os.ReadFile(filepath.Join(dir, "inputs.json"))
	if err != nil {
		t.Fatal(err)
	}
	exports, err := aiperfexport.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := sent{inputs: fmt.Sprintf("%x", sha256.Sum256(in))}
	for _, r := range exports.Raw {
		b, err := json.Marshal(r.Payload) // map keys sorted: the same payload, the same bytes
		if err != nil {
			t.Fatalf("%s line %d: payload: %v", dir, r.Line, err)
		}
		s.payloads = append(s.payloads, fmt.Sprintf("%x", sha256.Sum256(b)))
	}
	slices.Sort(s.payloads)
	return s
}

// plainCLI runs `aiperf profile` itself (no run_profiles.py) with the profile's arguments on the
// same network and returns the host directory holding its artifacts.
func plainCLI(t *testing.T, image, nw string, p spec.Profile) string {
	t.Helper()
	p.Runs = 1
	args, err := p.Args()
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	var input strings.Builder
	cmd := []string{"run", "--rm", "--network", nw, "-v", data + ":/data:ro"}
	for i, row := range p.Inputs {
		line, _ := json.Marshal(row)
		input.Write(append(line, '\n'))
		src := p.Media[fmt.Sprint(row["audio"])]
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(data, fmt.Sprintf("c%d.wav", i)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(data, "input.jsonl"), []byte(input.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := os.Chmod(out, 0o777); err != nil { // the image runs as its own user
		t.Fatal(err)
	}
	cmd = append(cmd, "-v", out+":/host", "--entrypoint", "sh", image, "-c",
		`aiperf profile "$@" >/dev/null && cp -r /artifacts/. /host/`, "sh")
	cmd = append(cmd, args...)
	if b, err := exec.Command("docker", cmd...).CombinedOutput(); err != nil {
		t.Fatalf("plain aiperf profile: %v\n%s", err, b)
	}
	return out
}
