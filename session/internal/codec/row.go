package codec

import (
	"fmt"
	"time"

	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/session"
)

// SessionRow receives a session's stored columns, in the order every
// store selects them: id, created, updated (Unix nanoseconds), workdir,
// model, title, mode, parent_id, message count.
type SessionRow struct {
	sess             session.Session
	created, updated int64
	mode             string
}

// Dest returns where to scan the row's columns, followed by extra, the
// columns a query selects after them. A listing scans every row into one
// SessionRow through one Dest, so that rows cost no allocations of their
// own beyond their values.
func (r *SessionRow) Dest(extra ...any) []any {
	s := &r.sess
	return append([]any{&s.ID, &r.created, &r.updated, &s.Workdir, &s.Model, &s.Title, &r.mode, &s.ParentID, &s.MessageCount}, extra...)
}

// Session returns the scanned session.
func (r *SessionRow) Session() (session.Session, error) {
	m, err := planning.ParseMode(r.mode)
	if err != nil {
		return session.Session{}, fmt.Errorf("session %s: %w", r.sess.ID, err)
	}
	s := r.sess
	s.Mode = m
	s.Created = time.Unix(0, r.created)
	s.Updated = time.Unix(0, r.updated)
	return s, nil
}
