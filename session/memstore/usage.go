package memstore

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/harness9/harness9/session"
)

// usageKey is a row of the usage ledger within a session.
type usageKey struct {
	hour  int64
	model string
}

// AddUsage implements session.UsageStore.
func (s *Store) AddUsage(_ context.Context, sessionID string, at time.Time, model string, u session.Usage) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.sessions[sessionID]
	if !ok {
		return notFound(sessionID)
	}
	if e.usage == nil {
		e.usage = map[usageKey]session.Usage{}
	}
	k := usageKey{session.UsageHour(at), model}
	e.usage[k] = e.usage[k].Add(u)
	return nil
}

// UsageReport implements session.UsageStore, with the SQL stores' rules.
func (s *Store) UsageReport(_ context.Context, q session.UsageQuery) ([]session.UsageRow, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	since := int64(-1 << 62)
	if !q.Since.IsZero() {
		since = session.UsageHour(q.Since)
	}
	type group struct {
		total    session.Usage
		sessions map[string]bool
		models   map[string]session.Usage
	}
	groups := map[string]*group{}
	var grand session.Usage
	grandSessions := map[string]bool{}
	for id, e := range s.sessions {
		sess := e.sess
		if q.Session != "" && id != q.Session && sess.ParentID != q.Session {
			continue
		}
		for k, u := range e.usage {
			if k.hour < since {
				continue
			}
			var key string
			switch q.By {
			case session.ByDay, "":
				key = strconv.FormatInt(session.UsageDayNumber(k.hour, q.Offset), 10)
			case session.ByModel:
				key = k.model
			case session.ByWorkdir:
				key = sess.Workdir
			case session.BySession:
				key = cmp.Or(sess.ParentID, id)
			default:
				return nil, fmt.Errorf("usage report: unknown grouping %q (day, model, workdir or session)", q.By)
			}
			g := groups[key]
			if g == nil {
				g = &group{sessions: map[string]bool{}, models: map[string]session.Usage{}}
				groups[key] = g
			}
			g.total = g.total.Add(u)
			grand = grand.Add(u)
			if sess.ParentID == "" {
				grandSessions[id] = true
			}
			g.models[k.model] = g.models[k.model].Add(u)
			if sess.ParentID == "" {
				g.sessions[id] = true
			}
		}
	}
	out := []session.UsageRow{{Total: true, Sessions: len(grandSessions), Usage: grand}}
	for k, g := range groups {
		shown := k
		if q.By == session.ByDay || q.By == "" {
			n, _ := strconv.ParseInt(k, 10, 64)
			shown = session.DayFromNumber(n)
		}
		out = append(out, session.UsageRow{Key: shown, Total: true, Sessions: len(g.sessions), Usage: g.total})
		for m, u := range g.models {
			out = append(out, session.UsageRow{Key: shown, Model: m, Usage: u})
		}
	}
	session.SortUsageRows(out)
	return out, nil
}
