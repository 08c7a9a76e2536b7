package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/session/internal/codec"
)

// sessionColumns is the select list scanSession reads, over sessions AS s.
const sessionColumns = `s.id, s.created, s.updated, s.workdir, s.model, s.title, s.mode, s.parent_id, s.msg_count`

// listWhere filters and orders a listing of sessions AS s: $1 is a workdir
// to filter by, or "" for all, $2 a limit (NULL: none), $3 a parent id
// whose children alone are listed, or "" for none, $4 whether sub-agent
// sessions are included when $3 is "".
const listWhere = `
	WHERE ($1::text = '' OR s.workdir = $1::text)
	AND (CASE WHEN $3::text <> '' THEN s.parent_id = $3::text ELSE $4::boolean OR s.parent_id = '' END)
	ORDER BY s.updated DESC, s.id DESC LIMIT $2`

// listQuery lists sessions (List).
const listQuery = `SELECT ` + sessionColumns + ` FROM harness9.sessions AS s` + listWhere

// summaryQuery lists sessions with their planning status and todo counts
// (ListSummaries): columns SaveState keeps beside the state, so that no
// state's JSON is read, let alone decoded.
const summaryQuery = `SELECT ` + sessionColumns + `, s.status, s.todos_done, s.todos_total
	FROM harness9.sessions AS s` + listWhere

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
	var again bool
	err := s.retry(ctx, func(retried bool) error {
		again = retried
		_, err := s.pool.Exec(ctx, `INSERT INTO harness9.sessions (id, created, updated, workdir, model, title, mode, parent_id)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			sess.ID, nanos(sess.Created), nanos(sess.Updated), sess.Workdir, sess.Model, sess.Title, sess.Mode.String(), sess.ParentID)
		return err
	})
	if isUniqueViolation(err) && again && s.sameSession(ctx, *sess) {
		return nil // an earlier try, whose connection dropped, created it
	}
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
func (s *Store) Get(ctx context.Context, id string) (sess session.Session, err error) {
	err = s.read(ctx, func(q querier) error {
		sess, err = get(ctx, q, id)
		return err
	})
	return sess, err
}

// sameSession reports whether the stored session with sess's id is sess
// (created at the same instant in the same workdir), not another's.
func (s *Store) sameSession(ctx context.Context, sess session.Session) bool {
	got, err := s.Get(ctx, sess.ID)
	return err == nil && got.Created.Equal(sess.Created) && got.Workdir == sess.Workdir && got.ParentID == sess.ParentID
}

func get(ctx context.Context, q querier, id string) (session.Session, error) {
	sess, err := scanSession(q.QueryRow(ctx, getQuery, id))
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
	rows, err := q.Query(ctx, `SELECT id FROM harness9.sessions WHERE id >= $1 ORDER BY id LIMIT 4`, id)
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
			return get(ctx, q, lower)
		}
		return session.Session{}, notFound(id)
	case 1:
		sess, err := scanSession(q.QueryRow(ctx, getQuery, matches[0]))
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
	return codec.Sessions(s.lister(ctx, listQuery, opts))
}

// ListSummaries is List with each session's planning status and todo
// counts, in one query.
func (s *Store) ListSummaries(ctx context.Context, opts session.ListOptions) ([]session.Summary, error) {
	return codec.Summaries(s.lister(ctx, summaryQuery, opts), 0)
}

// lister runs a listing query (listWhere's parameters).
func (s *Store) lister(ctx context.Context, query string, opts session.ListOptions) codec.Lister {
	return func(extra []any, each func(session.Session)) error {
		// A try that failed part-way has handed rows to each: the
		// listing starts again only when none reached it.
		return s.read(ctx, func(q querier) error {
			n := 0
			err := s.list(ctx, q, query, opts, extra, func(sess session.Session) { n++; each(sess) })
			if err != nil && n > 0 {
				return permanent{err}
			}
			return err
		})
	}
}

// list runs a listing query (listWhere's parameters) and hands each row's
// session to fn, with the columns after sessionColumns scanned into extra.
func (s *Store) list(ctx context.Context, q querier, query string, opts session.ListOptions, extra []any, fn func(session.Session)) error {
	var limit *int64 // NULL: no limit
	if opts.Limit > 0 {
		n := int64(opts.Limit)
		limit = &n
	}
	rows, err := q.Query(ctx, query, opts.Workdir, limit, opts.Parent, opts.IncludeChildren)
	if err != nil {
		return err
	}
	defer rows.Close()
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

// Update saves sess's Title, Model and Mode and sets Updated to now. The
// session is named by its full id.
func (s *Store) Update(ctx context.Context, sess session.Session) error {
	updated := nanos(s.now())
	err := s.write(ctx, sess.ID, func(q querier, _ bool) error {
		tag, err := q.Exec(ctx, `UPDATE harness9.sessions SET title = $1, model = $2, mode = $3, updated = $4 WHERE id = $5`,
			sess.Title, sess.Model, sess.Mode.String(), updated, sess.ID)
		if err == nil && tag.RowsAffected() == 0 {
			return notFound(sess.ID)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("update session: %w", err)
	}
	return nil
}

// Delete removes the session with the full id id, its messages and its
// state (the foreign keys cascade).
func (s *Store) Delete(ctx context.Context, id string) error {
	err := s.write(ctx, id, func(q querier, retried bool) error {
		tag, err := q.Exec(ctx, `DELETE FROM harness9.sessions WHERE id = $1`, id)
		if err == nil && tag.RowsAffected() == 0 && !retried {
			return notFound(id) // (after a dropped connection, an earlier try may have deleted it)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	return nil
}

// existsOn reports whether a session with the full id id is stored.
func existsOn(ctx context.Context, q querier, id string) (bool, error) {
	var ok bool
	err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM harness9.sessions WHERE id = $1)`, id).Scan(&ok)
	return ok, err
}

// scanSession scans sessionColumns and then into extra, the columns the
// query selects after them.
func scanSession(r pgx.Row, extra ...any) (session.Session, error) {
	var row codec.SessionRow
	if err := r.Scan(row.Dest(extra...)...); err != nil {
		return session.Session{}, err
	}
	return row.Session()
}
