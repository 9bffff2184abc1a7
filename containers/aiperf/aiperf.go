// Package aiperf is a testcontainers-go module that runs one `aiperf profile` (a pip-installed
// aiperf==0.13.0) in its own container and brings back the whole artifact directory, AIPerf's
// stdout and stderr, its exit code and its version.
package aiperf

import (
	"archive/tar"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/network"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/trtmc-qual/trtmc-qual/containers/images"
	"github.com/trtmc-qual/trtmc-qual/containers/spec"
)

// Env is the AIPerf container's environment: run-profile.sh's settings and AIPerf 0.13.0's own
// (aiperf/common/environment.py), none of which changes what a run sends or measures.
func Env(p spec.Profile) map[string]string {
	return map[string]string{"QUAL_AIPERF_VERSION": images.AIPerfVersion, "QUAL_AIPERF_RUNS": strconv.Itoa(max(1, p.Runs)),
		// AIPerf's services must register within 30 s by default; a loaded 2-core runner starting
		// several AIPerf runs misses that ("Some services failed to register within timeout").
		"AIPERF_SERVICE_REGISTRATION_TIMEOUT": "300",
		// After the last answer AIPerf waits this long (default 2 s, every run) before its final
		// scrape of the server's /metrics, for servers whose metrics lag their answers
		// (server_metrics/manager.py, _capture_profile_complete_scrape). The records manager
		// holds the results until that scrape is done. The server exports are evidence linked
		// from the report, not a claim; the reference server counts a request before its answer
		// is complete, so the final scrape after the last answer already sees every request.
		"AIPERF_SERVER_METRICS_COLLECTION_FLUSH_PERIOD": "0",
		// The timing manager and every worker wake every 0.25 s to see whether their event loop
		// lags, and only log a warning when it does: no callback is ever set
		// (common/event_loop_monitor.py; timing/manager.py, workers/worker.py). Off, they send
		// and time requests exactly as before, with fewer wake-ups competing for the CPU.
		"AIPERF_SERVICE_EVENT_LOOP_HEALTH_ENABLED": "false",
	}
}

// Result is what one run left.
type Result struct {
	Dir         string   // host directory: artifacts/, aiperf.stdout, aiperf.stderr, command.json
	ArtifactDir string   // Dir/artifacts
	ExitCode    int      // AIPerf's exit code
	Version     string   // installed aiperf version, as the container reported it
	Command     []string // the full command line
}

type options struct {
	nw       *testcontainers.DockerNetwork
	timeout  time.Duration
	progress *Progress
}

// Progress reports, while AIPerf runs, how many of its requests the server has answered: a
// long run otherwise prints nothing until it ends.
type Progress struct {
	Every time.Duration // between lines (default 10 s)
	Total int           // runs × (warmup + measured requests)
	// Done is how many inference requests of this AIPerf container the server has answered so
	// far: records of the row's route only (never a health check or a /metrics scrape).
	Done func(context.Context) (int, error)
	Logf func(format string, args ...any) // where the lines go (GinkgoWriter in the suites)
}

// WithProgress prints a line every p.Every with requests answered / total.
func WithProgress(p Progress) Option { return func(o *options) { o.progress = &p } }

// report prints progress lines until ctx ends.
func (p Progress) report(ctx context.Context, start time.Time) {
	every := p.Every
	if every <= 0 {
		every = 10 * time.Second
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			done, err := p.Done(ctx)
			elapsed := time.Since(start).Round(time.Second)
			switch {
			case ctx.Err() != nil:
				return
			case err != nil:
				p.Logf("[aiperf] %s: progress unknown (%v)", elapsed, err)
			case done > p.Total: // never above the total: the surplus is not this run's requests
				p.Logf("[aiperf] %s: %d/%d requests answered (%d more records than requests sent)", elapsed, p.Total, p.Total, done-p.Total)
			default:
				p.Logf("[aiperf] %s: %d/%d requests answered", elapsed, done, p.Total)
			}
		}
	}
}

// Option configures Run.
type Option func(*options)

// WithNetwork puts the AIPerf container on the run's network only: with an internal network it
// reaches the server and nothing else.
// ClientCPUShares is the AIPerf container's CPU weight (Docker's default is 1024).
const ClientCPUShares = 256

func WithNetwork(nw *testcontainers.DockerNetwork) Option { return func(o *options) { o.nw = nw } }

// WithTimeout bounds the whole run.
func WithTimeout(d time.Duration) Option { return func(o *options) { o.timeout = d } }

// Run runs the profile and copies everything out into outDir.
func Run(ctx context.Context, image string, p spec.Profile, outDir string, opts ...Option) (*Result, error) {
	o := options{timeout: 30 * time.Minute}
	for _, opt := range opts {
		opt(&o)
	}
	args, err := p.Args()
	if err != nil {
		return nil, err
	}
	var input strings.Builder
	for _, row := range p.Inputs {
		line, err := json.Marshal(row)
		if err != nil {
			return nil, fmt.Errorf("input row: %w", err)
		}
		input.Write(append(line, '\n'))
	}
	files := []testcontainers.ContainerFile{{Reader: strings.NewReader(input.String()), ContainerFilePath: "/data/input.jsonl", FileMode: 0o644}}
	for dst, src := range p.Media {
		files = append(files, testcontainers.ContainerFile{HostFilePath: src, ContainerFilePath: dst, FileMode: 0o644})
	}
	customizers := []testcontainers.ContainerCustomizer{
		testcontainers.WithCmd(args...),
		testcontainers.WithFiles(files...),
		testcontainers.WithEnv(Env(p)),
		testcontainers.WithWaitStrategyAndDeadline(o.timeout, wait.ForExit().WithExitTimeout(o.timeout)),
		// The client yields the CPU to the server under contention (a quarter of the default
		// weight): on a small machine AIPerf's Python services otherwise steal cycles from the Task
		// calls they measure (seen: the same 10 ms sphinx-tidigits decode taking 7-24 ms within one
		// run), and the server-side Task p50 is the figure runs and `qual compare` judge. Without
		// contention the weight changes nothing.
		testcontainers.WithHostConfigModifier(func(hc *container.HostConfig) { hc.CPUShares = ClientCPUShares }),
	}
	if o.nw != nil {
		customizers = append(customizers, network.WithNetwork([]string{"aiperf"}, o.nw))
	}
	if o.progress != nil && o.progress.Done != nil && o.progress.Logf != nil {
		progressCtx, stop := context.WithCancel(ctx)
		finished := make(chan struct{})
		go func() { defer close(finished); o.progress.report(progressCtx, time.Now()) }()
		defer func() { stop(); <-finished }() // no progress line after Run returns
	}
	ctr, err := testcontainers.Run(ctx, image, customizers...)
	if ctr != nil {
		defer ctr.Terminate(context.WithoutCancel(ctx))
	}
	if err != nil {
		return nil, fmt.Errorf("run aiperf container: %w", err)
	}
	res := &Result{Dir: outDir, ArtifactDir: filepath.Join(outDir, "artifacts"), Command: append([]string{"aiperf", "profile"}, args...)}
	if err := collect(ctx, ctr, res); err != nil {
		return res, err
	}
	if res.Version != images.AIPerfVersion {
		return res, fmt.Errorf("the AIPerf container runs aiperf %q; the suite requires %s", res.Version, images.AIPerfVersion)
	}
	return res, nil
}

// collect copies /out from the exited container.
func collect(ctx context.Context, ctr *testcontainers.DockerContainer, res *Result) error {
	if err := os.MkdirAll(res.ArtifactDir, 0o755); err != nil {
		return err
	}
	read := func(name string) ([]byte, error) {
		rc, err := ctr.CopyFileFromContainer(ctx, "/out/"+name)
		if err != nil {
			return nil, fmt.Errorf("copy /out/%s from the AIPerf container: %w", name, err)
		}
		defer rc.Close()
		return io.ReadAll(rc)
	}
	for _, name := range []string{"aiperf.stdout", "aiperf.stderr"} {
		data, err := read(name)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(res.Dir, name), data, 0o644); err != nil {
			return err
		}
	}
	code, err := read("exit_code")
	if err != nil {
		return err
	}
	if res.ExitCode, err = strconv.Atoi(strings.TrimSpace(string(code))); err != nil {
		return fmt.Errorf("AIPerf exit code %q: %w", code, err)
	}
	version, err := read("aiperf_version")
	if err != nil {
		return err
	}
	res.Version = strings.TrimSpace(string(version))
	archive, err := read("artifacts.tar")
	if err != nil {
		return err
	}
	if err := untar(strings.NewReader(string(archive)), res.ArtifactDir); err != nil {
		return err
	}
	cmd, _ := json.MarshalIndent(map[string]any{"command": res.Command, "exit_code": res.ExitCode, "aiperf_version": res.Version}, "", " ")
	return os.WriteFile(filepath.Join(res.Dir, "command.json"), cmd, 0o644)
}

// untar extracts regular files and directories, refusing paths that leave dst.
func untar(r io.Reader, dst string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read artifacts archive: %w", err)
		}
		target := filepath.Join(dst, filepath.Clean("/"+h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			f.Close()
			if err != nil {
				return err
			}
		}
	}
}
