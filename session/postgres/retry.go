package postgres

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// DefaultRetryFor is how long a store operation goes on trying while the
// database cannot be reached (a server restarting, a network failing over)
// before it gives up: long enough to ride out a restart, short enough that
// a run does not hang for good on a database that is gone.
const DefaultRetryFor = 30 * time.Second

// Backoff between the tries of one operation: doubling from retryFirst up
// to retryMax.
const (
	retryFirst = 50 * time.Millisecond
	retryMax   = time.Second
)

// querier runs statements: the pool, or the connection holding a session's
// lock (both *pgxpool.Pool and *pgx.Conn).
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// transient reports whether err says the database could not be reached or
// dropped the connection, rather than that the statement is wrong: trying
// again later may succeed.
func transient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var lost *LockLostError
	var p permanent
	if errors.As(err, &lost) || errors.As(err, &p) {
		return false
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) || pgconn.SafeToRetry(err) {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case len(pe.Code) == 5 && pe.Code[:2] == "08": // connection_exception
			return true
		case pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03": // admin or crash shutdown, starting up
			return true
		case pe.Code == "53300": // too_many_connections
			return true
		case pe.Code == "40001", pe.Code == "40P01": // serialization failure, deadlock
			return true
		}
		return false
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, pgconn.ErrConnClosed) || errors.Is(err, net.ErrClosed)
}

// permanent marks an error that must not be retried although its cause
// could be (a listing that failed after handing out rows).
type permanent struct{ error }

func (p permanent) Unwrap() error { return p.error }

// retry runs op until it succeeds, fails for a reason other than the
// connection, ctx ends, or s.retryFor has passed since the first try. op
// learns whether an earlier try failed: a write whose connection dropped
// after the statement was sent may have taken effect, and the next try
// must not make it twice.
func (s *Store) retry(ctx context.Context, op func(retried bool) error) error {
	err := op(false)
	if err == nil || s.retryFor <= 0 || !transient(err) {
		return err
	}
	deadline := time.Now().Add(s.retryFor)
	wait := retryFirst
	for {
		if time.Now().Add(wait).After(deadline) {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return errors.Join(err, ctx.Err())
		case <-t.C:
		}
		wait = min(2*wait, retryMax)
		if err = op(true); err == nil || !transient(err) {
			return err
		}
	}
}

// read runs a query on the pool, retried while the database is unreachable.
func (s *Store) read(ctx context.Context, op func(q querier) error) error {
	return s.retry(ctx, func(bool) error { return op(s.pool) })
}

// write runs a change to session id, retried while the database is
// unreachable. While this store holds the session's lock the change runs on
// the lock's own connection: it lands only while the lock is held, and a
// lock lost with its connection is taken again (or reported lost) before it
// runs.
func (s *Store) write(ctx context.Context, id string, op func(q querier, retried bool) error) error {
	return s.retry(ctx, func(retried bool) error {
		if l := s.held(id); l != nil {
			return l.do(ctx, func(q querier) error { return op(q, retried) })
		}
		return op(s.pool, retried)
	})
}
