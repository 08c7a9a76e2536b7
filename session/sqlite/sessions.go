package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/session"
)

// sessionColumns is the select list scanSession reads, over sessions AS s.
const sessionColumns = `s.id, s.created, s.updated, s.workdir, s.model, s.title, s.mode,
	(SELECT count(*) FROM messages AS m WHERE m.session_id = s.id)`

// Create inserts a new session, filling ID (a random 16-hex-character id),
// Created and Updated when they are empty. An id already in use is an error.
func (s *Store) Create(ctx context.Context, sess *session.Session) error {
	if sess.ID == "" {
		sess.ID = s.newID()
	}
	if sess.Created.IsZero() {
		sess.Created = s.now()
	}
	if sess.Updated.IsZero() {
		sess.Updated = sess.Created
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO sessions (id, created, updated, workdir, model, title, mode)
			VALUES (?, ?, ?, ?, ?, ?, ?)`,
			sess.ID, nanos(sess.Created), nanos(sess.Updated), sess.Workdir, sess.Model, sess.Title, sess.Mode.String())
		return err
	})
	if isConstraint(err) {
		return fmt.Errorf("create session: id %q is already in use", sess.ID)
	}
	if err != nil {
		return fmt.Errorf("create session: %w", err)
	}
	return nil
}

// Get returns the session whose id is id or, failing that, the only session
// whose id starts with id (at least session.MinPrefixLen characters). It
// wraps session.ErrNotFound or session.ErrAmbiguous.
func (s *Store) Get(ctx context.Context, id string) (session.Session, error) {
	row := s.db.QueryRowContext(ctx, `SELECT `+sessionColumns+` FROM sessions AS s WHERE s.id = ?`, id)
	sess, err := scanSession(row)
	if err == nil {
		return sess, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return session.Session{}, fmt.Errorf("get session %q: %w", id, err)
	}
	if len(id) < session.MinPrefixLen {
		return session.Session{}, fmt.Errorf("%w: %q (an id prefix needs at least %d characters)",
			session.ErrNotFound, id, session.MinPrefixLen)
	}
	// Every id starting with the prefix sorts at or after it, so an index
	// range scan from the prefix finds the candidates in id order.
	rows, err := s.db.QueryContext(ctx, `SELECT id FROM sessions WHERE id >= ? ORDER BY id LIMIT 4`, id)
	if err != nil {
		return session.Session{}, fmt.Errorf("get session %q: %w", id, err)
	}
	var matches []string
	for rows.Next() {
		var cand string
		if err := rows.Scan(&cand); err != nil {
			_ = rows.Close()
			return session.Session{}, fmt.Errorf("get session %q: %w", id, err)
		}
		if !strings.HasPrefix(cand, id) {
			break
		}
		matches = append(matches, cand)
	}
	_ = rows.Close()
	if err := rows.Err(); err != nil {
		return session.Session{}, fmt.Errorf("get session %q: %w", id, err)
	}
	switch len(matches) {
	case 0:
		// Generated ids are lower-case hex; someone copying "B95C…" from
		// a terminal that upper-cased it still finds the session.
		if lower := strings.ToLower(id); lower != id {
			return s.Get(ctx, lower)
		}
		return session.Session{}, notFound(id)
	case 1:
		row := s.db.QueryRowContext(ctx, `SELECT `+sessionColumns+` FROM sessions AS s WHERE s.id = ?`, matches[0])
		sess, err := scanSession(row)
		if errors.Is(err, sql.ErrNoRows) { // deleted meanwhile
			return session.Session{}, notFound(id)
		}
		if err != nil {
			return session.Session{}, fmt.Errorf("get session %q: %w", id, err)
		}
		return sess, nil
	}
	list := strings.Join(matches, ", ")
	if len(matches) > 3 {
		list = strings.Join(matches[:3], ", ") + ", ..."
	}
	return session.Session{}, fmt.Errorf("%w: %q matches %s; give more characters", session.ErrAmbiguous, id, list)
}

// List returns sessions, most recently updated first, optionally only those
// of one workdir (exact match) and at most Limit of them.
func (s *Store) List(ctx context.Context, opts session.ListOptions) ([]session.Session, error) {
	q := `SELECT ` + sessionColumns + ` FROM sessions AS s`
	var args []any
	if opts.Workdir != "" {
		q += ` WHERE s.workdir = ?`
		args = append(args, opts.Workdir)
	}
	q += ` ORDER BY s.updated DESC, s.id DESC LIMIT ?`
	limit := -1 // SQLite: no limit
	if opts.Limit > 0 {
		limit = opts.Limit
	}
	args = append(args, limit)
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	defer func() { _ = rows.Close() }()
	out := []session.Session{}
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("list sessions: %w", err)
		}
		out = append(out, sess)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return out, nil
}

// Update saves sess's Title, Model and Mode and sets Updated to now. The
// session is named by its full id.
func (s *Store) Update(ctx context.Context, sess session.Session) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE sessions SET title = ?, model = ?, mode = ?, updated = ? WHERE id = ?`,
			sess.Title, sess.Model, sess.Mode.String(), nanos(s.now()), sess.ID)
		if err != nil {
			return err
		}
		return mustAffect(res, sess.ID)
	})
	if err != nil {
		return fmt.Errorf("update session: %w", err)
	}
	return nil
}

// Delete removes the session with the full id id, its messages and its
// state (the foreign keys cascade).
func (s *Store) Delete(ctx context.Context, id string) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id)
		if err != nil {
			return err
		}
		return mustAffect(res, id)
	})
	if err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	return nil
}

// mustAffect turns "no row changed" into a wrapped session.ErrNotFound.
// bump sets the session's updated time to now and returns it; bumping first
// in a write also proves the session exists. The clock is read under the
// write lock so Updated never goes backwards between this process's writes.
func (s *Store) bump(ctx context.Context, tx *sql.Tx, sessionID string) (int64, error) {
	now := nanos(s.now())
	res, err := tx.StmtContext(ctx, s.stmtBump).ExecContext(ctx, now, sessionID)
	if err != nil {
		return 0, err
	}
	return now, mustAffect(res, sessionID)
}

func mustAffect(res sql.Result, id string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return notFound(id)
	}
	return nil
}

// queryRower is a *sql.DB or a *sql.Tx.
type queryRower interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// exists reports whether a session with the full id id is stored.
func exists(ctx context.Context, q queryRower, id string) (bool, error) {
	var one int
	err := q.QueryRowContext(ctx, `SELECT 1 FROM sessions WHERE id = ?`, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

func scanSession(r interface{ Scan(...any) error }) (session.Session, error) {
	var (
		sess             session.Session
		created, updated int64
		mode             string
	)
	if err := r.Scan(&sess.ID, &created, &updated, &sess.Workdir, &sess.Model, &sess.Title, &mode, &sess.MessageCount); err != nil {
		return session.Session{}, err
	}
	m, err := planning.ParseMode(mode)
	if err != nil {
		return session.Session{}, fmt.Errorf("session %s: %w", sess.ID, err)
	}
	sess.Mode = m
	sess.Created = fromNanos(created)
	sess.Updated = fromNanos(updated)
	return sess, nil
}
