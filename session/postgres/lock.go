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

// LockSession makes this process the one writer of session id across every
// host sharing the database. It takes a session-level advisory lock
// (pg_try_advisory_lock) on a connection taken out of the pool and held
// until Release, so the lock lives exactly as long as that connection: when
// the process dies, however it dies, the server ends the connection and the
// lock is free. It does not wait: a session another live process holds
// gives a *session.BusyError naming that process's pid and host.
func (s *Store) LockSession(ctx context.Context, id string) (session.Releaser, error) {
	if id == "" {
		return nil, errors.New("lock session: empty session id")
	}
	pc, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("lock session %s: %w", id, err)
	}
	conn := pc.Hijack() // ours alone now; the pool opens another if needed
	key := lockKey(id)
	var got bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, key).Scan(&got); err != nil {
		_ = conn.Close(context.Background())
		return nil, fmt.Errorf("lock session %s: %w", id, err)
	}
	if !got {
		_ = conn.Close(context.Background())
		return nil, s.busy(ctx, id, key)
	}
	_, err = conn.Exec(ctx, `INSERT INTO harness9.session_locks (session_id, backend_pid, pid, host, acquired)
		VALUES ($1, pg_backend_pid(), $2, $3, $4)
		ON CONFLICT (session_id) DO UPDATE SET backend_pid = excluded.backend_pid, pid = excluded.pid,
			host = excluded.host, acquired = excluded.acquired`,
		id, os.Getpid(), s.hostname, nanos(s.now()))
	if err != nil {
		_ = conn.Close(context.Background())
		return nil, fmt.Errorf("lock session %s: record the owner: %w", id, err)
	}
	return &lock{conn: conn, id: id}, nil
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
	mu   sync.Mutex
	conn *pgx.Conn
	id   string
}

// Release removes the owner row and closes the lock's connection, which
// drops the advisory lock. It is safe to call more than once.
func (l *lock) Release() error {
	l.mu.Lock()
	defer l.mu.Unlock()
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
