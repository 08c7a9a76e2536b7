package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/session/internal/codec"
)

// AppendMessage adds m at the end of the session's history and bumps the
// session's Updated time, in one transaction. The new message's sequence
// number is one more than the highest stored, computed under the write
// lock, so concurrent writers (goroutines or processes) never collide.
func (s *Store) AppendMessage(ctx context.Context, sessionID string, m llm.Message) error {
	body, err := codec.EncodeMessage(m)
	if err != nil {
		return fmt.Errorf("append message to session %s: %w", sessionID, err)
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		now, err := s.bump(ctx, tx, sessionID)
		if err != nil {
			return err
		}
		_, err = tx.StmtContext(ctx, s.stmtInsertMsg).ExecContext(ctx, sessionID, string(m.Role), now, string(body))
		return err
	})
	if err != nil {
		return fmt.Errorf("append message to session %s: %w", sessionID, err)
	}
	return nil
}

// Messages returns the session's whole history in order. A session without
// messages gives an empty, non-nil slice; an unknown id wraps
// session.ErrNotFound.
func (s *Store) Messages(ctx context.Context, sessionID string) ([]llm.Message, error) {
	return s.MessagesFrom(ctx, sessionID, 0)
}

// MessagesFrom returns the session's history from index from (0-based) on.
// Sequence numbers run 1, 2, 3 ... without gaps (messages are never
// deleted one by one), so the rows wanted are those with seq > from, an
// index range scan that never reads the skipped messages. An unknown id
// wraps session.ErrNotFound.
func (s *Store) MessagesFrom(ctx context.Context, sessionID string, from int) ([]llm.Message, error) {
	rows, err := s.stmtMessages.QueryContext(ctx, sessionID, max(from, 0))
	if err != nil {
		return nil, fmt.Errorf("load messages of session %s: %w", sessionID, err)
	}
	defer func() { _ = rows.Close() }()
	out := []llm.Message{}
	var body sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(&body); err != nil {
			return nil, fmt.Errorf("load messages of session %s: %w", sessionID, err)
		}
		m, err := codec.DecodeMessage(body)
		if err != nil {
			return nil, fmt.Errorf("load messages of session %s: message %d: %w", sessionID, max(from, 0)+len(out)+1, err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load messages of session %s: %w", sessionID, err)
	}
	if len(out) == 0 {
		ok, err := exists(ctx, s.db, sessionID)
		if err != nil {
			return nil, fmt.Errorf("load messages of session %s: %w", sessionID, err)
		}
		if !ok {
			return nil, notFound(sessionID)
		}
	}
	return out, nil
}
