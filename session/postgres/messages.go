package postgres

import (
	"context"
	"errors"
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

// appendAgainQuery is appendQuery for a try after one whose connection
// dropped, which may have committed: it appends nothing when the session's
// last message is already this one (same body, same creation time, in
// nanoseconds). The one writer of a session makes that check exact.
const appendAgainQuery = `WITH s AS (
		UPDATE harness9.sessions AS x SET updated = $2, msg_count = msg_count + 1 WHERE x.id = $1
			AND NOT EXISTS (SELECT 1 FROM harness9.messages AS m
				WHERE m.session_id = $1 AND m.seq = x.msg_count AND m.created = $2 AND m.body = $4)
		RETURNING msg_count
	)
	INSERT INTO harness9.messages (session_id, seq, role, created, body)
	SELECT $1, s.msg_count, $3, $2, $4 FROM s`

// AppendMessage adds m at the end of the session's history and bumps the
// session's Updated time, atomically. An unknown id wraps
// session.ErrNotFound. A connection that drops is retried (WithRetry)
// without appending m twice.
func (s *Store) AppendMessage(ctx context.Context, sessionID string, m llm.Message) error {
	body, err := codec.EncodeMessageInline(m)
	if err != nil {
		return fmt.Errorf("append message to session %s: %w", sessionID, err)
	}
	created := nanos(s.now())
	err = s.write(ctx, sessionID, func(q querier, retried bool) error {
		query := appendQuery
		if retried {
			query = appendAgainQuery
		}
		tag, err := q.Exec(ctx, query, sessionID, created, string(m.Role), string(body))
		if err != nil || tag.RowsAffected() > 0 {
			return err
		}
		if ok, err := existsOn(ctx, q, sessionID); err != nil || !ok {
			return errors.Join(err, notFound(sessionID))
		}
		if !retried {
			return notFound(sessionID)
		}
		return nil // an earlier try appended it
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

// MessagesFrom returns the session's history from index from (0-based) on:
// the rows with seq > from, a range scan of the primary key that never
// reads the skipped messages. An unknown id wraps session.ErrNotFound.
func (s *Store) MessagesFrom(ctx context.Context, sessionID string, from int) ([]llm.Message, error) {
	from = max(from, 0)
	var out []llm.Message
	err := s.read(ctx, func(q querier) (err error) {
		out, err = messagesFrom(ctx, q, sessionID, from)
		return err
	})
	return out, err
}

func messagesFrom(ctx context.Context, q querier, sessionID string, from int) ([]llm.Message, error) {
	rows, err := q.Query(ctx, `SELECT body FROM harness9.messages WHERE session_id = $1 AND seq > $2 ORDER BY seq`, sessionID, from)
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
		ok, err := existsOn(ctx, q, sessionID)
		if err != nil {
			return nil, fmt.Errorf("load messages of session %s: %w", sessionID, err)
		}
		if !ok {
			return nil, notFound(sessionID)
		}
	}
	return out, nil
}
