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
	st "github.com/trtmc-qual/trtmc-qual/server/servertest"
)

func TestMain(m *testing.M) {
	engine.ApplyTestcontainersDefaults()
	os.Exit(m.Run())
}

// Several runs from one Python process (run_profiles.py: AIPerf imported once, each run a fork
// into its CLI) with the suite's whole command line (spec.SetupOnlyArgs included) send exactly
// what a plain `aiperf profile` sends with AIPerf's defaults for everything that only prepares a
// run (no SetupOnlyArgs, none of aiperf.Env's settings): the same inputs.json and the same
// request payloads, every run, each run's exports complete (ready marker, W+N raw records) when
// the container packs them. Both endpoint kinds the suite's stages use are covered: without a
// tokenizer (audio_transcription) and with one (image_generation; chat builds its dataset through
// the same composer and tokenizer).
func TestRunsFromOneProcessSendWhatThePlainCLISends(t *testing.T) {
	if testing.Short() {
		t.Skip("starts containers")
	}
	ctx := context.Background()
	bundles := t.TempDir()
	set, nw, srv := containertest.StartServerWith(t, []string{st.BuildBundle(t, "sphinx", "sphinx-an4-l0", bundles), st.BuildBundle(t, "procdiff", "procdiff-small-l0", bundles)})
	for _, p := range []spec.Profile{asrProfile(srv.InternalURL()), imageProfile(srv.InternalURL())} {
		t.Run(p.EndpointType, func(t *testing.T) {
			t.Parallel() // one AIPerf container each against the one server: what is sent does not depend on timing
			res, err := aiperf.Run(ctx, set.AIPerf, p, t.TempDir(), aiperf.WithNetwork(nw), aiperf.WithTimeout(15*time.Minute))
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
		})
	}
}

// asrProfile sends two pocketsphinx clips to sphinx-an4-l0 (no tokenizer).
func asrProfile(url string) spec.Profile {
	p := spec.Profile{Model: "sphinx-an4-l0", URL: url, EndpointType: spec.AudioTranscription, RequestCount: 3, WarmupCount: 1,
		Concurrency: 2, Seed: 5, TimeoutSeconds: 120, Runs: 2, Media: map[string]string{}}
	for i, c := range []string{"/usr/share/pocketsphinx/test/data/cards/001.wav", "/usr/share/pocketsphinx/test/data/cards/002.wav"} {
		dst := fmt.Sprintf("/data/c%d.wav", i)
		p.Inputs = append(p.Inputs, map[string]any{"session_id": fmt.Sprintf("c%d", i), "audio": dst})
		p.Media[dst] = c
	}
	return p
}

// imageProfile sends two prompts with their seeds to procdiff-small-l0 as the t2i stage does
// (text, extra per row, the fixed settings as --extra-inputs; the offline tokenizer).
func imageProfile(url string) spec.Profile {
	p := spec.Profile{Model: "procdiff-small-l0", URL: url, EndpointType: spec.ImageGeneration, RequestCount: 3, WarmupCount: 1,
		Concurrency: 2, Seed: 5, TimeoutSeconds: 300, Runs: 2,
		ExtraInputs: map[string]any{"response_format": "b64_json", "size": "128x128", "num_inference_steps": 4, "guidance_scale": 3.5}}
	for i, prompt := range []string{"a lighthouse on a rocky coast at dusk", "a misty pine forest in the morning"} {
		p.Inputs = append(p.Inputs, map[string]any{"session_id": fmt.Sprintf("p%d", i), "text": prompt, "extra": map[string]any{"seed": 11 * (i + 1)}})
	}
	return p
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

// plainCLI runs `aiperf profile` itself (no run_profiles.py, no aiperf.Env) with the profile's
// arguments less spec.SetupOnlyArgs on the same network and returns the host directory holding
// its artifacts.
func plainCLI(t *testing.T, image, nw string, p spec.Profile) string {
	t.Helper()
	p.Runs = 1
	args, err := p.Args()
	if err != nil {
		t.Fatal(err)
	}
	args = withoutSetupOnlyArgs(args)
	data := t.TempDir()
	var input strings.Builder
	cmd := []string{"run", "--rm", "--network", nw, "-v", data + ":/data:ro"}
	for _, row := range p.Inputs {
		line, _ := json.Marshal(row)
		input.Write(append(line, '\n'))
	}
	for dst, src := range p.Media {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(data, strings.TrimPrefix(dst, "/data/")), b, 0o644); err != nil {
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

// withoutSetupOnlyArgs drops spec.SetupOnlyArgs from a command line (one without a tokenizer
// carries none and is returned as it is).
func withoutSetupOnlyArgs(args []string) []string {
	setup := spec.SetupOnlyArgs()
	for i := 0; i+len(setup) <= len(args); i++ {
		if slices.Equal(args[i:i+len(setup)], setup) {
			return slices.Concat(args[:i], args[i+len(setup):])
		}
	}
	return args
}
