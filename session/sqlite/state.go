package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/harness9/harness9/planning/plan"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/session/internal/codec"
)

// LoadState returns the session's saved state. When none was saved it
// returns a zero State whose Todos is an empty, non-nil slice. An unknown id
// wraps session.ErrNotFound.
func (s *Store) LoadState(ctx context.Context, sessionID string) (session.State, error) {
	var body []byte
	err := s.db.QueryRowContext(ctx, `SELECT state FROM session_state WHERE session_id = ?`, sessionID).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		ok, err := exists(ctx, s.db, sessionID)
		if err != nil {
			return session.State{}, fmt.Errorf("load state of session %s: %w", sessionID, err)
		}
		if !ok {
			return session.State{}, notFound(sessionID)
		}
		return session.State{Todos: []plan.TodoItem{}}, nil
	}
	if err != nil {
		return session.State{}, fmt.Errorf("load state of session %s: %w", sessionID, err)
	}
	st, err := codec.DecodeState(body)
	if err != nil {
		return session.State{}, fmt.Errorf("load state of session %s: %w", sessionID, err)
	}
	return st, nil
}

// SaveState replaces the session's saved state, with the status and todo
// counts ListSummaries reads, and bumps its Updated time.
// An unknown id wraps session.ErrNotFound.
func (s *Store) SaveState(ctx context.Context, sessionID string, st session.State) error {
	body, err := codec.EncodeState(st)
	if err != nil {
		return fmt.Errorf("save state of session %s: %w", sessionID, err)
	}
	sum := session.Summarize(session.Session{}, st)
	err = s.write(ctx, func(tx *sql.Tx) error {
		// The listing's columns change with the state, in one transaction.
		now := nanos(s.now())
		res, err := tx.ExecContext(ctx, `UPDATE sessions SET updated = ?, status = ?, todos_done = ?, todos_total = ? WHERE id = ?`,
			now, string(st.Status), sum.TodosDone, sum.TodosTotal, sessionID)
		if err != nil {
			return err
		}
		if err := mustAffect(res, sessionID); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO session_state (session_id, updated, state) VALUES (?, ?, ?)
			ON CONFLICT (session_id) DO UPDATE SET updated = excluded.updated, state = excluded.state`,
			sessionID, now, string(body))
		return err
	})
	if err != nil {
		return fmt.Errorf("save state of session %s: %w", sessionID, err)
	}
	return nil
}
