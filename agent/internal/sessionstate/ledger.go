package sessionstate

import (
	"context"
	"time"

	"github.com/harness9/harness9/session"
)

// The usage ledger: what the session used (model calls, tokens, tool
// calls) and what became of its plans, recorded in the store when it
// implements session.UsageStore (harness9 stats) and reported to the
// program's usage hook (telemetry).

// WithUsageHook calls hook with every amount of usage the state records,
// after it is stored (or not: a store without session.UsageStore keeps
// none). hook must return quickly; it may be called with the lock held.
func WithUsageHook(hook func(ctx context.Context, sessionID, model string, u session.Usage)) Option {
	return func(s *State) { s.usageHook = hook }
}

// WithClock sets the time usage is recorded at (default time.Now).
func WithClock(now func() time.Time) Option { return func(s *State) { s.now = now } }

// AddUsage records a model call's usage u with model ("provider/model";
// "" is the session's model). It is kept in memory and written when the
// run ends (FinishRun): one write a run rather than one a turn, which on
// SQLite was a seventh of a turn's cost.
func (s *State) AddUsage(ctx context.Context, model string, u session.Usage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sess == nil {
		return
	}
	if model == "" {
		model = s.sess.Model
	}
	k := usageKey{session.UsageHour(s.now()), model}
	if s.pending == nil {
		s.pending = map[usageKey]session.Usage{}
	}
	s.pending[k] = s.pending[k].Add(u)
	if s.usageHook != nil {
		s.usageHook(ctx, s.sess.ID, model, u)
	}
}

// usageKey is a row of the ledger: an hour and a model.
type usageKey struct {
	hour  int64
	model string
}

// flushUsageLocked writes the usage recorded since the last flush. A
// failure is logged: usage accounting does not stop a run.
func (s *State) flushUsageLocked(ctx context.Context) {
	if s.sess == nil || len(s.pending) == 0 {
		return
	}
	if us, ok := s.store.(session.UsageStore); ok {
		for k, u := range s.pending {
			if err := us.AddUsage(detached(ctx), s.sess.ID, time.Unix(k.hour*3600, 0), k.model, u); err != nil {
				s.log.Warn("agent: could not record usage", "session", s.sess.ID, "err", err)
			}
		}
	}
	clear(s.pending)
}

// addUsageLocked records a plan's outcome u at once (they are rare, and
// must count once whatever happens to the run).
func (s *State) addUsageLocked(ctx context.Context, model string, u session.Usage) {
	if s.sess == nil {
		return
	}
	if model == "" {
		model = s.sess.Model
	}
	if us, ok := s.store.(session.UsageStore); ok {
		if err := us.AddUsage(detached(ctx), s.sess.ID, s.now(), model, u); err != nil {
			s.log.Warn("agent: could not record usage", "session", s.sess.ID, "err", err)
		}
	}
	if s.usageHook != nil {
		s.usageHook(ctx, s.sess.ID, model, u)
	}
}
