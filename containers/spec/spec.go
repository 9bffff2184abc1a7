// Package spec is the part of the container modules that starts nothing: the AIPerf command
// line a profile renders, where the server container holds its bundles and where a checkout's
// host binaries are built. harness/plan renders
// `qual plan` with it, as the run does, without linking a container client.
package spec

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
)

// HostBinDir is where the checkout at root keeps its host binaries (qual, qual-run,
// trtmc-server, trtmc-native): inside it (build/bin, ignored by git), never in the shared cache, so that two
// checkouts qualifying at once each run and package their own sources.
func HostBinDir(root string) string { return filepath.Join(root, "build", "bin") }

// BundleDir is where the server container holds its bundles.
const BundleDir = "/bundles"

// Endpoint types of AIPerf 0.13.0 the suite uses.
const (
	AudioTranscription = "audio_transcription"
	ImageGeneration    = "image_generation"
	Chat               = "chat"
)

// OfflineTokenizer is the tokenizer the AIPerf image seeds into its HF cache (see
// make_tokenizer.py). AIPerf 0.13.0 refuses --tokenizer with audio_transcription.
const OfflineTokenizer = "trtmc-qual/byte-tokenizer"

// SetupOnlyArgs change how AIPerf 0.13.0 prepares a run with a tokenizer, never what it sends.
// With a tokenizer, AIPerf's dataset composer builds a prompt generator whatever the dataset
// (dataset/composer/base.py), and the default sonnet corpus tokenizes all 5 MB of
// generator/assets/shakespeare.txt in every run's dataset manager (generator/prompt.py,
// _initialize_corpus): ~8 CPU-s a run with the byte tokenizer, before the first request. A
// single_turn file's rows carry their own text and the generator is only handed to trace
// loaders (composer/custom.py, _create_loader_instance), so the corpus is never drawn from; the
// "random" corpus samples token ids on demand and tokenizes no file. The AIPerf container's tests
// compare what a run with these sends against a plain `aiperf profile` without them.
func SetupOnlyArgs() []string { return []string{"--prompt-corpus", "random"} }

// Profile is one AIPerf run.
type Profile struct {
	Model          string
	URL            string // as the AIPerf container reaches the server
	EndpointType   string
	Inputs         []map[string]any  // single_turn JSONL rows
	Media          map[string]string // container path -> host path, for files the rows name
	RequestCount   int
	WarmupCount    int
	Concurrency    int
	Seed           int
	TimeoutSeconds float64
	ExtraInputs    map[string]any
	APIKey         string
	// Runs > 1 runs the whole profile (warmup included, same seed) Runs times in one container,
	// each run's exports under artifacts/profile_runs/run_NNNN/ (AIPerf's own multi-run layout).
	// AIPerf 0.13.0's --num-profile-runs cannot be used: each trial re-validates a config holding
	// tokenizer options, which audio_transcription refuses ("Tokenizer options cannot be used with
	// endpoint type 'audio_transcription'"), so run-profile.sh loops over `aiperf profile` itself.
	Runs int
	// Goodput is AIPerf's --goodput SLO ("request_latency:250": ms), empty for none.
	Goodput string
}

// Args is the `aiperf profile` command line for the profile.
func (p Profile) Args() ([]string, error) {
	args := []string{"-m", p.Model, "--url", p.URL, "--endpoint-type", p.EndpointType,
		"--input-file", "/data/input.jsonl", "--custom-dataset-type", "single_turn",
		"--request-count", strconv.Itoa(p.RequestCount), "--warmup-request-count", strconv.Itoa(p.WarmupCount),
		"--concurrency", strconv.Itoa(max(1, p.Concurrency)), "--random-seed", strconv.Itoa(p.Seed),
		"--request-timeout-seconds", strconv.FormatFloat(p.TimeoutSeconds, 'f', -1, 64),
		// Server metrics stay on (AIPerf 0.13.0's default): it scrapes the server's /metrics at
		// --url during the run and writes server_metrics_export.json/.csv beside its exports.
		"--export-level", "raw", "--ui-type", "none", "--no-gpu-telemetry"}
	if p.Runs <= 1 { // several runs: run-profile.sh gives each its own --artifact-dir
		args = append(args, "--artifact-dir", "/artifacts")
	}
	if p.EndpointType != AudioTranscription {
		args = append(args, "--tokenizer", OfflineTokenizer)
		args = append(args, SetupOnlyArgs()...)
	}
	if len(p.ExtraInputs) > 0 {
		extra, err := json.Marshal(p.ExtraInputs)
		if err != nil {
			return nil, fmt.Errorf("extra inputs: %w", err)
		}
		args = append(args, "--extra-inputs", string(extra))
	}
	if p.APIKey != "" {
		args = append(args, "--api-key", p.APIKey)
	}
	if p.Goodput != "" {
		args = append(args, "--goodput", p.Goodput)
	}
	return args, nil
}
