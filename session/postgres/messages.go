package postgres

import (
	"context"
	"fmt"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/session/internal/codec"
)

// appendQuery bumps the session's Updated time and message count and
// inserts the message with the new count as its sequence number, in one
// statement. The UPDATE locks the session row until the statement commits,
// so concurrent appends to one session, from any connection on any host,
// queue there and number their messages 1, 2, 3 ... without gaps. No row
// inserted means no such session.
const appendQuery = `WITH s AS (
		UPDATE harness9.sessions SET updated = $2, msg_count = msg_count + 1 WHERE id = $1 RETURNING msg_count
	)
	INSERT INTO harness9.messages (session_id, seq, role, created, body)
	SELECT $1, s.msg_count, $3, $2, $4 FROM s`

// AppendMessage adds m at the end of the session's history and bumps the
// session's Updated time, atomically. An unknown id wraps
// session.ErrNotFound.
func (s *Store) AppendMessage(ctx context.Context, sessionID string, m llm.Message) error {
	body, err := codec.EncodeMessageInline(m)
	if err != nil {
		return fmt.Errorf("append message to session %s: %w", sessionID, err)
	}
	tag, err := s.pool.Exec(ctx, appendQuery, sessionID, nanos(s.now()), string(m.Role), string(body))
	if err != nil {
		return fmt.Errorf("append message to session %s: %w", sessionID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("append message: %w", notFound(sessionID))
	}
	return nil
}

// Messages returns the session's whole history in order. A session without
// messages gives an empty, non-nil slice; an unknown id wraps
// session.ErrNotFound.
func (s *Store) Messages(ctx context.Context, sessionID string) ([]llm.Message, error) {
	return s.MessagesFrom(ctx, sessionID, 0)
}

// MessagesFrom returns the session's history from index from (0-based) on:
// the rows with seq > from, a range scan of the primary key that never
// reads the skipped messages. An unknown id wraps session.ErrNotFound.
func (s *Store) MessagesFrom(ctx context.Context, sessionID string, from int) ([]llm.Message, error) {
	from = max(from, 0)
	rows, err := s.pool.Query(ctx, `SELECT body FROM harness9.messages WHERE session_id = $1 AND seq > $2 ORDER BY seq`, sessionID, from)
	if err != nil {
		return nil, fmt.Errorf("load messages of session %s: %w", sessionID, err)
	}
	defer rows.Close()
	out := []llm.Message{}
	for rows.Next() {
		// RawValues is the row's text as received, without a copy.
		raw := rows.RawValues()
		m, _, err := codec.DecodeMessage(raw[0])
		if err != nil {
			return nil, fmt.Errorf("load messages of session %s: message %d: %w", sessionID, from+len(out)+1, err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load messages of session %s: %w", sessionID, err)
	}
	if len(out) == 0 {
		ok, err := s.exists(ctx, sessionID)
		if err != nil {
			return nil, fmt.Errorf("load messages of session %s: %w", sessionID, err)
		}
		if !ok {
			return nil, notFound(sessionID)
		}
	}
	return out, nil
}
