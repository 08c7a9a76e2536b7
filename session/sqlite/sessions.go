package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/session/internal/codec"
)

// sessionColumns is the select list scanSession reads, over sessions AS s.
// msg_count is raised by AppendMessage with each message.
const sessionColumns = `s.id, s.created, s.updated, s.workdir, s.model, s.title, s.mode, s.parent_id, s.msg_count`

// listFilter selects the sessions of a listing of sessions AS s: ?1 is a
// workdir to filter by, or "" for all, ?3 a parent id whose children alone
// are listed, or "" for none, ?4 1 to include sub-agent sessions when ?3
// is "". listWhere adds the order and ?2, a limit (-1: none).
const listFilter = `
	WHERE (?1 = '' OR s.workdir = ?1)
	AND (CASE WHEN ?3 != '' THEN s.parent_id = ?3 ELSE ?4 = 1 OR s.parent_id = '' END)`

const listWhere = listFilter + `
	ORDER BY s.updated DESC, s.id DESC LIMIT ?2`

// countQuery counts what a listing with the same parameters returns, so
// that ListSummaries allocates its result once: growing it row by row
// made three times the memory, all of it fresh pages.
const countQuery = `SELECT min(count(*), CASE WHEN ?2 < 0 THEN count(*) ELSE ?2 END) FROM sessions AS s` + listFilter

// listQuery lists sessions (List).
const listQuery = `SELECT ` + sessionColumns + ` FROM sessions AS s` + listWhere

// summaryQuery lists sessions with their planning status and todo counts
// (ListSummaries): columns SaveState keeps beside the state, so that no
// state's JSON is read, let alone decoded.
const summaryQuery = `SELECT ` + sessionColumns + `, s.status, s.todos_done, s.todos_total
	FROM sessions AS s` + listWhere

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
	return codec.Sessions(s.lister(ctx, s.stmtList, opts))
}

// ListSummaries is List with each session's planning status and todo
// counts, in one query (after a count that sizes the result).
func (s *Store) ListSummaries(ctx context.Context, opts session.ListOptions) ([]session.Summary, error) {
	var n int
	if err := s.stmtCount.QueryRowContext(ctx, listArgs(opts)...).Scan(&n); err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return codec.Summaries(s.lister(ctx, s.stmtSummaries, opts), n) // more may come meanwhile: append grows it
}

// lister runs a listing statement (listWhere's parameters).
func (s *Store) lister(ctx context.Context, stmt *sql.Stmt, opts session.ListOptions) codec.Lister {
	return func(extra []any, each func(session.Session)) error { return s.list(ctx, stmt, opts, extra, each) }
}

// list runs a listing statement (listWhere's parameters) and hands each
// row's session to fn, with the columns after sessionColumns scanned into
// extra.
func (s *Store) list(ctx context.Context, stmt *sql.Stmt, opts session.ListOptions, extra []any, fn func(session.Session)) error {
	rows, err := stmt.QueryContext(ctx, listArgs(opts)...)
	if err != nil {
		return err
	}
	defer func() { _ = rows.Close() }()
	var row codec.SessionRow
	dest := row.Dest(extra...)
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		sess, err := row.Session()
		if err != nil {
			return err
		}
		fn(sess)
	}
	return rows.Err()
}

// listArgs are listWhere's parameters for opts.
func listArgs(opts session.ListOptions) []any {
	limit := -1 // SQLite: no limit
	if opts.Limit > 0 {
		limit = opts.Limit
	}
	children := 0
	if opts.IncludeChildren {
		children = 1
	}
	return []any{opts.Workdir, limit, opts.Parent, children}
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

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(...any) error }

// scanSession scans sessionColumns and then into extra, the columns the
// query selects after them.
func scanSession(r scanner, extra ...any) (session.Session, error) {
	var row codec.SessionRow
	if err := r.Scan(row.Dest(extra...)...); err != nil {
		return session.Session{}, err
	}
	return row.Session()
}
