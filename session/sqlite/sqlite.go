// Package sqlite implements session.Store on SQLite through the pure-Go
// modernc.org/sqlite driver (no cgo).
//
// The database runs in WAL mode with a busy timeout, foreign keys on and
// synchronous=NORMAL, set in the DSN so that every pooled connection gets
// them. Writes run in BEGIN IMMEDIATE transactions, so several processes
// can share one database file: a writer waits for the lock instead of
// failing with "database is locked" halfway through a transaction. Each
// committed write survives the writing process being killed.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/harness9/harness9/session"

	sqlite "modernc.org/sqlite" // also registers the "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"
)

// DefaultBusyTimeout is how long a write waits for another connection or
// process to release the database lock before giving up.
const DefaultBusyTimeout = 5 * time.Second

// Store is a session.Store backed by one SQLite database file. It is safe
// for concurrent use by several goroutines and several processes.
type Store struct {
	db    *sql.DB
	path  string
	now   func() time.Time
	newID func() string

	// writeMu serialises this process's write transactions so that its own
	// goroutines queue here rather than in SQLite's sleeping busy handler.
	// Other processes are kept out by BEGIN IMMEDIATE and the busy timeout.
	writeMu sync.Mutex

	stmtBump      *sql.Stmt
	stmtBumpMsg   *sql.Stmt
	stmtInsertMsg *sql.Stmt
	stmtMessages  *sql.Stmt
	stmtGet       *sql.Stmt
	stmtList      *sql.Stmt
	stmtSummaries *sql.Stmt
	stmtCount     *sql.Stmt
}

var _ session.Store = (*Store)(nil)

// Option configures Open.
type Option func(*config)

type config struct {
	now         func() time.Time
	newID       func() string
	busyTimeout time.Duration
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

// WithBusyTimeout sets how long a write waits for the database lock held by
// another connection or process. The default is DefaultBusyTimeout.
func WithBusyTimeout(d time.Duration) Option {
	return func(c *config) { c.busyTimeout = d }
}

// Open opens (creating if needed) the session database at path, creating
// its parent directories, and brings its schema up to date. A database
// written by a newer harness9 than this one is refused.
func Open(path string, opts ...Option) (*Store, error) {
	cfg := config{now: time.Now, newID: session.NewID, busyTimeout: DefaultBusyTimeout}
	for _, o := range opts {
		o(&cfg)
	}
	if path == "" {
		return nil, errors.New("open session database: empty path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open session database %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("open session database: create directory: %w", err)
	}
	// Conversations can hold secrets pasted by the user: create the file
	// private. SQLite gives the -wal and -shm files the same permissions.
	if f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
		_ = f.Close()
	} else if !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("open session database: %w", err)
	}

	db, err := sql.Open("sqlite", dsn(abs, cfg.busyTimeout))
	if err != nil {
		return nil, fmt.Errorf("open session database %s: %w", abs, err)
	}
	s := &Store{db: db, path: abs, now: cfg.now, newID: cfg.newID}
	if err := s.init(context.Background()); err != nil {
		_ = s.Close()
		return nil, fmt.Errorf("open session database %s: %w", abs, err)
	}
	return s, nil
}

// dsn builds a file: URI for path carrying the connection settings. Every
// connection the pool opens runs the _pragma list; _txlock makes each
// transaction BEGIN IMMEDIATE, taking the write lock up front so a
// read-then-write transaction can never fail with SQLITE_BUSY midway.
func dsn(path string, busy time.Duration) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "temp_store(MEMORY)")
	// No mmap_size: a memory map saved a 1000-session listing about 120
	// page faults (4 ms here), but it turns a database file cut short
	// under a running process into SIGBUS, which ends the process,
	// instead of an error (TestTruncatedWhileOpen).
	q.Set("_txlock", "immediate")
	// The path is escaped so that '?', '#' and '%' in it survive URI parsing.
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

func (s *Store) init(ctx context.Context) error {
	if err := migrate(ctx, s.db); err != nil {
		return err
	}
	var err error
	prepare := func(query string) *sql.Stmt {
		if err != nil {
			return nil
		}
		var st *sql.Stmt
		st, err = s.db.PrepareContext(ctx, query)
		return st
	}
	s.stmtBump = prepare(`UPDATE sessions SET updated = ? WHERE id = ?`)
	s.stmtBumpMsg = prepare(`UPDATE sessions SET updated = ?, msg_count = msg_count + 1 WHERE id = ?`)
	s.stmtInsertMsg = prepare(`INSERT INTO messages (session_id, seq, role, created, body)
		VALUES (?1, (SELECT msg_count FROM sessions WHERE id = ?1), ?2, ?3, ?4)`)
	s.stmtMessages = prepare(`SELECT body FROM messages WHERE session_id = ? AND seq > ? ORDER BY seq`)
	s.stmtGet = prepare(`SELECT ` + sessionColumns + ` FROM sessions AS s WHERE s.id = ?`)
	s.stmtList = prepare(listQuery)
	s.stmtSummaries = prepare(summaryQuery)
	s.stmtCount = prepare(countQuery)
	if err != nil {
		return fmt.Errorf("prepare statements: %w", err)
	}
	return nil
}

// Path returns the database file's absolute path.
func (s *Store) Path() string { return s.path }

// Close closes the database. The Store must not be used afterwards.
func (s *Store) Close() error {
	for _, st := range []*sql.Stmt{s.stmtBump, s.stmtBumpMsg, s.stmtInsertMsg, s.stmtMessages, s.stmtGet, s.stmtList, s.stmtSummaries, s.stmtCount} {
		if st != nil {
			_ = st.Close()
		}
	}
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close session database %s: %w", s.path, err)
	}
	return nil
}

// write runs fn in one BEGIN IMMEDIATE transaction and commits it.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// nanos converts t to the stored form (codec.SessionRow reads it back).
func nanos(t time.Time) int64 { return t.UnixNano() }

func notFound(id string) error {
	return fmt.Errorf("%w: %q", session.ErrNotFound, id)
}

// isConstraint reports whether err is a SQLite constraint violation.
func isConstraint(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_CONSTRAINT
}
