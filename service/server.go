// Package service is the HTTP service over the engine that `harness9
// serve` runs, for any Go program to embed: an API (create a session, send
// a prompt, review a plan, answer permission asks, cancel a run), its
// events as Server-Sent Events in the JSONL vocabulary of `harness9 run
// --json`, and a plan-review web page, all from Server.Handler. Callers
// authenticate with bearer tokens kept as SHA-256 hashes; each token
// reaches only the sessions whose workdir lies under its roots.
//
// The engines come from a Runner: NewEngineRunner runs them in this
// process, each opened by an EngineFactory (Assembled opens the assembled
// agent of package harness in each session's workdir, as serve does);
// service/durablerunner runs them as durable Temporal workflows.
package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/harness9/harness9/session"
)

// Defaults of the server's address and limits.
const (
	DefaultListen = "127.0.0.1:8787" // loopback: exposing it is a choice

	DefaultMaxBody   = 1 << 20 // bytes of a request body
	DefaultRingSize  = 2048    // events kept per session for Last-Event-ID
	DefaultMaxPrompt = 256 << 10

	// DefaultIdleTimeout is how long a session stays open (its engine,
	// its lock, its event ring) with no run in progress and no event
	// stream connected, before the server releases it.
	DefaultIdleTimeout = 15 * time.Minute
)

// Server serves the API and the web page. Close it with Shutdown.
type Server struct {
	runner  Runner
	store   session.Store
	roots   []string
	tokens  []authToken
	log     *slog.Logger
	maxBody int64
	ring    int
	idle    time.Duration

	rawTokens []Token

	mux *http.ServeMux
	// routes are the patterns registered on mux, for the OpenAPI check.
	routes []string

	tracer  trace.Tracer // nil without WithTracing
	prop    propagation.TextMapPropagator
	metrics http.Handler // GET /metrics, nil without WithMetrics

	mu       sync.Mutex
	sessions map[string]*live
	closing  bool
	base     context.Context
	stopAll  context.CancelFunc
	runs     sync.WaitGroup
	quit     chan struct{} // closed at shutdown: event streams end
}

// Option configures a Server.
type Option func(*Server)

// WithTokens sets the bearer tokens the server accepts.
func WithTokens(ts ...Token) Option {
	return func(s *Server) { s.rawTokens = append(s.rawTokens, ts...) }
}

// WithLogger sets where the server logs (default: nowhere).
func WithLogger(l *slog.Logger) Option { return func(s *Server) { s.log = l } }

// WithMaxBody caps request bodies, in bytes (default DefaultMaxBody).
func WithMaxBody(n int64) Option { return func(s *Server) { s.maxBody = n } }

// WithRingSize sets how many events per session are kept for clients
// resuming with Last-Event-ID (default DefaultRingSize).
func WithRingSize(n int) Option { return func(s *Server) { s.ring = n } }

// WithIdleTimeout sets how long a session with no run in progress and no
// event stream connected stays open (default DefaultIdleTimeout; 0 or
// less keeps sessions open until shutdown). A released session is opened
// again from the store by the next request that needs it.
func WithIdleTimeout(d time.Duration) Option { return func(s *Server) { s.idle = d } }

// New builds a server over runner; store lists and shows sessions. roots
// are the directories sessions may work in: every token's roots must lie
// inside them.
func New(runner Runner, store session.Store, roots []string, opts ...Option) (*Server, error) {
	s := &Server{runner: runner, store: store, maxBody: DefaultMaxBody, ring: DefaultRingSize, idle: DefaultIdleTimeout,
		sessions: map[string]*live{}, quit: make(chan struct{})}
	for _, o := range opts {
		o(s)
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if len(roots) == 0 {
		return nil, errors.New("serve: no roots; list the directories sessions may use in config.toml ([serve] roots = [\"/path\"])")
	}
	for _, r := range roots {
		real, err := resolveDir(r)
		if err != nil {
			return nil, fmt.Errorf("serve: root %s: %w; fix [serve] roots in config.toml", r, err)
		}
		s.roots = append(s.roots, real)
	}
	tokens, err := prepareTokens(s.rawTokens, s.roots)
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	if len(tokens) == 0 {
		return nil, errors.New("serve: no tokens; create one with `harness9 serve token add NAME --root DIR`")
	}
	s.tokens, s.rawTokens = tokens, nil
	s.base, s.stopAll = context.WithCancel(context.Background())
	s.mux = http.NewServeMux()
	s.routesInit()
	s.metricsRoute()
	if s.idle > 0 {
		go s.releaseIdle(s.base)
	}
	return s, nil
}

// Handler is the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.traced(s.mux) }

// Routes returns the registered patterns ("METHOD /path").
func (s *Server) Routes() []string { return append([]string(nil), s.routes...) }

func (s *Server) handle(pattern string, h http.HandlerFunc) {
	s.routes = append(s.routes, pattern)
	s.mux.HandleFunc(pattern, h)
}

// runContext returns the context of a new run, or ok false once the
// server is shutting down. A run counts in s.runs until it ends.
func (s *Server) runContext() (context.Context, context.CancelFunc, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return nil, nil, false
	}
	s.runs.Add(1)
	ctx, cancel := context.WithCancel(s.base)
	return ctx, cancel, true
}

// Shutdown stops the server's work the way Ctrl+C stops a run: running
// turns are cancelled (their state is saved, so every session can be
// resumed), event streams end, and every session's lock is released. Call
// it after (or while) http.Server.Shutdown stops accepting requests.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if !s.closing {
		s.closing = true
		close(s.quit)
		s.stopAll()
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.runs.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		return fmt.Errorf("serve: runs did not stop in time: %w", ctx.Err())
	}
	// Lock order is l.mu before s.mu (open holds l.mu while it checks
	// s.closing): take the list first, then each session's lock.
	s.mu.Lock()
	lives := make([]*live, 0, len(s.sessions))
	for _, l := range s.sessions {
		lives = append(lives, l)
	}
	s.mu.Unlock()
	var errs []error
	for _, l := range lives {
		l.mu.Lock()
		if l.sess != nil {
			errs = append(errs, l.sess.Close())
			l.sess = nil
		}
		l.mu.Unlock()
	}
	return errors.Join(errs...)
}

// liveFor returns the server's record of session id, making one if needed.
func (s *Server) liveFor(id string) *live {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.sessions[id]
	if l == nil {
		l = &live{srv: s, id: id, hub: newHub(s.ring), last: time.Now()}
		s.sessions[id] = l
	}
	return l
}

// open returns session id's live record with its Session open (this
// process then holds the session's lock). A Remote session with work in
// progress elsewhere that no run here follows is followed from then on,
// as a run of this process.
func (s *Server) open(ctx context.Context, id string) (*live, error) {
	l := s.liveFor(id)
	err := s.openLocked(ctx, l)
	for errors.Is(err, errReleased) {
		l = s.liveFor(id)
		err = s.openLocked(ctx, l)
	}
	if err != nil {
		return l, err
	}
	l.mu.Lock()
	sess, idle := l.sess, !l.running
	l.mu.Unlock()
	// Work may have started elsewhere since the session was opened (a
	// review sent with `harness9 sessions approve`, another replica).
	if rem, ok := sess.(Remote); ok && idle {
		if events := rem.Attach(ctx); events != nil {
			if _, err := l.begin(); err == nil {
				_ = l.start(ctx, events)
			}
		}
	}
	return l, nil
}

// openLocked opens l's session unless it is open.
func (s *Server) openLocked(ctx context.Context, l *live) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.released {
		return errReleased
	}
	l.last = time.Now()
	if l.sess != nil {
		return nil
	}
	if !s.accepting() {
		return conflict("the server is shutting down; retry after it restarts")
	}
	sess, err := s.runner.Open(ctx, l.id)
	if err != nil {
		if errors.Is(err, session.ErrBusy) {
			return conflict("%v", err)
		}
		return fmt.Errorf("open session %s: %w", l.id, err)
	}
	l.sess = sess
	return nil
}

// detached reports whether sessions run outside this process (Detached).
func (s *Server) detached() bool {
	d, ok := s.runner.(Detached)
	return ok && d.Detached()
}

// adopt records a session the runner just created.
func (s *Server) adopt(sess Session) *live {
	for {
		l := s.liveFor(sess.ID())
		l.mu.Lock()
		if !l.released {
			l.sess, l.last = sess, time.Now()
			l.mu.Unlock()
			return l
		}
		l.mu.Unlock()
	}
}

// watch counts an event stream connected to session id; the returned
// func ends it.
func (s *Server) watch(id string) (*live, func()) {
	for {
		l := s.liveFor(id)
		l.mu.Lock()
		if !l.released {
			l.watchers++
			l.mu.Unlock()
			return l, func() {
				l.mu.Lock()
				l.watchers--
				l.last = time.Now()
				l.mu.Unlock()
			}
		}
		l.mu.Unlock()
	}
}

// errReleased says a live record was released while a request reached
// for it: the request takes a new one.
var errReleased = errors.New("the session was released")

// releaseIdle releases idle sessions until ctx ends.
func (s *Server) releaseIdle(ctx context.Context) {
	every := min(max(s.idle/4, 10*time.Millisecond), time.Minute)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			s.sweep(now)
		}
	}
}

// sweep releases every session idle since before now minus the idle
// timeout: its Session is closed (for the local runner, the engine and
// the session's lock) and its record with the event ring is dropped.
func (s *Server) sweep(now time.Time) {
	s.mu.Lock()
	lives := make([]*live, 0, len(s.sessions))
	for _, l := range s.sessions {
		lives = append(lives, l)
	}
	s.mu.Unlock()
	for _, l := range lives {
		l.mu.Lock()
		idle := !l.released && !l.running && l.watchers == 0 && now.Sub(l.last) >= s.idle
		var sess Session
		if idle {
			l.released, sess, l.sess = true, l.sess, nil
		}
		l.mu.Unlock()
		if !idle {
			continue
		}
		s.mu.Lock()
		if s.sessions[l.id] == l {
			delete(s.sessions, l.id)
		}
		s.mu.Unlock()
		if sess != nil {
			if err := sess.Close(); err != nil {
				s.log.Warn("serve: releasing an idle session failed", "session", l.id, "err", err)
			}
		}
	}
}

// pathFor is a short account of a request for error messages.
func pathFor(r *http.Request) string { return r.Method + " " + strings.TrimSpace(r.URL.Path) }
