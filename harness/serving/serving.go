// Package serving is the container side of a checkpoint: the run's private network, the server
// container started on the exact bundle, and AIPerf run against it in its own container, with
// its exports read back. The checkpoint flow says what to start; this package knows how
// (testcontainers-go modules under containers/).
package serving

import (
	"context"
	"fmt"
	"time"

	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/network"

	"github.com/trtmc-qual/trtmc-qual/containers/aiperf"
	"github.com/trtmc-qual/trtmc-qual/containers/gpu"
	"github.com/trtmc-qual/trtmc-qual/containers/spec"
	"github.com/trtmc-qual/trtmc-qual/containers/trtmcserver"
	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
)

// Alias is the server's name on the run's network.
const Alias = "trtmc-server"

// Images are the image references a run serves and measures with (containers/images builds
// them; a TRTMC target may name its own server image).
type Images struct{ Server, AIPerf string }

// Network is a run's private network: internal, so AIPerf reaches only the server.
type Network struct{ nw *testcontainers.DockerNetwork }

// NewNetwork creates it.
func NewNetwork(ctx context.Context) (*Network, error) {
	nw, err := network.New(ctx, network.WithInternal())
	if err != nil {
		return nil, fmt.Errorf("create network: %w", err)
	}
	return &Network{nw: nw}, nil
}

// Remove removes the network.
func (n *Network) Remove(ctx context.Context) error { return n.nw.Remove(ctx) }

// Spec is how the server container starts.
type Spec struct {
	Image            string
	Bundle           string // host path of the bundle served
	GPU              string // none | all | auto | ids
	Lanes, Queue     int
	Env              map[string]string
	Startup          time.Duration // 0: the module's default
	Entrypoint       string        // "" keeps the image's
	Command          []string      // empty: the reference server's own arguments
	ReadOnlyDir      string        // a host directory mounted read-only at the same path (a TRTMC checkout)
	ScratchDir       string        // host directory mounted at ScratchContainer ("" for none)
	ScratchContainer string        // the server's --scratch inside the container
	Files            []File        // copied in, in order
}

// File is a host file copied into the server container.
type File struct{ Host, Container string }

// Server is the running server container.
type Server struct{ *trtmcserver.Container }

// Start starts the server on n. A server that started and then failed its wait is returned
// with the error, so its log can still be kept.
func (n *Network) Start(ctx context.Context, s Spec) (*Server, error) {
	opts, err := s.options()
	if err != nil {
		return nil, err
	}
	ctr, err := trtmcserver.Run(ctx, s.Image, append(opts, trtmcserver.WithNetwork(n.nw, Alias))...)
	if ctr == nil {
		return nil, err
	}
	return &Server{ctr}, err
}

// StartNative starts a container of the server's image with the server's files, mounts and GPU,
// serving nothing and on no network: the native twins run in it once the server has stopped.
func StartNative(ctx context.Context, s Spec) (*Server, error) {
	opts, err := s.options()
	if err != nil {
		return nil, err
	}
	ctr, err := trtmcserver.RunIdle(ctx, s.Image, opts...)
	if ctr == nil {
		return nil, err
	}
	return &Server{ctr}, err
}

// options are the container options of a Spec, shared by the server and the native container.
func (s Spec) options() ([]testcontainers.ContainerCustomizer, error) {
	req, err := gpu.Parse(s.GPU)
	if err != nil {
		return nil, err
	}
	opts := []testcontainers.ContainerCustomizer{trtmcserver.WithBundles(s.Bundle),
		trtmcserver.WithGPU(req), trtmcserver.WithLanes(max(1, s.Lanes), max(1, s.Queue)), trtmcserver.WithEnv(s.Env)}
	if s.Startup > 0 {
		opts = append(opts, trtmcserver.WithStartupTimeout(s.Startup))
	}
	if s.Entrypoint != "" {
		opts = append(opts, trtmcserver.WithEntrypoint(s.Entrypoint))
	}
	if s.ReadOnlyDir != "" {
		opts = append(opts, trtmcserver.WithReadOnlyDir(s.ReadOnlyDir))
	}
	if len(s.Command) > 0 {
		opts = append(opts, trtmcserver.WithCommand(s.Command...))
	}
	if s.ScratchDir != "" {
		opts = append(opts, trtmcserver.WithScratch(s.ScratchDir, s.ScratchContainer))
	}
	for _, f := range s.Files {
		opts = append(opts, trtmcserver.WithFile(f.Host, f.Container))
	}
	return opts, nil
}

// Terminate stops and removes the server container.
func (s *Server) Terminate(ctx context.Context) error {
	if s == nil || s.Container == nil || s.DockerContainer == nil {
		return nil
	}
	return testcontainers.TerminateContainer(s.Container)
}

// Discard stops and removes the native twins' container at once. It serves nothing and every
// native run in it was exec'd to completion before; its `sleep infinity` (PID 1) ignores
// SIGTERM, so a normal stop waited Docker's 10 s grace before the SIGKILL, every row.
func (s *Server) Discard() error {
	if s == nil || s.Container == nil || s.DockerContainer == nil {
		return nil
	}
	return testcontainers.TerminateContainer(s.Container, testcontainers.StopTimeout(0))
}

// Running says whether a container was started.
func (s *Server) Running() bool { return s != nil && s.Container != nil && s.DockerContainer != nil }

// AIPerfRun is one AIPerf container's outcome: what ran, and, when it exited 0, every run's
// exports on their own (for statistics over runs) and together (for the join).
type AIPerfRun struct {
	*aiperf.Result
	Runs    []aiperfexport.Exports
	Exports aiperfexport.Exports
}

// RunAIPerf runs profile p on n from image, writing its artifacts under dir; done counts the
// requests answered so far (progress every few seconds through logf, out of total). limit bounds
// the AIPerf container's whole run (0: aiperf.Run's default); a row's limit is the target's
// (Target.Limits), which may be hours for a large model's images.
func (n *Network) RunAIPerf(ctx context.Context, image string, p spec.Profile, dir string, total int,
	done func(context.Context) (int, error), logf func(string, ...any), limit time.Duration) (*AIPerfRun, error) {
	opts := []aiperf.Option{aiperf.WithNetwork(n.nw), aiperf.WithProgress(aiperf.Progress{Total: total, Done: done, Logf: logf})}
	if limit > 0 {
		opts = append(opts, aiperf.WithTimeout(limit))
	}
	res, err := aiperf.Run(ctx, image, p, dir, opts...)
	if res == nil {
		return nil, err
	}
	return &AIPerfRun{Result: res}, err
}

// ReadExports reads back the exports of every run of an AIPerf container that exited 0.
func (r *AIPerfRun) ReadExports() error {
	runs, err := aiperfexport.ReadRuns(r.ArtifactDir)
	if err != nil {
		return err
	}
	r.Runs, r.Exports = runs, aiperfexport.Merge(r.ArtifactDir, runs)
	return nil
}
