// Package postgres implements session.Store on PostgreSQL through pgx
// (github.com/jackc/pgx/v5, pure Go), for several harness9 processes on
// several hosts sharing one database.
//
// Its tables live in the schema harness9, created with the rest of the
// versioned schema when Open first meets the database. Concurrent writers
// are safe: every write is one statement, and an append takes its sequence
// number from the session row it updates, under that row's lock. The
// one-writer-per-session rule is enforced across hosts by LockSession
// (session.Locker), a PostgreSQL advisory lock held on a connection of its
// own for as long as the session is run; the server drops it when that
// connection dies with its process or host.
//
// pgx follows libpq's conventions: parameters missing from the URL come
// from the PG* environment variables and ~/.pgpass.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/harness9/harness9/session"
)

// Store is a session.Store backed by a PostgreSQL database. It is safe for
// concurrent use by several goroutines, processes and hosts.
type Store struct {
	pool     *pgxpool.Pool
	dsn      string // redacted, for messages
	now      func() time.Time
	newID    func() string
	hostname string
	retryFor time.Duration

	locksMu   sync.Mutex
	lockConns []*lockConn   // the connections holding session locks (lock.go)
	keeping   chan struct{} // closed by Close: keep stops
	// keepEvery is how often keep checks the held locks.
	keepEvery time.Duration
}

var (
	_ session.Store  = (*Store)(nil)
	_ session.Locker = (*Store)(nil)
)

// Option configures Open.
type Option func(*config)

type config struct {
	now      func() time.Time
	newID    func() string
	hostname string
	maxConns int32
	retryFor time.Duration
}

// WithClock sets the clock used for Created and Updated times (tests).
func WithClock(now func() time.Time) Option {
	return func(c *config) { c.now = now }
}

// WithIDGenerator sets the function that makes new session ids (tests). It
// must return a fresh id on every call.
func WithIDGenerator(newID func() string) Option {
	return func(c *config) { c.newID = newID }
}

// WithHostname sets the host name a session lock records for the message
// another process shows (default os.Hostname).
func WithHostname(h string) Option {
	return func(c *config) { c.hostname = h }
}

// WithMaxConns caps the connection pool (default: pgxpool's, the larger of
// 4 and the number of CPUs, or pool_max_conns in the URL). Each held
// session lock takes one more connection outside the pool.
func WithMaxConns(n int32) Option {
	return func(c *config) { c.maxConns = n }
}

// WithRetry sets how long an operation goes on trying while the database
// cannot be reached, its connection dropped or the server restarts
// (default DefaultRetryFor; 0 or less tries once). A write that may have
// taken effect before its connection dropped is not made twice.
func WithRetry(d time.Duration) Option {
	return func(c *config) {
		c.retryFor = d
		if d <= 0 {
			c.retryFor = -1
		}
	}
}

// Open connects to the database named by dsn (a postgres:// URL or a
// key=value string, as libpq takes) and brings its schema up to date. A
// database written by a newer harness9 is refused. The password never
// appears in an error.
func Open(ctx context.Context, dsn string, opts ...Option) (*Store, error) {
	cfg := config{now: time.Now, newID: session.NewID, retryFor: DefaultRetryFor}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.hostname == "" {
		cfg.hostname, _ = os.Hostname()
	}
	red := Redact(dsn)
	fail := func(err error) error {
		return fmt.Errorf("open session database %s: %w", red, scrub(err, dsn))
	}
	pc, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fail(err)
	}
	if cfg.maxConns > 0 {
		pc.MaxConns = cfg.maxConns
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fail(err)
	}
	s := &Store{pool: pool, dsn: red, now: cfg.now, newID: cfg.newID, hostname: cfg.hostname, retryFor: cfg.retryFor,
		keepEvery: defaultKeepEvery}
	if err := migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, fail(err)
	}
	return s, nil
}

// Ping checks that the database answers, once (no retry): readiness.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("the session database %s does not answer: %w", s.dsn, err)
	}
	return nil
}

// DSN returns the database's URL with its password replaced by "xxxxx".
func (s *Store) DSN() string { return s.dsn }

// Close closes the pool and the connections holding session locks (which
// frees the locks). The Store must not be used afterwards.
func (s *Store) Close() error {
	s.closeLocks()
	s.pool.Close()
	return nil
}

// nanos converts t to the stored form (codec.SessionRow reads it back).
func nanos(t time.Time) int64 { return t.UnixNano() }

func notFound(id string) error {
	return fmt.Errorf("%w: %q", session.ErrNotFound, id)
}

// isUniqueViolation reports whether err is PostgreSQL's unique_violation.
func isUniqueViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}
