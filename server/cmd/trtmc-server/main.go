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

	"github.com/trtmc-qual/trtmc-qual/native/family"
	"github.com/trtmc-qual/trtmc-qual/server"
)

const usage = `trtmc-server: serve bundles over OpenAI-style routes with TRTMC's serving contract.

Usage:
  trtmc-server --bundle X.bundle [--bundle Y.bundle ...] [flags]

Routes: POST /v1/audio/transcriptions, /v1/images/generations, /v1/chat/completions;
GET (and HEAD) /v1/models, /v1/serving/info, /health/live, /health/ready, /metrics,
/v1/artifacts/NAME. With an API key (--api-key-file or $TRTMC_API_KEY), /metrics and
/v1/serving/info need "Authorization: Bearer KEY" like the POST routes and /v1/models;
/health/live and /health/ready stay open.

Every response carries X-Request-ID, trtmc_timing and Server-Timing; --records writes one
JSONL line per request, before any byte of its answer is sent. When a record cannot be
written the answer is 503 records_unavailable and /health/ready turns 503 until a record is
written again (trtmc_records_failed_total counts them). SIGTERM drains in-flight requests,
then flushes the records; when the drain times out, requests still waiting answer 503
shutting_down, Task calls already running finish on models that stay loaded, and the exit
status is 1. server/README.md states the request-id rule and how refusals are recorded.

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
	bodyMemoryMB := fs.Int("body-memory-mb", server.DefaultBodyMemoryBytes>>20, "request-body buffers held at once across requests, in MiB (429 server_busy beyond)")
	apiKeyFile := fs.String("api-key-file", "", "file holding the API key; also $TRTMC_API_KEY. /metrics and /v1/serving/info need it too; health routes stay open")
	artifactDir := fs.String("artifact-dir", "", "directory for url-format images (default: a private temp dir)")
	artifactTTL := fs.Duration("artifact-ttl", time.Hour, "how long url artifacts are served")
	artifactMaxMB := fs.Int("artifact-max-mb", server.DefaultArtifactMaxBytes>>20, "url artifacts kept at once, in MiB (507 artifact_quota_exceeded beyond)")
	artifactMaxFiles := fs.Int("artifact-max-files", server.DefaultArtifactMaxFiles, "url artifacts kept at once, in files (507 artifact_quota_exceeded beyond)")
	publicURL := fs.String("public-url", "", "base URL for artifact links (default: from the request's Host)")
	drainTimeout := fs.Duration("drain-timeout", 60*time.Second, "how long SIGTERM waits for in-flight requests")
	bodyTimeout := fs.Duration("body-timeout", 0, "time to receive a request body, 408 beyond (default 10s + 1s per MiB of --max-body-mb)")
	headerTimeout := fs.Duration("header-timeout", 10*time.Second, "time to receive a request's headers")
	maxHeaderKB := fs.Int("max-header-kb", 64, "request header bytes accepted (KiB), beyond which the answer is 431; net/http parses every line into a map that lives as long as the request, ~80 bytes a short line")
	writeTimeout := fs.Duration("write-timeout", server.DefaultWriteTimeout, "time an answer has to be sent; a client that does not read it loses its connection")
	idleTimeout := fs.Duration("idle-timeout", 30*time.Second, "how long an idle keep-alive connection is kept open")
	idMemory := fs.Int("request-id-memory", server.DefaultRequestIDMemory, "client X-Request-IDs remembered to refuse reuse (oldest forgotten past it)")
	gcPercent := fs.Int("gc-percent", server.DefaultGCPercent, "Go GC target percent (GOGC in the environment wins)")
	host := family.HostFlags(fs)
	memLimitMB := fs.Int("memory-limit-mb", server.DefaultMemoryLimitMB, "soft limit of the Go heap in MiB, 0 = none (GOMEMLIMIT wins)")
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
	server.TuneGC(*gcPercent, *memLimitMB)
	srv, err := server.New(server.Config{Bundles: bundles, RecordsPath: *records, Lanes: *lanes, QueueDepth: *queue,
		MaxBodyBytes: int64(*maxBodyMB) << 20, MaxAudioBytes: int64(*maxAudioMB) << 20, APIKey: key,
		ArtifactDir: *artifactDir, ArtifactTTL: *artifactTTL, PublicURL: *publicURL, Logger: log,
		ArtifactMaxBytes: int64(*artifactMaxMB) << 20, ArtifactMaxFiles: *artifactMaxFiles,
		BodyTimeout: *bodyTimeout, RequestIDMemory: *idMemory, BodyMemoryBytes: int64(*bodyMemoryMB) << 20, Host: *host,
		WriteTimeout: *writeTimeout})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		srv.Close()
		return fmt.Errorf("listen: %w", err)
	}
	// No ReadTimeout: the body's deadline is set per request and lifted before the Task call
	// (server.limitBody). IdleTimeout frees the goroutine of every idle keep-alive connection.
	// DisableGeneralOptionsHandler: "OPTIONS *" reaches the recording handler like any request.
	// srv.Listener and ConnContext: answers net/http gives before any handler are recorded too.
	httpSrv := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: *headerTimeout, IdleTimeout: *idleTimeout,
		DisableGeneralOptionsHandler: true, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		ConnContext: srv.ConnContext, MaxHeaderBytes: *maxHeaderKB << 10}
	serveErr := make(chan error, 1)
	go func() { serveErr <- httpSrv.Serve(srv.Listener(ln)) }()
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

// Bounds of the end of a drain that timed out: how long the aborted requests have to write
// their 503s, and how long Task calls still running have to return before the process exits
// with their models still loaded (never freed under them).
const (
	abortGrace = 5 * time.Second
	taskGrace  = 2 * time.Minute
)

// shutdown drains: readiness off, in-flight requests finish, then records are flushed. When
// the drain times out, the requests still in handlers answer 503 shutting_down (each with its
// record), and the exit status says the drain was cut short.
func shutdown(httpSrv *http.Server, srv *server.Server, timeout time.Duration, log *slog.Logger) error {
	log.Info("draining", "timeout", timeout)
	srv.Drain()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var err error
	if httpSrv.Shutdown(ctx) != nil {
		n := srv.Abort()
		log.Warn("drain timed out: answering the requests left with 503 shutting_down", "requests", n)
		grace, cancelGrace := context.WithTimeout(context.Background(), abortGrace)
		if httpSrv.Shutdown(grace) != nil {
			httpSrv.Close()
		}
		cancelGrace()
		err = fmt.Errorf("drain timed out after %s with %d requests in flight: those still waiting answered 503 shutting_down", timeout, n)
	}
	closeCtx, cancelClose := context.WithTimeout(context.Background(), taskGrace)
	defer cancelClose()
	err = errors.Join(err, srv.CloseContext(closeCtx))
	log.Info("stopped", "err", err)
	return err
}

func apiKey(file string) (string, error) {
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("api key file: %w", err)
		}
		key := strings.TrimSpace(string(data))
		if key == "" {
			return "", fmt.Errorf("api key file %s is empty (only whitespace): refusing to start with authentication off", file)
		}
		return key, nil
	}
	key, set := os.LookupEnv("TRTMC_API_KEY")
	if set && key != "" && strings.TrimSpace(key) == "" {
		return "", fmt.Errorf("$TRTMC_API_KEY is only whitespace: refusing to start with authentication off")
	}
	return strings.TrimSpace(key), nil
}
