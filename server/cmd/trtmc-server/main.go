// Command trtmc-server serves reference bundles over TRTMC's OpenAI-style HTTP contract.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/trtmc-qual/trtmc-qual/server"
)

const usage = `trtmc-server: serve bundles over OpenAI-style routes with TRTMC's serving contract.

Usage:
  trtmc-server --bundle X.bundle [--bundle Y.bundle ...] [flags]

Routes: POST /v1/audio/transcriptions, /v1/images/generations, /v1/chat/completions;
GET /v1/models, /v1/serving/info, /health/live, /health/ready, /metrics, /v1/artifacts/NAME.
Every response carries X-Request-ID, trtmc_timing and Server-Timing; --records writes one
JSONL line per request. SIGTERM drains in-flight requests, then flushes the records.

Flags:
`

// bundleList collects repeated --bundle flags.
type bundleList []string

func (b *bundleList) String() string     { return strings.Join(*b, ",") }
func (b *bundleList) Set(v string) error { *b = append(*b, v); return nil }

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "trtmc-server: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("trtmc-server", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(fs.Output(), usage); fs.PrintDefaults() }
	var bundles bundleList
	fs.Var(&bundles, "bundle", "bundle file to serve (repeatable); the model id is the bundle's profile")
	addr := fs.String("addr", "127.0.0.1:8000", "address to listen on (the server binds exactly this)")
	records := fs.String("records", "", "append one JSONL record per request to this file")
	lanes := fs.Int("lanes", 2, "concurrent Task calls per model")
	queue := fs.Int("queue", 64, "requests that may wait for a lane before 429 server_busy")
	maxBodyMB := fs.Int("max-body-mb", 32, "request body limit in MiB (413 beyond)")
	maxAudioMB := fs.Int("max-audio-mb", 16, "audio upload limit in MiB (413 beyond)")
	apiKeyFile := fs.String("api-key-file", "", "file holding the API key; also $TRTMC_API_KEY. Health routes stay open")
	artifactDir := fs.String("artifact-dir", "", "directory for url-format images (default: a private temp dir)")
	artifactTTL := fs.Duration("artifact-ttl", time.Hour, "how long url artifacts are served")
	publicURL := fs.String("public-url", "", "base URL for artifact links (default: from the request's Host)")
	drainTimeout := fs.Duration("drain-timeout", 60*time.Second, "how long SIGTERM waits for in-flight requests")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	key, err := apiKey(*apiKeyFile)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	srv, err := server.New(server.Config{Bundles: bundles, RecordsPath: *records, Lanes: *lanes, QueueDepth: *queue,
		MaxBodyBytes: int64(*maxBodyMB) << 20, MaxAudioBytes: int64(*maxAudioMB) << 20, APIKey: key,
		ArtifactDir: *artifactDir, ArtifactTTL: *artifactTTL, PublicURL: *publicURL, Logger: log})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		srv.Close()
		return fmt.Errorf("listen: %w", err)
	}
	httpSrv := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 30 * time.Second}
	serveErr := make(chan error, 1)
	go func() { serveErr <- httpSrv.Serve(ln) }()
	log.Info("listening", "addr", ln.Addr().String(), "bundles", len(bundles), "lanes", *lanes, "queue", *queue, "records", *records)

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	loadErr := make(chan error, 1)
	go func() { loadErr <- srv.Load() }()
	select {
	case err := <-loadErr:
		if err != nil {
			httpSrv.Close()
			srv.Close()
			return err
		}
		log.Info("ready")
	case <-ctx.Done():
		srv.Drain()
		httpSrv.Close()
		<-loadErr // a model half-loaded is closed only after its loader returns
		return srv.Close()
	}
	select {
	case <-ctx.Done():
	case err := <-serveErr:
		srv.Close()
		return fmt.Errorf("serve: %w", err)
	}
	return shutdown(httpSrv, srv, *drainTimeout, log)
}

// shutdown drains: readiness off, in-flight requests finish, then records are flushed.
func shutdown(httpSrv *http.Server, srv *server.Server, timeout time.Duration, log *slog.Logger) error {
	log.Info("draining", "timeout", timeout)
	srv.Drain()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := httpSrv.Shutdown(ctx)
	if cerr := srv.Close(); err == nil {
		err = cerr
	}
	log.Info("stopped", "err", err)
	return err
}

func apiKey(file string) (string, error) {
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("api key file: %w", err)
		}
		return strings.TrimSpace(string(data)), nil
	}
	return os.Getenv("TRTMC_API_KEY"), nil
}
