package postgres

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/harness9/harness9/session"
)

// releaseTimeout bounds Release's goodbye to the server; the lock is gone
// as soon as the connection closes in any case.
const releaseTimeout = 5 * time.Second

// lockKey is the advisory lock key of session id: a 64-bit FNV-1a hash of
// it in a harness9 namespace. Two ids sharing a key would only make one
// wait for the other wrongly, never let two writers in.
func lockKey(id string) int64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte("harness9/session/" + id))
	return int64(h.Sum64())
}

// LockLostError is why a write to a locked session was refused: the
// connection holding its lock dropped (the server restarted, the network
// failed) and another process took the lock before this one could take it
// again. This process is no longer the session's writer; the other one is.
type LockLostError struct {
	SessionID string
	Busy      *session.BusyError // who holds it now, as far as known
}

func (e *LockLostError) Error() string {
	return fmt.Sprintf("session %s was taken over by another process while the database connection holding its lock was down (%v); "+
		"this process no longer writes it", e.SessionID, e.Busy)
}

// ErrLockLost is matched (errors.Is) by a *LockLostError.
var ErrLockLost = errors.New("session lock lost")

// Is makes errors.Is(err, ErrLockLost) hold.
func (e *LockLostError) Is(target error) bool { return target == ErrLockLost }

// LockSession makes this process the one writer of session id across every
// host sharing the database. It takes a session-level advisory lock
// (pg_try_advisory_lock) on a connection taken out of the pool and held
// until Release, so the lock lives exactly as long as that connection: when
// the process dies, however it dies, the server ends the connection and the
// lock is free. It does not wait: a session another live process holds
// gives a *session.BusyError naming that process's pid and host.
//
// While the lock is held, this store's writes to the session run on that
// connection. When it drops (a server restart), the lock is taken again on
// a new connection, by the next write or within keepEvery; if another
// process took it first, writes fail with a *LockLostError.
func (s *Store) LockSession(ctx context.Context, id string) (session.Releaser, error) {
	if id == "" {
		return nil, errors.New("lock session: empty session id")
	}
	l := &lock{s: s, id: id, key: lockKey(id)}
	err := s.retry(ctx, func(bool) error { return l.take(ctx) })
	var busy *session.BusyError
	if errors.As(err, &busy) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("lock session %s: %w", id, err)
	}
	s.locksMu.Lock()
	s.locks[id] = l
	if s.keeping == nil {
		s.keeping = make(chan struct{})
		go s.keep(s.keeping)
	}
	s.locksMu.Unlock()
	return l, nil
}

// held returns this store's lock of session id, or nil.
func (s *Store) held(id string) *lock {
	s.locksMu.Lock()
	defer s.locksMu.Unlock()
	return s.locks[id]
}

// defaultKeepEvery is how often held locks are checked for a dropped
// connection (Store.keepEvery).
const defaultKeepEvery = 2 * time.Second

// keep takes again, until stop is closed, the locks whose connection
// dropped (it pings each): a session held but not being written (a plan
// waiting for its review) is held again soon after the server is back,
// before another process can take it.
func (s *Store) keep(stop <-chan struct{}) {
	t := time.NewTicker(s.keepEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		s.locksMu.Lock()
		locks := make([]*lock, 0, len(s.locks))
		for _, l := range s.locks {
			locks = append(locks, l)
		}
		s.locksMu.Unlock()
		for _, l := range locks {
			l.check()
		}
	}
}

// busy builds the BusyError for a session whose lock is taken, naming the
// holder when its owner row belongs to the backend that holds the lock
// (a row left by a dead holder, or not yet written by a new one, is not
// believed).
func (s *Store) busy(ctx context.Context, id string, key int64) error {
	e := &session.BusyError{SessionID: id, Path: "PostgreSQL advisory lock in " + s.dsn}
	var pid *int32
	var host *string
	err := s.pool.QueryRow(ctx, `SELECT k.pid, k.host FROM pg_locks AS l
		LEFT JOIN harness9.session_locks AS k ON k.session_id = $3 AND k.backend_pid = l.pid
		WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
			AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
			AND l.classid = $1::bigint::oid AND l.objid = $2::bigint::oid
		LIMIT 1`, int64(uint64(key)>>32), int64(uint32(key)), id).Scan(&pid, &host)
	if err == nil && pid != nil {
		e.PID = int(*pid)
		e.Host = *host
	}
	return e
}

// lock is a held session lock.
type lock struct {
	s   *Store
	id  string
	key int64

	mu       sync.Mutex
	conn     *pgx.Conn // nil while the connection is down
	lost     error     // a *LockLostError once another process took the lock
	released bool
}

// take takes the advisory lock on a new connection and records the owner;
// a lock another process holds gives a *session.BusyError. Called with l.mu
// held, or before l is shared.
func (l *lock) take(ctx context.Context) error {
	pc, err := l.s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	conn := pc.Hijack() // ours alone now; the pool opens another if needed
	var got bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, l.key).Scan(&got); err != nil {
		_ = conn.Close(context.Background())
		return err
	}
	if !got {
		_ = conn.Close(context.Background())
		return l.s.busy(ctx, l.id, l.key)
	}
	_, err = conn.Exec(ctx, `INSERT INTO harness9.session_locks (session_id, backend_pid, pid, host, acquired)
		VALUES ($1, pg_backend_pid(), $2, $3, $4)
		ON CONFLICT (session_id) DO UPDATE SET backend_pid = excluded.backend_pid, pid = excluded.pid,
			host = excluded.host, acquired = excluded.acquired`,
		l.id, os.Getpid(), l.s.hostname, nanos(l.s.now()))
	if err != nil {
		_ = conn.Close(context.Background())
		return fmt.Errorf("record the owner: %w", err)
	}
	l.conn = conn
	return nil
}

// retake takes the lock again after its connection dropped; another
// process holding it by now makes the loss final. Called with l.mu held.
func (l *lock) retake(ctx context.Context) error {
	err := l.take(ctx)
	var busy *session.BusyError
	if errors.As(err, &busy) {
		l.lost = &LockLostError{SessionID: l.id, Busy: busy}
		return l.lost
	}
	return err
}

// do runs op on the lock's connection, taking the lock again first if the
// connection dropped.
func (l *lock) do(ctx context.Context, op func(q querier) error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.lost != nil:
		return l.lost
	case l.released:
		return fmt.Errorf("the lock of session %s was released", l.id)
	}
	if l.conn != nil && l.conn.IsClosed() {
		l.conn = nil
	}
	if l.conn == nil {
		if err := l.retake(ctx); err != nil {
			return err
		}
	}
	err := op(l.conn)
	if err != nil && l.conn.IsClosed() {
		l.conn = nil // the next try takes the lock again
	}
	return err
}

// check pings the lock's connection and, if it dropped, takes the lock
// again, once, if the server answers. A lock busy with a write is left to
// that write.
func (l *lock) check() {
	if !l.mu.TryLock() {
		return
	}
	defer l.mu.Unlock()
	if l.released || l.lost != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), max(l.s.keepEvery, time.Second))
	defer cancel()
	if l.conn != nil && !l.conn.IsClosed() && l.conn.Ping(ctx) == nil {
		return
	}
	if l.conn != nil {
		_ = l.conn.Close(context.Background())
		l.conn = nil
	}
	_ = l.retake(ctx)
}

// Release removes the owner row and closes the lock's connection, which
// drops the advisory lock. It is safe to call more than once.
func (l *lock) Release() error {
	l.s.locksMu.Lock()
	if l.s.locks[l.id] == l {
		delete(l.s.locks, l.id)
	}
	l.s.locksMu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.released = true
	if l.conn == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	_, err := l.conn.Exec(ctx, `DELETE FROM harness9.session_locks WHERE session_id = $1 AND backend_pid = pg_backend_pid()`, l.id)
	if cerr := l.conn.Close(ctx); err == nil {
		err = cerr
	}
	l.conn = nil
	if err != nil {
		return fmt.Errorf("release the lock of session %s: %w", l.id, err)
	}
	return nil
}
