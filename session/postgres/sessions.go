package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/session/internal/codec"
)

// sessionColumns is the select list scanRow reads, over sessions AS s.
const sessionColumns = `s.id, s.created, s.updated, s.workdir, s.model, s.title, s.mode, s.parent_id, s.msg_count`

// listQuery lists sessions with their saved state (NULL when none was
// saved); $1 is a workdir to filter by, or "" for all, $2 a limit (NULL:
// none), $3 a parent id whose children alone are listed, or "" for none,
// $4 whether sub-agent sessions are included when $3 is "".
const listQuery = `SELECT ` + sessionColumns + `, st.state FROM harness9.sessions AS s
	LEFT JOIN harness9.session_state AS st ON st.session_id = s.id
	WHERE ($1::text = '' OR s.workdir = $1::text)
	AND (CASE WHEN $3::text <> '' THEN s.parent_id = $3::text ELSE $4::boolean OR s.parent_id = '' END)
	ORDER BY s.updated DESC, s.id DESC LIMIT $2`

const getQuery = `SELECT ` + sessionColumns + ` FROM harness9.sessions AS s WHERE s.id = $1`

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
	_, err := s.pool.Exec(ctx, `INSERT INTO harness9.sessions (id, created, updated, workdir, model, title, mode, parent_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		sess.ID, nanos(sess.Created), nanos(sess.Updated), sess.Workdir, sess.Model, sess.Title, sess.Mode.String(), sess.ParentID)
	if isUniqueViolation(err) {
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
	sess, _, err := scanRow(s.pool.QueryRow(ctx, getQuery, id), false)
	if err == nil {
		return sess, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return session.Session{}, fmt.Errorf("get session %q: %w", id, err)
	}
	if len(id) < session.MinPrefixLen {
		return session.Session{}, fmt.Errorf("%w: %q (an id prefix needs at least %d characters)",
			session.ErrNotFound, id, session.MinPrefixLen)
	}
	// Ids compare byte by byte (COLLATE "C"), so every id starting with
	// the prefix sorts at or after it: a range scan of the primary key.
	rows, err := s.pool.Query(ctx, `SELECT id FROM harness9.sessions WHERE id >= $1 ORDER BY id LIMIT 4`, id)
	if err != nil {
		return session.Session{}, fmt.Errorf("get session %q: %w", id, err)
	}
	cands, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return session.Session{}, fmt.Errorf("get session %q: %w", id, err)
	}
	var matches []string
	for _, c := range cands {
		if !strings.HasPrefix(c, id) {
			break
		}
		matches = append(matches, c)
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
		sess, _, err := scanRow(s.pool.QueryRow(ctx, getQuery, matches[0]), false)
		if errors.Is(err, pgx.ErrNoRows) { // deleted meanwhile
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

func (s *Store) list(ctx context.Context, opts session.ListOptions, fn func(session.Session, []byte) error) error {
	var limit *int64 // NULL: no limit
	if opts.Limit > 0 {
		n := int64(opts.Limit)
		limit = &n
	}
	rows, err := s.pool.Query(ctx, listQuery, opts.Workdir, limit, opts.Parent, opts.IncludeChildren)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		sess, state, err := scanRow(rows, true)
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
	tag, err := s.pool.Exec(ctx, `UPDATE harness9.sessions SET title = $1, model = $2, mode = $3, updated = $4 WHERE id = $5`,
		sess.Title, sess.Model, sess.Mode.String(), nanos(s.now()), sess.ID)
	if err != nil {
		return fmt.Errorf("update session: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("update session: %w", notFound(sess.ID))
	}
	return nil
}

// Delete removes the session with the full id id, its messages and its
// state (the foreign keys cascade).
func (s *Store) Delete(ctx context.Context, id string) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM harness9.sessions WHERE id = $1`, id)
	if err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("delete session: %w", notFound(id))
	}
	return nil
}

// exists reports whether a session with the full id id is stored.
func (s *Store) exists(ctx context.Context, id string) (bool, error) {
	var ok bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM harness9.sessions WHERE id = $1)`, id).Scan(&ok)
	return ok, err
}

// scanRow scans sessionColumns and, withState, the raw state after them.
func scanRow(r pgx.Row, withState bool) (session.Session, []byte, error) {
	var (
		sess             session.Session
		created, updated int64
		mode             string
		count            int32
		state            *string
	)
	dest := []any{&sess.ID, &created, &updated, &sess.Workdir, &sess.Model, &sess.Title, &mode, &sess.ParentID, &count}
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
	sess.MessageCount = int(count)
	sess.Created = fromNanos(created)
	sess.Updated = fromNanos(updated)
	var raw []byte
	if state != nil {
		raw = []byte(*state)
	}
	return sess, raw, nil
}
