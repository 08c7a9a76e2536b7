package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/session/internal/codec"
)

// sessionColumns is the select list scanSession reads, over sessions AS s.
// Sequence numbers run 1, 2, 3 ... without gaps, so the highest one is the
// message count, read from the (session_id, seq) index without counting.
const sessionColumns = `s.id, s.created, s.updated, s.workdir, s.model, s.title, s.mode, s.parent_id,
	(SELECT coalesce(max(m.seq), 0) FROM messages AS m WHERE m.session_id = s.id)`

// listQuery lists sessions with their saved state (NULL when none was
// saved); ?1 is a workdir to filter by, or "" for all, ?2 a limit (-1: none),
// ?3 a parent id whose children alone are listed, or "" for none, ?4 1 to
// include sub-agent sessions when ?3 is "".
const listQuery = `SELECT ` + sessionColumns + `, st.state FROM sessions AS s
	LEFT JOIN session_state AS st ON st.session_id = s.id
	WHERE (?1 = '' OR s.workdir = ?1)
	AND (CASE WHEN ?3 != '' THEN s.parent_id = ?3 ELSE ?4 = 1 OR s.parent_id = '' END)
	ORDER BY s.updated DESC, s.id DESC LIMIT ?2`

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
		_, err := tx.ExecContext(ctx, `INSERT INTO sessions (id, created, updated, workdir, model, title, mode, parent_id)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			sess.ID, nanos(sess.Created), nanos(sess.Updated), sess.Workdir, sess.Model, sess.Title, sess.Mode.String(), sess.ParentID)
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
	sess, err := scanSession(s.stmtGet.QueryRowContext(ctx, id))
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
		sess, err := scanSession(s.stmtGet.QueryRowContext(ctx, matches[0]))
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
	out := []session.Session{}
	err := s.list(ctx, opts, func(sess session.Session, _ []byte) error {
		out = append(out, sess)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return out, nil
}

// ListWithState is List with each session's saved state, in one query.
func (s *Store) ListWithState(ctx context.Context, opts session.ListOptions) ([]session.Listing, error) {
	out := []session.Listing{}
	err := s.list(ctx, opts, func(sess session.Session, state []byte) error {
		st, err := codec.DecodeState(state)
		if err != nil {
			return fmt.Errorf("session %s: %w", sess.ID, err)
		}
		out = append(out, session.Listing{Session: sess, State: st})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return out, nil
}

// list runs listQuery and hands each row to fn with its raw state (nil
// when none was saved).
func (s *Store) list(ctx context.Context, opts session.ListOptions, fn func(session.Session, []byte) error) error {
	limit := -1 // SQLite: no limit
	if opts.Limit > 0 {
		limit = opts.Limit
	}
	children := 0
	if opts.IncludeChildren {
		children = 1
	}
	rows, err := s.stmtList.QueryContext(ctx, opts.Workdir, limit, opts.Parent, children)
	if err != nil {
		return err
	}
	defer func() { _ = rows.Close() }()
	for rows.Next() {
		sess, state, err := scanListed(rows)
		if err != nil {
			return err
		}
		if err := fn(sess, state); err != nil {
			return err
		}
	}
	return rows.Err()
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
		if err := mustAffect(res, id); err != nil {
			return err
		}
		// The session's messages went with it (ON DELETE CASCADE); its
		// pictures go too unless another session's message uses them.
		_, err = tx.ExecContext(ctx, `DELETE FROM images WHERE NOT EXISTS
			(SELECT 1 FROM message_images AS mi WHERE mi.sha256 = images.sha256)`)
		return err
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
	sess, _, err := scanRow(r, false)
	return sess, err
}

// scanListed scans a listQuery row: the session and its raw state.
func scanListed(r interface{ Scan(...any) error }) (session.Session, []byte, error) {
	return scanRow(r, true)
}

func scanRow(r interface{ Scan(...any) error }, withState bool) (session.Session, []byte, error) {
	var (
		sess             session.Session
		created, updated int64
		mode             string
		state            []byte
	)
	dest := []any{&sess.ID, &created, &updated, &sess.Workdir, &sess.Model, &sess.Title, &mode, &sess.ParentID, &sess.MessageCount}
	if withState {
		dest = append(dest, &state)
	}
	if err := r.Scan(dest...); err != nil {
		return session.Session{}, nil, err
	}
	m, err := planning.ParseMode(mode)
	if err != nil {
		return session.Session{}, nil, fmt.Errorf("session %s: %w", sess.ID, err)
	}
	sess.Mode = m
	sess.Created = fromNanos(created)
	sess.Updated = fromNanos(updated)
	return sess, state, nil
}
