package codec

import (
	"fmt"
	"time"

	"github.com/harness9/harness9/planning/plan"
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
	m, err := plan.ParseMode(r.mode)
	if err != nil {
		return session.Session{}, fmt.Errorf("session %s: %w", r.sess.ID, err)
	}
	s := r.sess
	s.Mode = m
	s.Created = time.Unix(0, r.created)
	s.Updated = time.Unix(0, r.updated)
	return s, nil
}

// Lister runs a store's listing query, scanning each row's columns after
// the session's into extra and handing each session to each.
type Lister func(extra []any, each func(session.Session)) error

// Sessions collects what list lists (Store.List).
func Sessions(list Lister) ([]session.Session, error) {
	out := []session.Session{}
	err := list(nil, func(sess session.Session) { out = append(out, sess) })
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return out, nil
}

// Summaries collects what list lists with the status and todo counts
// its query selects after the session's columns (Store.ListSummaries).
// sizeHint, when known, is how many rows to make room for.
func Summaries(list Lister, sizeHint int) ([]session.Summary, error) {
	out := make([]session.Summary, 0, sizeHint)
	var (
		status      string
		done, total int
	)
	err := list([]any{&status, &done, &total}, func(sess session.Session) {
		out = append(out, session.NewSummary(sess, plan.Status(status), done, total))
	})
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return out, nil
}
