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

// lockConns is how many connections a store holds its session locks on:
// the locks of many sessions share one, so a process running a thousand
// sessions uses a handful of connections, and the writes of different
// sessions do not queue behind one another's.
const lockConns = 4

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
// (pg_try_advisory_lock) on one of the store's lock connections, held out
// of the pool until Release, so the lock lives exactly as long as that
// connection: when the process dies, however it dies, the server ends the
// connection and the lock is free. It does not wait: a session another live
// process (or this one) holds gives a *session.BusyError naming its pid and
// host.
//
// While the lock is held, this store's writes to the session run on that
// connection. When it drops (a server restart), its locks are taken again
// on a new connection, by the next write or within a few seconds; a session
// another process took meanwhile makes writes fail with a *LockLostError.
func (s *Store) LockSession(ctx context.Context, id string) (session.Releaser, error) {
	if id == "" {
		return nil, errors.New("lock session: empty session id")
	}
	c := s.lockConn(id)
	l := &lock{s: s, c: c, id: id, key: lockKey(id)}
	err := s.retry(ctx, func(bool) error { return c.add(ctx, l) })
	var busy *session.BusyError
	if errors.As(err, &busy) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("lock session %s: %w", id, err)
	}
	return l, nil
}

// lockConn returns the connection that holds session id's lock, starting
// the keeper with the first.
func (s *Store) lockConn(id string) *lockConn {
	s.locksMu.Lock()
	defer s.locksMu.Unlock()
	if s.lockConns == nil {
		for range lockConns {
			s.lockConns = append(s.lockConns, &lockConn{s: s, locks: map[string]*lock{}})
		}
		s.keeping = make(chan struct{})
		go s.keep(s.keeping)
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(id))
	return s.lockConns[h.Sum32()%lockConns]
}

// held returns this store's lock of session id, or nil.
func (s *Store) held(id string) *lock {
	s.locksMu.Lock()
	none := s.lockConns == nil
	s.locksMu.Unlock()
	if none {
		return nil
	}
	c := s.lockConn(id)
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.locks[id]
}

// defaultKeepEvery is how often the lock connections are checked
// (Store.keepEvery).
const defaultKeepEvery = 2 * time.Second

// keep pings the lock connections until stop is closed and takes again the
// locks of one that dropped: a session held but not being written (a plan
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
		conns := s.lockConns
		s.locksMu.Unlock()
		for _, c := range conns {
			c.check()
		}
	}
}

// closeLocks closes the lock connections (Close): the server frees their
// locks.
func (s *Store) closeLocks() {
	s.locksMu.Lock()
	conns := s.lockConns
	if s.keeping != nil {
		close(s.keeping)
		s.keeping = nil
	}
	s.locksMu.Unlock()
	for _, c := range conns {
		c.mu.Lock()
		c.drop()
		c.mu.Unlock()
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

// lockConn is a connection taken out of the pool that holds the advisory
// locks of some of the store's sessions, and runs their writes.
type lockConn struct {
	s *Store

	mu    sync.Mutex
	conn  *pgx.Conn // nil while down or while it holds no lock
	locks map[string]*lock
}

// lock is a held session lock.
type lock struct {
	s   *Store
	c   *lockConn
	id  string
	key int64

	// Guarded by c.mu.
	lost     error // a *LockLostError once another process took the lock
	released bool
}

// ready makes sure c has a live connection holding its locks, opening one
// and taking them again if it dropped. Called with c.mu held.
func (c *lockConn) ready(ctx context.Context) error {
	if c.conn != nil && !c.conn.IsClosed() {
		return nil
	}
	c.drop()
	pc, err := c.s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	c.conn = pc.Hijack() // ours alone now; the pool opens another if needed
	for _, l := range c.locks {
		if l.lost != nil {
			continue
		}
		if err := c.take(ctx, l); err != nil {
			var busy *session.BusyError
			if !errors.As(err, &busy) {
				c.drop()
				return err
			}
			// Kept in c.locks: its writes are refused until Release,
			// rather than landing through the pool.
			l.lost = &LockLostError{SessionID: l.id, Busy: busy}
		}
	}
	return nil
}

// drop closes c's connection. Called with c.mu held.
func (c *lockConn) drop() {
	if c.conn != nil {
		_ = c.conn.Close(context.Background())
		c.conn = nil
	}
}

// take takes l's advisory lock on c's connection and records the owner; a
// lock another process holds gives a *session.BusyError. Called with c.mu
// held and the connection ready.
func (c *lockConn) take(ctx context.Context, l *lock) error {
	var got bool
	if err := c.conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, l.key).Scan(&got); err != nil {
		return err
	}
	if !got {
		return c.s.busy(ctx, l.id, l.key)
	}
	_, err := c.conn.Exec(ctx, `INSERT INTO harness9.session_locks (session_id, backend_pid, pid, host, acquired)
		VALUES ($1, pg_backend_pid(), $2, $3, $4)
		ON CONFLICT (session_id) DO UPDATE SET backend_pid = excluded.backend_pid, pid = excluded.pid,
			host = excluded.host, acquired = excluded.acquired`,
		l.id, os.Getpid(), c.s.hostname, nanos(c.s.now()))
	if err != nil {
		_, _ = c.conn.Exec(ctx, `SELECT pg_advisory_unlock($1)`, l.key)
		return fmt.Errorf("record the owner: %w", err)
	}
	return nil
}

// add takes l on c. This process holding the session already is busy too:
// advisory locks are reentrant on one connection, the one-writer rule is not.
func (c *lockConn) add(ctx context.Context, l *lock) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.locks[l.id]; ok && old.lost == nil {
		return &session.BusyError{SessionID: l.id, PID: os.Getpid(), Host: c.s.hostname, Path: "PostgreSQL advisory lock in " + c.s.dsn}
	}
	if err := c.ready(ctx); err != nil {
		return err
	}
	if err := c.take(ctx, l); err != nil {
		if c.conn.IsClosed() {
			c.drop()
		}
		return err
	}
	c.locks[l.id] = l
	return nil
}

// do runs op on the lock's connection, taking its locks again first if it
// dropped.
func (l *lock) do(ctx context.Context, op func(q querier) error) error {
	c := l.c
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case l.lost != nil:
		return l.lost
	case l.released:
		return fmt.Errorf("the lock of session %s was released", l.id)
	}
	if err := c.ready(ctx); err != nil {
		return err
	}
	if l.lost != nil {
		return l.lost
	}
	err := op(c.conn)
	if err != nil && c.conn.IsClosed() {
		c.drop() // the next try takes the locks again
	}
	return err
}

// check pings c's connection and, if it dropped, takes its locks again,
// once, if the server answers. A connection busy with a write is left to
// that write.
func (c *lockConn) check() {
	if !c.mu.TryLock() {
		return
	}
	defer c.mu.Unlock()
	if c.conn == nil && len(c.locks) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), max(c.s.keepEvery, time.Second))
	defer cancel()
	if c.conn != nil && !c.conn.IsClosed() && c.conn.Ping(ctx) == nil {
		return
	}
	c.drop()
	_ = c.ready(ctx)
}

// Release removes the owner row and gives the advisory lock up; the lock
// connection closes with its last lock. It is safe to call more than once.
func (l *lock) Release() error {
	c := l.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if l.released {
		return nil
	}
	l.released = true
	if c.locks[l.id] != l {
		return nil // lost, and taken again by a newer LockSession
	}
	delete(c.locks, l.id)
	if l.lost != nil {
		return nil // another process holds it
	}
	if c.conn == nil || c.conn.IsClosed() {
		c.drop()
		return nil // the server dropped the lock with the connection
	}
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	_, err := c.conn.Exec(ctx, `DELETE FROM harness9.session_locks WHERE session_id = $1 AND backend_pid = pg_backend_pid()`, l.id)
	if err == nil {
		_, err = c.conn.Exec(ctx, `SELECT pg_advisory_unlock($1)`, l.key)
	}
	if err != nil || len(c.locks) == 0 {
		// Closing frees every lock it held; the others are taken again on
		// a new connection by their next write or the keeper.
		c.drop()
	}
	if err != nil {
		return fmt.Errorf("release the lock of session %s: %w", l.id, err)
	}
	return nil
}
