package server

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/trtmc-qual/trtmc-qual/native/family"
	"github.com/trtmc-qual/trtmc-qual/native/registry"
)

// Config is everything trtmc-server is told on its command line.
type Config struct {
	Bundles       []string      // bundle files to serve; each model is named by its profile
	RecordsPath   string        // JSONL file, one record per request ("" = no records)
	Lanes         int           // concurrent Task calls per model
	QueueDepth    int           // requests that may wait for a lane before 429
	MaxBodyBytes  int64         // request body limit (413 beyond it)
	MaxAudioBytes int64         // upload limit for the audio file part
	APIKey        string        // when set, every route but health needs "Authorization: Bearer KEY"
	ArtifactDir   string        // where url-format images are kept
	ArtifactTTL   time.Duration // how long url artifacts are served
	PublicURL     string        // base of artifact urls (default: from the request's Host)
	Logger        *slog.Logger
}

// Server serves the models of its bundles.
type Server struct {
	cfg       Config
	models    map[string]*servedModel
	order     []string
	records   *recordWriter
	inflight  *inFlight
	metrics   *metrics
	artifacts *artifactStore
	mu        sync.RWMutex // guards models and order, set once by Load
	ready     atomic.Bool
	draining  atomic.Bool
	log       *slog.Logger
}

// New prepares a server: records file, artifact store, metrics. It serves health at once and
// turns ready only after Load has loaded every bundle.
func New(cfg Config) (*Server, error) {
	if len(cfg.Bundles) == 0 {
		return nil, fmt.Errorf("no bundles to serve (pass --bundle)")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	cfg.Lanes = max(1, cfg.Lanes)
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = 32 << 20
	}
	if cfg.MaxAudioBytes <= 0 || cfg.MaxAudioBytes > cfg.MaxBodyBytes {
		cfg.MaxAudioBytes = cfg.MaxBodyBytes
	}
	if cfg.ArtifactTTL <= 0 {
		cfg.ArtifactTTL = time.Hour
	}
	s := &Server{cfg: cfg, models: map[string]*servedModel{}, inflight: newInFlight(), log: cfg.Logger}
	var err error
	if s.records, err = openRecords(cfg.RecordsPath); err != nil {
		return nil, err
	}
	if s.artifacts, err = newArtifactStore(cfg.ArtifactDir, cfg.ArtifactTTL); err != nil {
		s.records.close()
		return nil, err
	}
	s.metrics = newMetrics(s.queueDepths)
	return s, nil
}

// Load loads every bundle through its family; the server is ready when all are loaded. Call it
// once, before or after the listener starts.
func (s *Server) Load() error {
	models := map[string]*servedModel{}
	var order []string
	for _, path := range s.cfg.Bundles {
		start := time.Now()
		l, err := registry.Load(path, family.LoadOptions{Lanes: s.cfg.Lanes})
		if err != nil {
			closeModels(models)
			return fmt.Errorf("load %s: %w", path, err)
		}
		m := newServedModel(path, l.Bundle, l.Model, s.cfg.Lanes, s.cfg.QueueDepth)
		if _, dup := models[m.name]; dup {
			l.Model.Close()
			closeModels(models)
			return fmt.Errorf("two bundles serve the profile %q", m.name)
		}
		models[m.name] = m
		order = append(order, m.name)
		s.log.Info("loaded bundle", "model", m.name, "path", path, "sha256", l.Bundle.SHA256, "seconds", time.Since(start).Seconds())
	}
	sort.Strings(order)
	s.mu.Lock()
	s.models, s.order = models, order
	s.mu.Unlock()
	s.ready.Store(true)
	return nil
}

func closeModels(models map[string]*servedModel) {
	for _, m := range models {
		m.model.Close()
	}
}

// Drain marks the server as shutting down: readiness turns false and new work gets 503, while
// requests already in a handler finish (http.Server.Shutdown waits for them).
func (s *Server) Drain() {
	s.ready.Store(false)
	s.draining.Store(true)
}

// Close unloads the models and flushes the records file. Call it after the HTTP server has
// shut down, so that every in-flight request has written its record.
func (s *Server) Close() error {
	s.ready.Store(false)
	var errs []error
	s.mu.Lock()
	for _, m := range s.models {
		errs = append(errs, m.model.Close())
	}
	s.models = map[string]*servedModel{}
	s.mu.Unlock()
	if s.artifacts != nil {
		errs = append(errs, s.artifacts.close())
	}
	errs = append(errs, s.records.close())
	return errors.Join(errs...)
}

func (s *Server) queueDepths() map[string]int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make(map[string]int64, len(s.models))
	for name, m := range s.models {
		out[name] = m.queueDepth()
	}
	return out
}

// route is one endpoint.
type route struct {
	method string
	open   bool // served without an API key (health)
	handle func(*exchange) (*reply, error)
}

// Handler is the HTTP handler with every route.
func (s *Server) Handler() http.Handler {
	routes := map[string]route{
		"/v1/audio/transcriptions": {method: http.MethodPost, handle: s.transcribe},
		"/v1/images/generations":   {method: http.MethodPost, handle: s.generateImages},
		"/v1/chat/completions":     {method: http.MethodPost, handle: s.chat},
		"/v1/models":               {method: http.MethodGet, handle: s.listModels},
		"/v1/serving/info":         {method: http.MethodGet, handle: s.servingInfo},
		"/health/live":             {method: http.MethodGet, open: true, handle: s.live},
		"/health/ready":            {method: http.MethodGet, open: true, handle: s.readiness},
	}
	mux := http.NewServeMux()
	for path, rt := range routes {
		mux.Handle(path, s.serve(path, rt))
	}
	mux.Handle("/v1/artifacts/", s.serve("/v1/artifacts/", route{method: http.MethodGet, handle: s.artifact}))
	mux.Handle("/metrics", s.serve("/metrics", route{method: http.MethodGet, handle: s.scrape}))
	mux.Handle("/", s.serve("unknown", route{handle: func(x *exchange) (*reply, error) {
		return nil, newError(http.StatusNotFound, contract.CodeNotFound, "no route %s %s", x.r.Method, x.r.URL.Path)
	}}))
	return mux
}

// keyMatches compares the bearer token in constant time.
func (s *Server) keyMatches(r *http.Request) bool {
	if s.cfg.APIKey == "" {
		return true
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(s.cfg.APIKey)) == 1
}

// exchange is one request in flight: its identity, its record and its timing.
type exchange struct {
	w       http.ResponseWriter
	r       *http.Request
	id      string
	start   time.Time
	rec     *contract.Record
	timing  contract.Timing
	model   *servedModel
	claimed bool // x.id is registered in flight and must be released
}

// reply is a handler's successful answer: a typed JSON body (trtmc_timing is set on it) or raw
// bytes with a content type.
type reply struct {
	status      int
	json        contract.TimedBody
	raw         []byte
	contentType string
}

// serve wraps a route with the contract every response keeps: an X-Request-ID, timing in the
// body and in Server-Timing, a stable error shape, and exactly one record.
func (s *Server) serve(path string, rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		x := &exchange{w: w, r: r, start: time.Now()}
		x.rec = &contract.Record{Method: r.Method, Route: path, StartUnixNS: x.start.UnixNano()}
		var rep *reply
		err := s.admit(x, rt)
		if x.claimed {
			defer s.inflight.release(x.id)
		}
		if err == nil {
			if !rt.open && path != "/metrics" {
				s.metrics.inFlight.Inc()
				defer s.metrics.inFlight.Dec()
			}
			r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes)
			rep, err = rt.handle(x)
		}
		s.finish(x, rep, err)
	})
}

// admit settles the request id, the API key, the method and draining, in that order, so that
// even a refused request has an id to echo and a record.
func (s *Server) admit(x *exchange, rt route) error {
	incoming := x.r.Header.Get("X-Request-ID")
	switch {
	case incoming == "":
		x.id = generateRequestID()
	case !requestIDPattern.MatchString(incoming):
		x.id, x.rec.ClientRequestID = generateRequestID(), truncate(incoming, 128)
		x.rec.RequestID = x.id
		return badRequest(contract.CodeInvalidRequestID, "X-Request-ID must match %s", requestIDPattern)
	case !s.inflight.claim(incoming):
		x.id, x.rec.ClientRequestID = generateRequestID(), incoming
		x.rec.RequestID = x.id
		return badRequest(contract.CodeDuplicateRequestID, "X-Request-ID %q is already in flight", incoming)
	default:
		x.id, x.claimed = incoming, true
	}
	x.rec.RequestID = x.id
	if !rt.open && !s.keyMatches(x.r) {
		return newError(http.StatusUnauthorized, contract.CodeUnauthorized, "missing or wrong API key")
	}
	if rt.method != "" && x.r.Method != rt.method {
		x.w.Header().Set("Allow", rt.method)
		return newError(http.StatusMethodNotAllowed, contract.CodeMethodNotAllowed, "%s needs %s", x.r.URL.Path, rt.method)
	}
	if s.draining.Load() && !rt.open {
		return newError(http.StatusServiceUnavailable, contract.CodeShuttingDown, "server is shutting down")
	}
	if !s.ready.Load() && !rt.open {
		return newError(http.StatusServiceUnavailable, contract.CodeNotReady, "not ready: bundles are still loading")
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// finish writes the response and the record.
func (s *Server) finish(x *exchange, rep *reply, err error) {
	status := http.StatusOK
	var body []byte
	contentType := "application/json"
	if err != nil {
		ae := asAPIError(err)
		if ae.Status >= 500 {
			s.log.Error("request failed", "request_id", x.id, "route", x.rec.Route, "err", err)
		}
		status, x.rec.ErrorCode = ae.Status, ae.Code
		x.timing.HandlerMS = msSince(x.start)
		body = mustJSON(errorBody(ae, x.timing))
		if ae.Status == http.StatusTooManyRequests {
			x.w.Header().Set("Retry-After", "1")
		}
		s.metrics.errors.WithLabelValues(ae.Code).Inc()
	} else {
		status = rep.status
		x.timing.HandlerMS = msSince(x.start)
		if rep.json != nil {
			rep.json.SetTiming(x.timing)
			body = mustJSON(rep.json)
		} else {
			body, contentType = rep.raw, rep.contentType
		}
	}
	h := x.w.Header()
	h.Set("X-Request-ID", x.id)
	h.Set("Content-Type", contentType)
	h.Set("Server-Timing", fmt.Sprintf("model;dur=%.3f, queue;dur=%.3f, handler;dur=%.3f", x.timing.ModelCallMS, x.timing.QueueMS, x.timing.HandlerMS))
	h.Set("Content-Length", strconv.Itoa(len(body)))
	x.w.WriteHeader(status)
	x.w.Write(body)

	end := time.Now()
	x.rec.Status, x.rec.EndUnixNS, x.rec.Timing = status, end.UnixNano(), x.timing
	if x.model != nil {
		x.rec.Model, x.rec.BundleSHA256 = x.model.name, x.model.bundle.SHA256
	}
	if werr := s.records.write(x.rec); werr != nil {
		s.log.Error("record not written", "request_id", x.id, "err", werr)
	}
	s.metrics.requests.WithLabelValues(x.rec.Route, x.rec.Model, strconv.Itoa(status)).Inc()
}

func errorBody(ae *apiError, t contract.Timing) *contract.ErrorBody {
	body := &contract.ErrorBody{Error: contract.ErrorDetail{Message: ae.Message, Type: errorType(ae.Status), Code: ae.Code}}
	body.SetTiming(t)
	return body
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte(`{"error":{"message":"response encoding failed","type":"server_error","code":"internal_error"}}`)
	}
	return b
}

func msSince(t time.Time) float64 { return float64(time.Since(t).Nanoseconds()) / 1e6 }

// lookupModel finds a served model by name: 404 model_not_found otherwise.
func (s *Server) lookupModel(x *exchange, name string) (*servedModel, error) {
	if name == "" {
		return nil, badRequest(contract.CodeMissingField, "field \"model\" is required (one of %v)", s.order)
	}
	s.mu.RLock()
	m, ok := s.models[name]
	s.mu.RUnlock()
	if !ok {
		return nil, newError(http.StatusNotFound, contract.CodeModelNotFound, "model %q is not served here (serving %v)", name, s.order)
	}
	x.model = m
	return m, nil
}

// callTask runs fn on a lane of m, timing the wait as queue_ms and fn (exactly one public Task
// call) as model_call_ms.
func (s *Server) callTask(x *exchange, m *servedModel, taskName string, fn func(ctx context.Context) error) error {
	release, queued, err := m.acquire(x.r.Context())
	x.timing.QueueMS = float64(queued.Nanoseconds()) / 1e6
	if err != nil {
		return err
	}
	defer release()
	start := time.Now()
	err = fn(x.r.Context())
	wall := time.Since(start)
	x.timing.ModelCallMS = float64(wall.Nanoseconds()) / 1e6
	s.metrics.taskCall.WithLabelValues(m.name, taskName).Observe(wall.Seconds())
	return err
}

// scrape renders the Prometheus exposition through the common path, so that a scrape is
// authorized and recorded like every other request.
func (s *Server) scrape(x *exchange) (*reply, error) {
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(s.metrics.registry, promhttp.HandlerOpts{DisableCompression: true}).ServeHTTP(rec, x.r)
	return &reply{status: rec.Code, raw: rec.Body.Bytes(), contentType: rec.Header().Get("Content-Type")}, nil
}
