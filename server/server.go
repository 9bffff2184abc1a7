package server

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"runtime/debug"
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
	Host          family.Host   // what the machine prepared for the families' tools (--cache, --python)
	QueueDepth    int           // requests that may wait for a lane before 429
	MaxBodyBytes  int64         // request body limit (413 beyond it)
	MaxAudioBytes int64         // upload limit for the audio file part
	APIKey        string        // when set, every route but health needs "Authorization: Bearer KEY"
	ArtifactDir   string        // where url-format images are kept
	ArtifactTTL   time.Duration // how long url artifacts are served
	// ArtifactMaxBytes and ArtifactMaxFiles bound the url artifacts kept at once (0 = defaults).
	ArtifactMaxBytes int64
	ArtifactMaxFiles int
	PublicURL        string // base of artifact urls (default: from the request's Host)
	// BodyTimeout bounds the time to receive a request body (408 request_timeout beyond), so a
	// client trickling bytes cannot hold a handler, a lane's queue slot or its request id.
	// 0 = sized to the upload limit: DefaultBodyTimeout(MaxBodyBytes).
	BodyTimeout time.Duration
	// BodyMemoryBytes bounds the request-body buffers held at once across requests: past it a
	// body is refused 429 server_busy while it is read. 0 = DefaultBodyMemoryBytes.
	BodyMemoryBytes int64
	// RequestIDMemory is how many client X-Request-IDs are remembered for the server's life
	// (reuse is 400 duplicate_request_id); past it the oldest are forgotten. 0 = 2^20.
	RequestIDMemory int
	// WriteTimeout bounds the sending of one answer, from its first byte: a client that does
	// not read it in time loses its connection. 0 = DefaultWriteTimeout.
	WriteTimeout time.Duration
	Logger       *slog.Logger
}

// Server serves the models of its bundles.
type Server struct {
	cfg       Config
	models    map[string]*servedModel
	order     []string
	records   *recordWriter
	ids       *idLedger
	handlers  *gate           // requests inside the recording handler
	tasks     *gate           // Task calls running (each holds its lane until it returns)
	aborted   context.Context // done once a timed-out drain aborts (Abort)
	abortNow  context.CancelFunc
	bodies    sync.Pool // *bufio.Reader that request bodies are read through (limitBody)
	metrics   *metrics
	artifacts *artifactStore
	mu        sync.RWMutex // guards models and order, set once by Load
	ready     atomic.Bool
	draining  atomic.Bool
	log       *slog.Logger
	uploads   *bufPool[byte]    // audio upload buffers (readClip)
	bodyMem   *bodyMemory       // request-body bytes held at once, across requests
	samples   *bufPool[float32] // decoded clips, given back when their Task call has returned
}

// New prepares a server: records file, artifact store, metrics. It serves health at once and
// turns ready only after Load has loaded every bundle.
func New(cfg Config) (*Server, error) {
	if len(cfg.Bundles) == 0 {
		return nil, fmt.Errorf("no bundles to serve (pass --bundle)")
	}
	if cfg.APIKey != "" && strings.TrimSpace(cfg.APIKey) == "" {
		return nil, fmt.Errorf("the API key is only whitespace: refusing to serve with authentication silently off")
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
	if cfg.BodyMemoryBytes <= 0 {
		cfg.BodyMemoryBytes = DefaultBodyMemoryBytes
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = DefaultWriteTimeout
	}
	if cfg.BodyTimeout <= 0 {
		cfg.BodyTimeout = DefaultBodyTimeout(cfg.MaxBodyBytes)
	}
	s := &Server{cfg: cfg, models: map[string]*servedModel{}, ids: newIDLedger(cfg.RequestIDMemory),
		handlers: newGate(), tasks: newGate(), log: cfg.Logger,
		// Up to a 30 s 16 kHz mono clip (960 KB of PCM16, 480 Ki samples) is pooled.
		uploads: &bufPool[byte]{max: 2 << 20}, samples: &bufPool[float32]{max: 1 << 20},
		bodyMem: &bodyMemory{limit: cfg.BodyMemoryBytes}}
	s.aborted, s.abortNow = context.WithCancel(context.Background())
	var err error
	if s.records, err = openRecords(cfg.RecordsPath); err != nil {
		return nil, err
	}
	quota := artifactQuota{bytes: cfg.ArtifactMaxBytes, files: cfg.ArtifactMaxFiles}
	if quota.bytes <= 0 {
		quota.bytes = DefaultArtifactMaxBytes
	}
	if quota.files <= 0 {
		quota.files = DefaultArtifactMaxFiles
	}
	if s.artifacts, err = newArtifactStore(cfg.ArtifactDir, cfg.ArtifactTTL, quota); err != nil {
		s.records.close(context.Background())
		return nil, err
	}
	s.metrics = newMetrics(s.queueDepths, s.ids.forgottenCount, s.records.failed.Load, s.tasks.count, s.bodyMem)
	return s, nil
}

// DefaultWriteTimeout is the time an answer has to leave: ample for the largest image answer
// over any working link, and below the default drain, so that a client that never reads
// cannot hold a drain.
const DefaultWriteTimeout = 10 * time.Second

// DefaultBodyTimeout allows 10 s plus the body limit at 1 MiB/s: a 32 MiB upload has 42 s,
// which any client on a working link meets, and a trickling one is cut off.
func DefaultBodyTimeout(maxBodyBytes int64) time.Duration {
	return 10*time.Second + time.Duration(maxBodyBytes>>20)*time.Second
}

// Load loads every bundle through its family; the server is ready when all are loaded. Call it
// once, before or after the listener starts.
func (s *Server) Load() error {
	models := map[string]*servedModel{}
	var order []string
	for _, path := range s.cfg.Bundles {
		start := time.Now()
		l, err := registry.Load(path, family.LoadOptions{Lanes: s.cfg.Lanes, Host: s.cfg.Host})
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

// Abort ends a drain that timed out: every request still waiting for a lane or for its Task
// call answers 503 shutting_down at once, with its record. A Task call already running is not
// interrupted (PocketSphinx cannot be); it runs to its end on a model that stays loaded. Abort
// returns how many requests were inside a handler.
func (s *Server) Abort() int {
	n := s.handlers.count()
	s.abortNow()
	// A record write stalled on its sink (a pipe nobody reads) would hold its handler, and so
	// the exit, for ever: past this bound it fails and the request is answered without it.
	s.records.giveUpBy(time.Now().Add(stalledSinkGrace))
	return n
}

// stalledSinkGrace is how long a timed-out drain still waits for a stalled records sink.
const stalledSinkGrace = 2 * time.Second

// Close waits for handlers and Task calls without a bound, then unloads the models and flushes
// the records; CloseContext bounds the wait.
func (s *Server) Close() error { return s.CloseContext(context.Background()) }

// CloseContext waits until every handler has written its record and every Task call has
// returned, or ctx ends; then it flushes the records. A model is freed only when no Task call
// can still be running on it: if ctx ends first, the models are left loaded (the process is
// about to exit) and the error says so. Call it after the HTTP server has shut down.
func (s *Server) CloseContext(ctx context.Context) error {
	s.ready.Store(false)
	var errs []error
	if n := s.handlers.closeAndWait(ctx); n > 0 {
		errs = append(errs, fmt.Errorf("%d requests still in a handler at close: their records may be missing", n))
	}
	if n := s.tasks.closeAndWait(ctx); n > 0 {
		errs = append(errs, fmt.Errorf("%d Task calls still running at close: models left loaded rather than freed under them", n))
	} else {
		s.mu.Lock()
		for _, m := range s.models {
			errs = append(errs, m.model.Close())
		}
		s.models = map[string]*servedModel{}
		s.mu.Unlock()
	}
	if s.artifacts != nil {
		errs = append(errs, s.artifacts.close())
	}
	errs = append(errs, s.records.close(ctx))
	if n := s.records.failed.Load(); n > 0 {
		errs = append(errs, fmt.Errorf("%d records could not be written (their requests were answered 503 records_unavailable)", n))
	}
	if n := s.records.deleted.Load(); n > 0 {
		errs = append(errs, fmt.Errorf("%d records were written into a records file that was deleted while serving (the file was reopened at its path)", n))
	}
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
	method  string
	open    bool  // served without an API key (health)
	maxBody int64 // body limit when below the server's (0: MaxBodyBytes)
	handle  func(*exchange) (*reply, error)
}

// Handler is the HTTP handler with every route.
func (s *Server) Handler() http.Handler {
	routes := map[string]route{
		"/v1/audio/transcriptions": {method: http.MethodPost, handle: s.transcribe},
		"/v1/images/generations":   {method: http.MethodPost, handle: s.generateImages},
		"/v1/chat/completions":     {method: http.MethodPost, handle: s.chat, maxBody: s.chatBodyLimit()},
		"/v1/models":               {method: http.MethodGet, handle: s.listModels},
		"/v1/serving/info":         {method: http.MethodGet, handle: s.servingInfo},
		"/health/live":             {method: http.MethodGet, open: true, handle: s.live},
		"/health/ready":            {method: http.MethodGet, open: true, handle: s.readiness},
	}
	routes["/metrics"] = route{method: http.MethodGet, handle: s.scrape}
	handlers := make(map[string]http.Handler, len(routes))
	for path, rt := range routes {
		handlers[path] = s.serve(path, rt)
	}
	// Artifacts authorize themselves: the API key or the url's signature (artifactAuthorized).
	artifacts := s.serve("/v1/artifacts/", route{method: http.MethodGet, open: true, handle: s.artifact})
	model := s.serve("/v1/models/", route{method: http.MethodGet, handle: s.retrieveModel})
	unknown := s.serve("unknown", route{handle: func(x *exchange) (*reply, error) {
		return nil, newError(http.StatusNotFound, contract.CodeNotFound, "no route %s %s", x.r.Method, x.r.RequestURI)
	}})
	// Exact paths, no http.ServeMux: the mux answers "//v1/models" with a 307 and a CONNECT or
	// unclean path with its own redirect, none of which would reach the recording handler.
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch h, ok := handlers[r.URL.Path]; {
		case ok:
			h.ServeHTTP(w, r)
		case strings.HasPrefix(r.URL.Path, "/v1/artifacts/"):
			artifacts.ServeHTTP(w, r)
		case strings.HasPrefix(r.URL.Path, "/v1/models/"):
			model.ServeHTTP(w, r)
		default:
			unknown.ServeHTTP(w, r)
		}
	})
}

// exchange is one request in flight: its identity, its record and its timing.
type exchange struct {
	w      http.ResponseWriter
	r      *http.Request
	id     string
	start  time.Time
	rec    *contract.Record
	timing contract.Timing
	model  *servedModel
	// deadline is set while the body's read deadline is armed (see limitBody); stopAbort
	// then cancels the cut a timed-out drain makes to the body's arrival.
	deadline  bool
	stopAbort func() bool
	// counted is set when the request entered s.handlers (it leaves once its record is written).
	counted bool
	// owner says who answers: the handler, or a timed-out drain that answered while the
	// handler's goroutine was still inside its Task call (see callTask).
	owner atomic.Int32
	// answering is held by the drain's goroutine while it answers, so that a handler that
	// lost the answer waits for it before returning (net/http then finishes the response).
	answering sync.Mutex
	// lost is set, on the handler's goroutine, when the drain answered for it.
	lost bool
	// claimed is set when x.id is the client's, held in the ledger for this request.
	claimed bool
	// taskStarted is set once the request's Task call began: its id is used, whatever the answer.
	taskStarted bool
	// body is the request's share of the body memory, given back when the handler returns.
	body *bodyAccount
	// netBody is net/http's own request body, put back before the answer (finish); buffered
	// is the pooled buffer it was read through (limitBody), given back with bodyRead.
	netBody  io.ReadCloser
	buffered *bufio.Reader
	// client says when the client is gone, from the Task call's start (callTask).
	client *clientWatch
}

// Values of exchange.owner.
const (
	ownerHandler  int32 = iota // the handler answers (also while it waits for a lane)
	ownerInTask                // inside the Task call: a timed-out drain may answer instead
	ownerAnswered              // the drain answered: the handler must not touch w or rec again
)

// errAnsweredByDrain is what a handler returns once the drain has answered for it.
var errAnsweredByDrain = errors.New("answered by the timed-out drain")

// reply is a handler's successful answer: a typed JSON body (trtmc_timing is set on it) or raw
// bytes with a content type.
type reply struct {
	status      int
	json        contract.TimedBody
	raw         []byte
	contentType string
	// artifacts are the url artifacts the answer gives out: discarded when another answer
	// (503 records_unavailable) is sent instead, so that they do not hold the quota.
	artifacts []string
}

// serve wraps a route with the contract every response keeps: an X-Request-ID, timing in the
// body and in Server-Timing, a stable error shape, and exactly one record.
func (s *Server) serve(path string, rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		expectAnswer(r.Context())
		x := &exchange{w: w, r: r, start: time.Now(), counted: s.handlers.enter()}
		defer func() {
			if x.counted && !x.lost { // a drain that answered for it also left s.handlers for it
				s.handlers.leave()
			}
		}()
		x.rec = &contract.Record{Method: truncate(r.Method, contract.MaxRecordedMethodBytes), Route: path, StartUnixNS: x.start.UnixNano()}
		if len(r.Method) > contract.MaxRecordedMethodBytes {
			x.rec.MethodBytes = len(r.Method)
		}
		// Lift the deadline an earlier answer on this connection left (finish sets one per
		// answer), so that this request's interim 100s are not cut by it.
		http.NewResponseController(w).SetWriteDeadline(time.Time{})
		var rep *reply
		err := s.admit(x, rt)
		if err == nil {
			if !rt.open && path != "/metrics" {
				s.metrics.inFlight.Inc()
				defer s.metrics.inFlight.Dec()
			}
			s.limitBody(x, s.bodyLimit(rt))
			defer s.bodyRead(x)
			rep, err = rt.handle(x)
			if s.aborted.Err() != nil && err != nil && asAPIError(err).Code == contract.CodeRequestTimeout {
				err = errShuttingDown() // the drain cut its body (limitBody), not the client
			}
		}
		if x.lost { // answered and recorded by the drain
			return
		}
		s.finish(x, rep, err)
	})
}

// limitBody caps the body's size and, when there is a body, the time to receive it. The read
// deadline is per request (http.ResponseController), not the server's ReadTimeout: that one
// would stay armed while the Task runs, and the connection's background read hitting it would
// cancel the request's context as if the client had gone.
func (s *Server) limitBody(x *exchange, limit int64) {
	x.netBody = x.r.Body
	limited := http.MaxBytesReader(x.w, x.r.Body, limit)
	x.body = &bodyAccount{mem: s.bodyMem}
	x.r.Body = sizedBody{limited, x.r.ContentLength, x.body}
	if x.r.ContentLength == 0 {
		return
	}
	// The request's header map stays live as long as its body is held: a client that sends
	// many short header lines and then stalls its body would hold it uncounted.
	if err := x.body.take(headerHeapBytes(x.r.Header)); err != nil {
		x.r.Body = sizedBody{refusedBody{err, limited}, x.r.ContentLength, x.body}
		return
	}
	if err := x.body.take(bodyBufferBytes); err != nil { // the read buffer below
		x.r.Body = sizedBody{refusedBody{err, limited}, x.r.ContentLength, x.body}
		return
	}
	// Read through a large buffer: the multipart reader reads 4 KiB at a time, which straight
	// from the connection is eight read(2)s for a 1 s clip; this takes what has arrived at once.
	buffered, _ := s.bodies.Get().(*bufio.Reader)
	if buffered == nil {
		buffered = bufio.NewReaderSize(nil, bodyBufferBytes)
	}
	buffered.Reset(limited)
	x.buffered = buffered
	x.r.Body = sizedBody{bufferedBody{buffered, limited}, x.r.ContentLength, x.body}
	// An http.ResponseWriter that cannot set deadlines (a test recorder) simply has none.
	if http.NewResponseController(x.w).SetReadDeadline(time.Now().Add(s.cfg.BodyTimeout)) == nil {
		x.deadline = true
		// A timed-out drain ends the bodies still arriving, so that their requests answer
		// 503 shutting_down on connections still open: closing those (the drain's last step)
		// would answer nothing while their records said 503.
		x.stopAbort = context.AfterFunc(s.aborted, func() {
			http.NewResponseController(x.w).SetReadDeadline(time.Now())
		})
	}
}

// bodyLimit is a route's body limit.
func (s *Server) bodyLimit(rt route) int64 {
	if rt.maxBody > 0 {
		return min(rt.maxBody, s.cfg.MaxBodyBytes)
	}
	return s.cfg.MaxBodyBytes
}

// chatTextBytes is what a chat body may hold beside its audio: messages, question, settings.
const chatTextBytes = 1 << 20

// chatBodyLimit bounds a chat body by the largest audio it may carry (base64 of the audio
// limit) plus its text, so that a body too large for any accepted clip is refused from its
// Content-Length (or after that many bytes) instead of being read, parsed and decoded.
func (s *Server) chatBodyLimit() int64 {
	return int64(base64.StdEncoding.EncodedLen(int(s.cfg.MaxAudioBytes))) + chatTextBytes
}

// bodyBufferBytes is the read buffer of a request body: a 1 s 16 kHz PCM16 upload in one read.
const bodyBufferBytes = 64 << 10

// bufferedBody reads a body through a pooled buffer.
type bufferedBody struct {
	*bufio.Reader
	io.Closer
}

// refusedBody is a body whose read buffer the body memory refused: reading it is that error.
type refusedBody struct {
	err error
	io.Closer
}

func (b refusedBody) Read([]byte) (int, error) { return 0, b.err }

// bodyRead gives the body's buffer back to the pool once the handler has returned.
func (s *Server) bodyRead(x *exchange) {
	if x.stopAbort != nil {
		x.stopAbort()
	}
	x.body.release()
	if x.buffered != nil {
		x.buffered.Reset(nil)
		s.bodies.Put(x.buffered)
		x.buffered = nil
	}
}

// sizedBody is a request body that remembers its declared length (-1 unknown), so that readers
// can take it in one buffer of that size instead of io.ReadAll's doubling copies.
type sizedBody struct {
	io.ReadCloser
	length int64
	acct   *bodyAccount
}

// readBody reads a whole body into a buffer that grows with the bytes received, up to its
// declared length when there is one.
func readBody(body io.Reader) ([]byte, error) {
	sb, ok := body.(sizedBody)
	if !ok {
		return io.ReadAll(body)
	}
	end := math.MaxInt - 1 // the MaxBytesReader under it ends the body at its limit
	if sb.length > 0 {
		end = int(sb.length) + 1
	}
	return readInto(sb, make([]byte, 0, min(end, firstReadBytes)), end, nil, sb.acct)
}

// bodyDone disarms the body's read deadline once the body has been read, before the Task call.
func (s *Server) bodyDone(x *exchange) {
	if x.deadline {
		x.stopAbort()
		http.NewResponseController(x.w).SetReadDeadline(time.Time{})
		x.deadline = false
	}
}

// admit settles the request id, the API key, the method and the server's state, in that
// order, so that even a refused request has an id to echo and a record. A client's id is
// claimed only once the key matched (server/README.md, "Request ids").
func (s *Server) admit(x *exchange, rt route) error {
	x.id = generateRequestID()
	x.rec.RequestID, x.rec.Attempt = x.id, 1
	incoming, refused, err := incomingID(x.r.Header)
	if err != nil {
		x.rec.ClientRequestID = refused
		return err
	}
	if !rt.open && !s.keyMatches(x.r) {
		x.rec.ClientRequestID = incoming
		return newError(http.StatusUnauthorized, contract.CodeUnauthorized, "missing or wrong API key")
	}
	if rt.open {
		// Open routes answer anyone: an id they claimed could be taken from a keyed client, or
		// push its ids out of the ledger. They answer under the server id and keep the client's.
		x.rec.ClientRequestID = incoming
	} else if incoming != "" {
		attempt, ok := s.ids.claim(incoming)
		if !ok {
			x.rec.ClientRequestID = incoming
			return badRequest(contract.CodeDuplicateRequestID, "X-Request-ID %q was already used during this server's life: every request needs its own", incoming)
		}
		x.id, x.claimed = incoming, true
		x.rec.RequestID, x.rec.Attempt = incoming, attempt
	}
	if rt.method != "" && x.r.Method != rt.method && !(rt.method == http.MethodGet && x.r.Method == http.MethodHead) {
		allow := rt.method
		if rt.method == http.MethodGet {
			allow = "GET, HEAD"
		}
		x.w.Header().Set("Allow", allow)
		return newError(http.StatusMethodNotAllowed, contract.CodeMethodNotAllowed, "%s needs %s", x.r.URL.Path, allow)
	}
	if s.draining.Load() && !rt.open {
		return errShuttingDown()
	}
	if !s.ready.Load() && !rt.open {
		return newError(http.StatusServiceUnavailable, contract.CodeNotReady, "not ready: bundles are still loading")
	}
	if s.records.failing.Load() && !rt.open {
		return errRecordsUnavailable()
	}
	// Refused before a byte of the body is read, so a client that sent "Expect: 100-continue"
	// gets this 413 instead of "100 Continue".
	if limit := s.bodyLimit(rt); x.r.ContentLength > limit {
		return newError(http.StatusRequestEntityTooLarge, contract.CodeRequestTooLarge, "request body of %d bytes is over the limit of %d for %s", x.r.ContentLength, limit, x.r.URL.Path)
	}
	return nil
}

func errRecordsUnavailable() error {
	return newError(http.StatusServiceUnavailable, contract.CodeRecordsUnavailable, "the records file cannot be written: no request is served without its record")
}

// retryable says whether a refusal leaves the client's id free: the request was turned away
// for the server's state (busy, loading, draining, records unwritable) before its Task call.
func (x *exchange) retryable(status int) bool {
	if x.taskStarted {
		return false
	}
	switch {
	case status == http.StatusTooManyRequests && x.rec.ErrorCode == contract.CodeServerBusy:
		return true
	case status == http.StatusServiceUnavailable:
		switch x.rec.ErrorCode {
		case contract.CodeNotReady, contract.CodeShuttingDown, contract.CodeRecordsUnavailable:
			return true
		}
	}
	return false
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// response is an answer ready to send.
type response struct {
	status      int
	body        []byte
	contentType string
}

// finish writes the record, then the response: no byte of an answer leaves before its record
// is written (a stalled records file stalls the answer). When the record cannot be written,
// the answer becomes 503 records_unavailable, whose own record is tried once more.
func (s *Server) finish(x *exchange, rep *reply, err error) {
	resp := s.render(x, rep, err)
	if werr := s.writeRecord(x, resp.status); werr != nil {
		s.log.Error("record not written: answering 503 records_unavailable", "request_id", x.id, "status", resp.status, "err", werr)
		x.rec.Output = nil
		if rep != nil {
			s.artifacts.discard(rep.artifacts)
		}
		resp = s.render(x, nil, errRecordsUnavailable())
		if werr := s.writeRecord(x, resp.status); werr != nil {
			s.log.Error("record not written", "request_id", x.id, "status", resp.status, "err", werr)
		}
	}
	if x.claimed && x.retryable(resp.status) {
		s.ids.release(x.id) // before the answer, so a retry sent on seeing it finds the id free
	}
	if x.netBody != nil {
		// net/http decides from its own body type what to do with a body the handler left
		// unread (an early 413): read a little more, answer, shut the write side and wait
		// before closing, so that the client, still sending, reads the answer before the reset
		// its unread bytes cause. Behind a body of ours it would close at once.
		x.r.Body = x.netBody
	}
	h := x.w.Header()
	h.Set("X-Request-ID", x.id)
	h.Set("Content-Type", resp.contentType)
	h.Set("Server-Timing", fmt.Sprintf("model;dur=%.3f, queue;dur=%.3f, handler;dur=%.3f", x.timing.ModelCallMS, x.timing.QueueMS, x.timing.HandlerMS))
	h.Set("Content-Length", strconv.Itoa(len(resp.body)))
	if framingAmbiguous(x.r) {
		// Set here, on the final answer only, so that the interim 100s of clientWatch do not
		// carry it.
		h.Set("Connection", "close")
	}
	if resp.status == http.StatusTooManyRequests || resp.status == http.StatusServiceUnavailable {
		h.Set("Retry-After", "1")
	}
	// A client that never reads (pipelining requests into a full socket) would hold this
	// handler, its connection and the drain for ever: the answer has WriteTimeout to leave.
	http.NewResponseController(x.w).SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout))
	x.w.WriteHeader(resp.status)
	if x.r.Method != http.MethodHead {
		x.w.Write(resp.body)
	}
	s.metrics.requests.WithLabelValues(x.rec.Route, x.rec.Model, strconv.Itoa(resp.status)).Inc()
}

// framingAmbiguous says whether the bytes after a request's body may not be where its sender
// meant the next request to start; its connection is then closed after the answer, so that
// they are never read as a request (RFC 9112 §6.1, §6.3).
//   - HTTP/1.1 chunked: net/http drops a Content-Length sent beside it before a handler sees
//     it, so the pair cannot be told from chunked alone.
//   - Every HTTP/1.0 request: net/http drops a Transfer-Encoding on HTTP/1.0 before a handler
//     runs and frames the body by Content-Length, or as empty, where the sender may have meant
//     a chunked body (RFC 9112 §6.1: such framing is faulty, and the connection must close).
//     The header is gone, so no 1.0 request keeps its connection (1.0 keep-alive is a
//     pre-standard extension).
func framingAmbiguous(r *http.Request) bool {
	return len(r.TransferEncoding) > 0 || !r.ProtoAtLeast(1, 1)
}

// render turns a handler's outcome into the answer's status and body.
func (s *Server) render(x *exchange, rep *reply, err error) response {
	x.timing.HandlerMS = msSince(x.start)
	if err != nil {
		ae := asAPIError(err)
		if ae.Status >= 500 {
			s.log.Error("request failed", "request_id", x.id, "route", x.rec.Route, "err", err)
		}
		x.rec.ErrorCode = ae.Code
		s.metrics.errors.WithLabelValues(ae.Code).Inc()
		return response{status: ae.Status, body: mustJSON(errorBody(ae, x.timing)), contentType: "application/json"}
	}
	x.rec.ErrorCode = ""
	if rep.json != nil {
		rep.json.SetTiming(x.timing)
		return response{status: rep.status, body: mustJSON(rep.json), contentType: "application/json"}
	}
	return response{status: rep.status, body: rep.raw, contentType: rep.contentType}
}

// writeRecord completes the record with the answer's status and writes it.
func (s *Server) writeRecord(x *exchange, status int) error {
	// The span's end is its wall start plus the monotonic time since, as AIPerf stamps a
	// request: a wall-clock step or slew while it ran (a VM's clock being corrected) must not
	// stretch the record past the client's own span of the same request.
	x.rec.Status, x.rec.EndUnixNS, x.rec.Timing = status, x.rec.StartUnixNS+time.Since(x.start).Nanoseconds(), x.timing
	if x.model != nil {
		x.rec.Model, x.rec.BundleSHA256 = x.model.name, x.model.bundle.SHA256
	}
	return s.records.write(x.rec)
}

func errorBody(ae *apiError, t contract.Timing) *contract.ErrorBody {
	body := &contract.ErrorBody{Error: contract.ErrorDetail{Message: ae.Message, Type: errorType(ae.Status), Code: ae.Code}}
	if ae.Param != "" {
		body.Error.Param = &ae.Param
	}
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
		return nil, badParam(contract.CodeMissingField, "model", "field \"model\" is required (one of %v)", s.order)
	}
	s.mu.RLock()
	m, ok := s.models[name]
	s.mu.RUnlock()
	if !ok {
		return nil, errModelNotFound(name, s.order)
	}
	x.model = m
	return m, nil
}

func errModelNotFound(name string, served []string) *apiError {
	e := newError(http.StatusNotFound, contract.CodeModelNotFound, "model %q is not served here (serving %v)", name, served)
	e.Param = "model"
	return e
}

// callTask runs fn on a lane of m, timing the wait as queue_ms and fn (exactly one public Task
// call) as model_call_ms. fn runs on the handler's own goroutine: handing it to another one
// costs two scheduler wake-ups a request (BenchmarkPeerOverhead: ~25 us of a no-op call's
// 0.2 ms at concurrency 1). The lane and a count in s.tasks are held until fn returns, so that
// a model is never freed under a running call.
//
// A client that goes away cancels fn's context: a Task that checks it between steps
// (procdiff) stops early, one that cannot (PocketSphinx) finishes, and the request is recorded
// as 499 client_closed_request when fn returns. A drain that times out cannot wait for fn: it
// answers 503 shutting_down and writes the record from its own goroutine while fn still runs
// (takeOver), and the handler, when fn returns, leaves w and the record alone.
func (s *Server) callTask(x *exchange, m *servedModel, taskName string, fn func(ctx context.Context) error) error {
	s.bodyDone(x)
	if s.aborted.Err() != nil { // a timed-out drain: no new Task call, even on a free lane
		return errShuttingDown()
	}
	x.client = s.watchClient(x)
	defer x.client.stop()
	ctx := x.client.ctx
	if x.client.settled(); ctx.Err() != nil { // gone while its body was parsed: no Task call for nobody
		return errClientClosed("before its Task started")
	}
	release, queued, err := m.acquire(ctx, s.aborted.Done())
	x.timing.QueueMS = float64(queued.Nanoseconds()) / 1e6
	if err != nil {
		return err
	}
	if !s.tasks.enter() {
		release()
		return errShuttingDown()
	}
	taskCtx, cancel := context.WithCancel(ctx)
	x.taskStarted = true
	x.owner.Store(ownerInTask)
	stopWatch := context.AfterFunc(s.aborted, func() { cancel(); s.takeOver(x) })
	start := time.Now()
	err = s.runTask(taskCtx, x, fn)
	wall := time.Since(start)
	stopWatch()
	cancel()
	release()
	s.tasks.leave()
	s.metrics.taskCall.WithLabelValues(m.name, taskName).Observe(wall.Seconds())
	if errors.Is(err, context.Canceled) {
		s.metrics.taskCancelled.WithLabelValues(m.name, taskName).Inc()
	}
	if !x.owner.CompareAndSwap(ownerInTask, ownerHandler) {
		x.answering.Lock() // the drain's goroutine won: wait until it has answered
		x.answering.Unlock()
		x.lost = true
		return errAnsweredByDrain
	}
	x.timing.ModelCallMS = float64(wall.Nanoseconds()) / 1e6
	x.client.stop() // before the answer is written, and before gone is read for the last time
	switch {
	case !x.client.gone():
		return err
	case errors.Is(err, context.Canceled):
		return errClientClosed("and its Task stopped early")
	default:
		return errClientClosed("while the Task ran")
	}
}

// runTask calls fn and turns a panic into 500 internal_error, so that a Task that panics still
// gives back its lane and its count in s.tasks and leaves its record (net/http would recover
// the handler's goroutine, and all three would be lost).
func (s *Server) runTask(ctx context.Context, x *exchange, fn func(context.Context) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("Task call panicked", "request_id", x.id, "panic", p, "stack", string(debug.Stack()))
			err = newError(http.StatusInternalServerError, contract.CodeInternal, "internal error: the Task call failed (request %s; the server log has the details)", x.id)
		}
	}()
	return fn(ctx)
}

// takeOver answers a request whose handler is inside its Task call when a drain times out:
// 503 shutting_down (499 if its client has gone), sent at once, and its record. It runs on its
// own goroutine; owner makes it and the handler exclusive, so w and the record have one writer.
func (s *Server) takeOver(x *exchange) {
	x.answering.Lock()
	defer x.answering.Unlock()
	if !x.owner.CompareAndSwap(ownerInTask, ownerAnswered) {
		return // fn has returned: the handler answers
	}
	x.client.stop()
	err := errShuttingDown()
	if x.client.gone() {
		err = errClientClosed("while the Task ran")
	}
	s.finish(x, nil, err)
	http.NewResponseController(x.w).Flush() // the handler has not returned: nothing else would send it
	if x.counted {
		s.handlers.leave()
	}
}

func errShuttingDown() error {
	return newError(http.StatusServiceUnavailable, contract.CodeShuttingDown, "server is shutting down")
}

func errClientClosed(when string) error {
	return newError(StatusClientClosedRequest, contract.CodeClientClosed, "the client closed the connection %s", when)
}

// scrape renders the Prometheus exposition through the common path, so that a scrape is
// authorized and recorded like every other request.
func (s *Server) scrape(x *exchange) (*reply, error) {
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(s.metrics.registry, promhttp.HandlerOpts{DisableCompression: true}).ServeHTTP(rec, x.r)
	return &reply{status: rec.Code, raw: rec.Body.Bytes(), contentType: rec.Header().Get("Content-Type")}, nil
}
