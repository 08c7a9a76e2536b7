package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/harness9/harness9/session"
)

var _ session.CheckpointStore = (*Store)(nil)

// SaveCheckpoint implements session.CheckpointStore: the first save of a
// (session, turn, path) keeps the file's prior state; later ones update
// what the agent left.
func (s *Store) SaveCheckpoint(ctx context.Context, sessionID string, c session.Checkpoint) error {
	created := c.Created
	if created.IsZero() {
		created = s.now()
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		if _, err := s.bump(ctx, tx, sessionID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO checkpoints
			(session_id, turn, path, prompt, existed, content, mode, too_large, after_exists, after_hash, rewound, created)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?)
			ON CONFLICT (session_id, turn, path) DO UPDATE SET
				after_exists = excluded.after_exists, after_hash = excluded.after_hash, rewound = 0`,
			sessionID, c.Turn, c.Path, c.Prompt, c.Existed, nonNil(c.Content), int64(c.Mode), c.TooLarge,
			c.AfterExists, c.AfterHash, nanos(created))
		return err
	})
	if err != nil {
		return fmt.Errorf("save checkpoint of %s in session %s: %w", c.Path, sessionID, err)
	}
	return nil
}

// nonNil stores an empty file as an empty BLOB rather than NULL.
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// Checkpoints implements session.CheckpointStore.
func (s *Store) Checkpoints(ctx context.Context, sessionID string) ([]session.Checkpoint, error) {
	ok, err := exists(ctx, s.db, sessionID)
	if err != nil {
		return nil, fmt.Errorf("load checkpoints of session %s: %w", sessionID, err)
	}
	if !ok {
		return nil, notFound(sessionID)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT turn, path, prompt, existed, content, mode, too_large,
		after_exists, after_hash, rewound, created FROM checkpoints WHERE session_id = ? ORDER BY turn, path`, sessionID)
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
	err := s.write(ctx, func(tx *sql.Tx) error {
		if _, err := s.bump(ctx, tx, sessionID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE checkpoints SET rewound = 1 WHERE session_id = ? AND turn >= ?`,
			sessionID, fromTurn)
		return err
	})
	if err != nil {
		return fmt.Errorf("mark turns from %d of session %s rewound: %w", fromTurn, sessionID, err)
	}
	return nil
}
