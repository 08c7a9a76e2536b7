package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/session/internal/codec"
)

// AppendMessage adds m at the end of the session's history, bumps the
// session's Updated time and raises its message count, in one
// transaction. The new message's sequence number is the raised count,
// read under the write lock, so concurrent writers (goroutines or
// processes) never collide.
func (s *Store) AppendMessage(ctx context.Context, sessionID string, m llm.Message) error {
	body, err := codec.EncodeMessage(m)
	if err != nil {
		return fmt.Errorf("append message to session %s: %w", sessionID, err)
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		now := nanos(s.now())
		res, err := tx.StmtContext(ctx, s.stmtBumpMsg).ExecContext(ctx, now, sessionID)
		if err != nil {
			return err
		}
		if err := mustAffect(res, sessionID); err != nil {
			return err
		}
		res, err = tx.StmtContext(ctx, s.stmtInsertMsg).ExecContext(ctx, sessionID, string(m.Role), now, string(body))
		if err != nil || len(m.Images) == 0 {
			return err
		}
		return insertImages(ctx, tx, res, m.Images)
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
	var wanted []imageSlot
	for rows.Next() {
		if err := rows.Scan(&body); err != nil {
			return nil, fmt.Errorf("load messages of session %s: %w", sessionID, err)
		}
		m, shas, err := codec.DecodeMessage(body)
		if err != nil {
			return nil, fmt.Errorf("load messages of session %s: message %d: %w", sessionID, max(from, 0)+len(out)+1, err)
		}
		for i, sha := range shas {
			wanted = append(wanted, imageSlot{msg: len(out), img: i, sha: sha})
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load messages of session %s: %w", sessionID, err)
	}
	_ = rows.Close()
	if err := s.loadImages(ctx, out, wanted); err != nil {
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

// imageSlot is an image of a loaded message waiting for its bytes.
type imageSlot struct {
	msg, img int
	sha      string
}

// insertImages stores a new message's images by content and links them to
// the message (res is its INSERT).
func insertImages(ctx context.Context, tx *sql.Tx, res sql.Result, images []llm.Image) error {
	id, err := res.LastInsertId()
	if err != nil {
		return err
	}
	for _, im := range images {
		sha := codec.ImageSHA(im.Data)
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO images (sha256, data) VALUES (?, ?)`, sha, im.Data); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO message_images (message_id, sha256) VALUES (?, ?)`, id, sha); err != nil {
			return err
		}
	}
	return nil
}

// loadImages fills in the bytes of the images in slots, reading each
// distinct picture once.
func (s *Store) loadImages(ctx context.Context, msgs []llm.Message, slots []imageSlot) error {
	seen := map[string][]byte{}
	for _, sl := range slots {
		data, ok := seen[sl.sha]
		if !ok {
			err := s.db.QueryRowContext(ctx, `SELECT data FROM images WHERE sha256 = ?`, sl.sha).Scan(&data)
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("message %d: image %s is missing from the database", sl.msg+1, sl.sha)
			}
			if err != nil {
				return err
			}
			seen[sl.sha] = data
		}
		msgs[sl.msg].Images[sl.img].Data = data
	}
	return nil
}
