package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/harness9/harness9/planning/plan"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/session/internal/codec"
)

// LoadState returns the session's saved state. When none was saved it
// returns a zero State whose Todos is an empty, non-nil slice. An unknown id
// wraps session.ErrNotFound.
func (s *Store) LoadState(ctx context.Context, sessionID string) (session.State, error) {
	var body string
	var none bool
	err := s.read(ctx, func(q querier) error {
		err := q.QueryRow(ctx, `SELECT state FROM harness9.session_state WHERE session_id = $1`, sessionID).Scan(&body)
		if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		ok, err := existsOn(ctx, q, sessionID)
		if err == nil && !ok {
			return notFound(sessionID)
		}
		none = true
		return err
	})
	if errors.Is(err, session.ErrNotFound) {
		return session.State{}, err
	}
	if err != nil {
		return session.State{}, fmt.Errorf("load state of session %s: %w", sessionID, err)
	}
	if none {
		return session.State{Todos: []plan.TodoItem{}}, nil
	}
	st, err := codec.DecodeState([]byte(body))
	if err != nil {
		return session.State{}, fmt.Errorf("load state of session %s: %w", sessionID, err)
	}
	return st, nil
}

// saveQuery bumps the session's Updated time, sets the status and todo
// counts ListSummaries reads ($4, $5, $6) and upserts its state in one
// statement; no row written means no such session.
const saveQuery = `WITH s AS (
		UPDATE harness9.sessions SET updated = $2, status = $4, todos_done = $5, todos_total = $6 WHERE id = $1 RETURNING id
	)
	INSERT INTO harness9.session_state (session_id, updated, state) SELECT s.id, $2, $3 FROM s
	ON CONFLICT (session_id) DO UPDATE SET updated = excluded.updated, state = excluded.state`

// SaveState replaces the session's saved state, with the status and todo
// counts ListSummaries reads, and bumps its Updated time.
// An unknown id wraps session.ErrNotFound.
func (s *Store) SaveState(ctx context.Context, sessionID string, st session.State) error {
	body, err := codec.EncodeState(st)
	if err != nil {
		return fmt.Errorf("save state of session %s: %w", sessionID, err)
	}
	sum := session.Summarize(session.Session{}, st)
	updated := nanos(s.now())
	err = s.write(ctx, sessionID, func(q querier, _ bool) error {
		// A full replace: trying it again after a dropped connection
		// leaves the same row.
		tag, err := q.Exec(ctx, saveQuery, sessionID, updated, string(body), string(st.Status), sum.TodosDone, sum.TodosTotal)
		if err == nil && tag.RowsAffected() == 0 {
			return notFound(sessionID)
		}
		return err
	})
	if errors.Is(err, session.ErrNotFound) {
		return fmt.Errorf("save state: %w", err)
	}
	if err != nil {
		return fmt.Errorf("save state of session %s: %w", sessionID, err)
	}
	return nil
}
