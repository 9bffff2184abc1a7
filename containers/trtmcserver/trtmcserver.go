// Package trtmcserver is a testcontainers-go module for a model server that keeps TRTMC's
// serving contract: the reference trtmc-server image by default, or a TRTMC serving image with
// its own command. Run starts it and waits for /health/ready.
package trtmcserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"

	"github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/container"
	"github.com/testcontainers/testcontainers-go"
	tcexec "github.com/testcontainers/testcontainers-go/exec"
	"github.com/testcontainers/testcontainers-go/network"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/trtmc-qual/trtmc-qual/containers/gpu"
	"github.com/trtmc-qual/trtmc-qual/containers/spec"
)

// Paths inside the container.
const (
	Port        = "8000/tcp"
	DataDir     = "/data"
	RecordsPath = "/records/records.jsonl"
	apiKeyPath  = "/tmp/qual-api-key"
)

type options struct {
	bundles        []string
	files          []testcontainers.ContainerFile
	lanes, queue   int
	apiKey         string
	env            map[string]string
	gpu            gpu.Request
	nw             *testcontainers.DockerNetwork
	alias          string
	startupTimeout time.Duration
	command        []string
	entrypoint     []string
	binds          []string // host:container:ro
	idle           bool     // a container of the image that serves nothing (native runs are exec'd in it)
}

// Option configures Run. It is a testcontainers.ContainerCustomizer, in the style of the
// testcontainers-go modules: module options and generic customizers (testcontainers.WithLabels,
// ...) go to Run in one list; Run applies the module's options itself and passes the others on.
type Option func(*options)

// Customize does nothing to the request: Run has applied the option before building it.
func (Option) Customize(*testcontainers.GenericContainerRequest) error { return nil }

func defaultOptions() options {
	return options{lanes: 2, queue: 64, env: map[string]string{}, gpu: gpu.Request{Mode: "none"}, alias: "trtmc-server", startupTimeout: 5 * time.Minute}
}

// apply splits Run's arguments into the module's options, applied over the defaults, and the
// generic customizers, kept in order.
func apply(opts []testcontainers.ContainerCustomizer) (options, []testcontainers.ContainerCustomizer) {
	o := defaultOptions()
	var rest []testcontainers.ContainerCustomizer
	for _, opt := range opts {
		if mo, ok := opt.(Option); ok {
			mo(&o)
		} else {
			rest = append(rest, opt)
		}
	}
	return o, rest
}

// commandLine is the server's command line and the files copied in: the API key file and the
// caller's files; each bundle is served with --bundle from /bundles, where mounts puts it. A
// WithCommand replaces the reference server's command line; the files are copied all the same.
func (o options) commandLine() (args []string, files []testcontainers.ContainerFile, bundles map[string]string) {
	files = append(files, o.files...)
	bundles = map[string]string{}
	args = []string{"--addr", "0.0.0.0:8000", "--records", RecordsPath, "--lanes", fmt.Sprint(o.lanes), "--queue", fmt.Sprint(o.queue)}
	for _, b := range o.bundles {
		dst := path.Join(spec.BundleDir, path.Base(b))
		bundles[b] = dst
		args = append(args, "--bundle", dst)
	}
	if o.apiKey != "" {
		files = append(files, testcontainers.ContainerFile{Reader: strings.NewReader(o.apiKey), ContainerFilePath: apiKeyPath, FileMode: 0o644})
		args = append(args, "--api-key-file", apiKeyPath)
	}
	if o.command != nil {
		args = o.command
	}
	return args, files, bundles
}

// mounts are the container's bind mounts: each bundle read-only at /bundles/<name>, then the
// caller's directories. A bundle is never copied: a 30B-parameter model's is ~100 GB, and a copy
// would be its third on disk (the gate's, the served one, the container's layer); read-only, the
// server cannot change the gated file.
func (o options) mounts() []string {
	var binds []string
	for _, b := range o.bundles {
		binds = append(binds, b+":"+path.Join(spec.BundleDir, path.Base(b))+":ro")
	}
	return append(binds, o.binds...)
}

// WithBundles mounts bundle files read-only into /bundles and serves each.
func WithBundles(hostPaths ...string) Option {
	return func(o *options) { o.bundles = append(o.bundles, hostPaths...) }
}

// WithFile copies a host file into the container (clips for native runs go under /data).
func WithFile(hostPath, containerPath string) Option {
	return func(o *options) {
		o.files = append(o.files, testcontainers.ContainerFile{HostFilePath: hostPath, ContainerFilePath: containerPath, FileMode: 0o644})
	}
}

// WithLanes sets concurrent Task calls per model and the queue bound.
func WithLanes(lanes, queue int) Option { return func(o *options) { o.lanes, o.queue = lanes, queue } }

// WithAPIKey turns on bearer-key auth.
func WithAPIKey(key string) Option { return func(o *options) { o.apiKey = key } }

// WithEnv adds environment variables.
func WithEnv(env map[string]string) Option {
	return func(o *options) {
		for k, v := range env {
			o.env[k] = v
		}
	}
}

// WithGPU asks for GPU passthrough ("none", "all", "auto" or device ids).
func WithGPU(r gpu.Request) Option { return func(o *options) { o.gpu = r } }

// WithNetwork attaches the container to a per-run network under an alias.
func WithNetwork(nw *testcontainers.DockerNetwork, alias string) Option {
	return func(o *options) { o.nw, o.alias = nw, alias }
}

// WithStartupTimeout bounds the wait for readiness (model loading can be slow).
func WithStartupTimeout(d time.Duration) Option { return func(o *options) { o.startupTimeout = d } }

// WithCommand replaces the reference server's command line (for a TRTMC serving image).
func WithCommand(args ...string) Option { return func(o *options) { o.command = args } }

// WithEntrypoint replaces the image's entrypoint (a TRTMC serving command starts with its
// interpreter, not with trtmc-server).
func WithEntrypoint(args ...string) Option { return func(o *options) { o.entrypoint = args } }

// WithReadOnlyDir bind-mounts a host directory read-only at the same path in the container (a
// TRTMC checkout the serving command and native runs name by host paths).
func WithReadOnlyDir(dir string) Option {
	return func(o *options) { o.binds = append(o.binds, dir+":"+dir+":ro") }
}

// WithScratch bind-mounts a writable host directory at containerDir: files the server keeps
// there (TRTMC's image artifacts, answered as file:// URLs) are readable on the host while it
// runs and stay after it stops. The directory is made writable for the image's user.
func WithScratch(hostDir, containerDir string) Option {
	return func(o *options) { o.binds = append(o.binds, hostDir+":"+containerDir+":rw") }
}

// RunIdle starts a container of the same image with the same files, mounts, environment and GPU
// as Run would, serving nothing: the native twins are exec'd in it after the server stopped, so a
// model is never held in GPU memory twice (a serving worker and a native run of a ~110 GB
// FLUX.2-dev bundle do not fit one H200 together). The image needs a sleep binary.
func RunIdle(ctx context.Context, image string, opts ...testcontainers.ContainerCustomizer) (*Container, error) {
	return Run(ctx, image, append(opts, Option(func(o *options) { o.idle = true }))...)
}

// Container is a running server.
type Container struct {
	*testcontainers.DockerContainer
	alias   string
	bundles map[string]string // host path -> container path
	GPU     gpu.Decision
}

// BundlePath is where a host bundle is mounted in the container.
func (c *Container) BundlePath(hostPath string) string { return c.bundles[hostPath] }

// Run starts the server image and waits until /health/ready answers 200.
func Run(ctx context.Context, image string, opts ...testcontainers.ContainerCustomizer) (*Container, error) {
	o, rest := apply(opts)
	args, files, bundles := o.commandLine()
	c := &Container{alias: o.alias, bundles: bundles}
	hasNvidia := false
	if o.gpu.Mode != "none" {
		var err error
		if hasNvidia, err = gpu.EngineHasNvidia(ctx); err != nil {
			return nil, err
		}
	}
	decision, err := gpu.Decide(o.gpu, hasNvidia)
	if err != nil {
		return nil, err
	}
	c.GPU = decision
	customizers := []testcontainers.ContainerCustomizer{
		testcontainers.WithFiles(files...),
		testcontainers.WithEnv(o.env),
		testcontainers.WithHostConfigModifier(func(hc *container.HostConfig) {
			hc.DeviceRequests = decision.Requests
			hc.Binds = append(hc.Binds, o.mounts()...)
		}),
	}
	if o.idle {
		customizers = append(customizers, testcontainers.WithEntrypoint("sleep"), testcontainers.WithCmd("infinity"))
	} else {
		customizers = append(customizers, testcontainers.WithCmd(args...), testcontainers.WithExposedPorts(Port),
			// An HTTP probe from the host: it needs no shell in the image (TRTMC's may have none).
			testcontainers.WithWaitStrategyAndDeadline(o.startupTimeout, wait.ForHTTP("/health/ready").WithPort(Port).
				WithStartupTimeout(o.startupTimeout).WithPollInterval(200*time.Millisecond)))
	}
	if o.nw != nil && !o.idle {
		customizers = append(customizers, network.WithNetwork([]string{o.alias}, o.nw), network.WithBridgeNetwork())
	}
	if o.entrypoint != nil && !o.idle {
		customizers = append(customizers, testcontainers.WithEntrypoint(o.entrypoint...))
	}
	customizers = append(customizers, rest...)
	ctr, err := testcontainers.Run(ctx, image, customizers...)
	c.DockerContainer = ctr
	if err != nil {
		return c, fmt.Errorf("start %s: %w", image, err)
	}
	return c, nil
}

// BaseURL is the server's address from the host.
func (c *Container) BaseURL(ctx context.Context) (string, error) {
	ep, err := c.PortEndpoint(ctx, Port, "http")
	if err != nil {
		return "", fmt.Errorf("server endpoint: %w", err)
	}
	return ep, nil
}

// InternalURL is the server's address from other containers on the run's network.
func (c *Container) InternalURL() string { return "http://" + c.alias + ":8000" }

// ServingInfo reads /v1/serving/info.
func (c *Container) ServingInfo(ctx context.Context, apiKey string) (contract.ServingInfo, error) {
	var info contract.ServingInfo
	return info, c.GetJSON(ctx, "/v1/serving/info", apiKey, &info)
}

// GetJSON decodes the 200 answer of GET path into v (a TRTMC server's own shapes, for one).
func (c *Container) GetJSON(ctx context.Context, path, apiKey string, v any) error {
	base, err := c.BaseURL(ctx)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
	if err != nil {
		return err
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d", path, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	return nil
}

// Records copies the records JSONL out (works while running and after the container stopped).
// No file yet is no record yet: TRTMC's app creates it at its first record (app.py Records
// makes only the directory), so before any request there is nothing to copy.
func (c *Container) Records(ctx context.Context) ([]byte, error) {
	rc, err := c.CopyFileFromContainer(ctx, RecordsPath)
	if err != nil && (errdefs.IsNotFound(err) || strings.Contains(err.Error(), "Could not find the file")) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("copy records: %w", err)
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// LogText returns the container's stdout and stderr.
func (c *Container) LogText(ctx context.Context) (string, error) {
	rc, err := c.Logs(ctx)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	return string(data), err
}

// ExecOutput runs a command in the container and returns its exit code and combined output
// (the native runs of the suite go through here: trtmc-native in the server image).
func (c *Container) ExecOutput(ctx context.Context, cmd ...string) (int, string, error) {
	code, r, err := c.Exec(ctx, cmd, tcexec.Multiplexed())
	if err != nil {
		return code, "", fmt.Errorf("exec %v: %w", cmd, err)
	}
	data, err := io.ReadAll(r)
	return code, string(data), err
}
