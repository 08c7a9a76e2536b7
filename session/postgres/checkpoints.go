package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/harness9/harness9/session"
)

var _ session.CheckpointStore = (*Store)(nil)

// saveCheckpointQuery bumps the session's Updated time and records the
// checkpoint in one statement; no row means no such session. The first
// save of a (session, turn, path) keeps the prior state for good.
const saveCheckpointQuery = `WITH s AS (
		UPDATE harness9.sessions SET updated = $2 WHERE id = $1 RETURNING id
	)
	INSERT INTO harness9.checkpoints
		(session_id, turn, path, prompt, existed, content, mode, too_large, after_exists, after_hash, rewound, created)
	SELECT s.id, $3, $4, $5, $6, $7, $8, $9, $10, $11, false, $12 FROM s
	ON CONFLICT (session_id, turn, path) DO UPDATE SET
		after_exists = excluded.after_exists, after_hash = excluded.after_hash, rewound = false`

// SaveCheckpoint implements session.CheckpointStore.
func (s *Store) SaveCheckpoint(ctx context.Context, sessionID string, c session.Checkpoint) error {
	created := c.Created
	if created.IsZero() {
		created = s.now()
	}
	content := c.Content
	if content == nil {
		content = []byte{}
	}
	updated := nanos(s.now())
	err := s.write(ctx, sessionID, func(q querier, _ bool) error {
		// An upsert: trying it again leaves the same row.
		tag, err := q.Exec(ctx, saveCheckpointQuery, sessionID, updated, c.Turn, c.Path, c.Prompt, c.Existed,
			content, int64(c.Mode), c.TooLarge, c.AfterExists, c.AfterHash, nanos(created))
		if err == nil && tag.RowsAffected() == 0 {
			return notFound(sessionID)
		}
		return err
	})
	if errors.Is(err, session.ErrNotFound) {
		return fmt.Errorf("save checkpoint: %w", err)
	}
	if err != nil {
		return fmt.Errorf("save checkpoint of %s in session %s: %w", c.Path, sessionID, err)
	}
	return nil
}

// Checkpoints implements session.CheckpointStore.
func (s *Store) Checkpoints(ctx context.Context, sessionID string) ([]session.Checkpoint, error) {
	var out []session.Checkpoint
	err := s.read(ctx, func(q querier) (err error) {
		out, err = checkpoints(ctx, q, sessionID)
		return err
	})
	return out, err
}

func checkpoints(ctx context.Context, q querier, sessionID string) ([]session.Checkpoint, error) {
	ok, err := existsOn(ctx, q, sessionID)
	if err != nil {
		return nil, fmt.Errorf("load checkpoints of session %s: %w", sessionID, err)
	}
	if !ok {
		return nil, notFound(sessionID)
	}
	rows, err := q.Query(ctx, `SELECT turn, path, prompt, existed, content, mode, too_large,
		after_exists, after_hash, rewound, created FROM harness9.checkpoints WHERE session_id = $1 ORDER BY turn, path COLLATE "C"`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("load checkpoints of session %s: %w", sessionID, err)
	}
	defer rows.Close()
	out := []session.Checkpoint{}
	for rows.Next() {
		var c session.Checkpoint
		var mode, created int64
		if err := rows.Scan(&c.Turn, &c.Path, &c.Prompt, &c.Existed, &c.Content, &mode, &c.TooLarge,
			&c.AfterExists, &c.AfterHash, &c.Rewound, &created); err != nil {
			return nil, fmt.Errorf("load checkpoints of session %s: %w", sessionID, err)
		}
		if c.Content == nil {
			c.Content = []byte{}
		}
		c.Mode = uint32(mode)
		c.Created = time.Unix(0, created).UTC()
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load checkpoints of session %s: %w", sessionID, err)
	}
	return out, nil
}

// MarkRewound implements session.CheckpointStore.
func (s *Store) MarkRewound(ctx context.Context, sessionID string, fromTurn int) error {
	updated := nanos(s.now())
	err := s.write(ctx, sessionID, func(q querier, _ bool) error {
		tag, err := q.Exec(ctx, `UPDATE harness9.sessions SET updated = $2 WHERE id = $1`, sessionID, updated)
		if err == nil && tag.RowsAffected() == 0 {
			return notFound(sessionID)
		}
		if err == nil {
			_, err = q.Exec(ctx, `UPDATE harness9.checkpoints SET rewound = true WHERE session_id = $1 AND turn >= $2`, sessionID, fromTurn)
		}
		return err
	})
	if errors.Is(err, session.ErrNotFound) {
		return fmt.Errorf("mark rewound: %w", err)
	}
	if err != nil {
		return fmt.Errorf("mark turns from %d of session %s rewound: %w", fromTurn, sessionID, err)
	}
	return nil
}
