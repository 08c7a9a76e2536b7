package sessionstate

import (
	"context"

	"github.com/harness9/harness9/compact"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/session"
)

// loadHistory loads a resumed session's history. When a stored compaction
// summary stands in for the first Covered messages, those are never sent to
// the model again, so only the rest is read and decoded: a compacted
// 10,000-message session resumes in the time of its last few turns. The
// covered part is held as zero-value placeholders, so every index into the
// history (Covered, the usage mark) keeps its meaning; History reads the
// real messages from the store when someone asks for the whole
// conversation. skipped is the number of placeholders.
func loadHistory(ctx context.Context, st session.Store, s session.Session, c *session.Compaction) (msgs []llm.Message, skipped int, err error) {
	if c == nil || c.Covered <= 0 || c.Covered > s.MessageCount {
		msgs, err = st.Messages(ctx, s.ID)
		return msgs, 0, err
	}
	rest, err := st.MessagesFrom(ctx, s.ID, c.Covered)
	if err != nil {
		return nil, 0, err
	}
	msgs = make([]llm.Message, c.Covered, c.Covered+len(rest))
	return append(msgs, rest...), c.Covered, nil
}

// History returns a copy of the whole conversation, including messages a
// compaction summary stands in for: those a lean Load skipped are read
// from the store first. If that read fails, the messages that were loaded
// are returned.
func (s *State) History() []llm.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.skipped > 0 && s.sess != nil {
		all, err := s.store.Messages(context.Background(), s.sess.ID)
		if err != nil || len(all) < s.skipped {
			s.log.Warn("agent: could not load the compacted part of the history", "session", s.sess.ID, "err", err)
			return append([]llm.Message(nil), s.history[s.skipped:]...)
		}
		// A new array, not a copy into the placeholders: slices of the
		// history handed out earlier (a request being encoded, a run
		// loop's memo of what it checked) must never see their messages
		// change.
		full := make([]llm.Message, len(s.history), cap(s.history))
		copy(full, all[:s.skipped])
		copy(full[s.skipped:], s.history[s.skipped:])
		s.history, s.skipped = full, 0
	}
	return append([]llm.Message(nil), s.history...)
}

// Len returns the number of messages in the history.
func (s *State) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.history)
}

// Read calls fn with the history as stored (a lean Load's skipped messages
// are zero-value placeholders) while holding the state's lock: fn must
// neither keep nor change the slice, and must not call the State.
func (s *State) Read(fn func(history []llm.Message)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn(s.history[:len(s.history):len(s.history)])
}

// Effective is what the model sees: the compaction summary (its Active
// Tasks block refreshed from the todo list) standing in for the messages it
// covers, then the rest verbatim but for the old tool outputs compaction
// shortened. The returned slice must not be appended to in place; its
// capacity is capped to guarantee it.
func (s *State) Effective() []llm.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.effectiveLocked()
}

func (s *State) effectiveLocked() []llm.Message {
	if !s.compactedLocked() {
		return s.history[:len(s.history):len(s.history)]
	}
	c := s.compaction
	rest := s.history[c.Covered:]
	summary := s.summaryLocked()
	e := &s.eff
	if e.msgs != nil && e.comp == c && e.hist == &s.history[0] && e.summary == summary && e.n <= len(rest) {
		// The same compaction over a history that only grew: add the new
		// messages (never shortened: compaction shortens only what the
		// model has seen). Earlier results were returned capped, so
		// appending never changes what a caller holds.
		e.msgs = append(e.msgs, rest[e.n:]...)
		e.n = len(rest)
		return e.msgs[:len(e.msgs):len(e.msgs)]
	}
	out := make([]llm.Message, 0, len(rest)+1+len(rest)/4+8)
	if summary != "" {
		out = append(out, compact.SummaryMessage(summary))
	}
	if e.msgs != nil && e.comp == c && e.hist == &s.history[0] && e.n <= len(rest) {
		// Only the summary's Active Tasks changed (a todo_write): the
		// shortened outputs are taken as they are, not made again.
		prev := e.msgs[len(e.msgs)-e.n:]
		out = append(append(out, prev...), rest[e.n:]...)
	} else {
		elided := min(c.Elided, len(s.history)) - c.Covered
		for i, m := range rest {
			if i < elided {
				m = compact.Elide(m)
			}
			out = append(out, m)
		}
	}
	s.eff = effective{msgs: out, comp: c, hist: &s.history[0], summary: summary, n: len(rest)}
	return s.eff.msgs[:len(s.eff.msgs):len(s.eff.msgs)]
}

// summaryLocked is the summary message's text as sent, "" when no summary
// stands in for the start of the history.
func (s *State) summaryLocked() string {
	if !s.compactedLocked() || s.compaction.Covered == 0 {
		return ""
	}
	return compact.RefreshActiveTasks(s.compaction.Summary, s.todos)
}

// effective is the last effective history of a compacted session: while
// the summary stays the same and the history only grows, the next one is
// this plus the new messages, made without copying the whole history and
// with the same backing array, which the request path's memos (shape
// checks, encodings, request bodies) reuse. Long sessions are the
// compacted ones; copying their history for every model call made a
// turn's cost grow with it. A new compaction, a reload or a history
// reallocated by an append starts a new one (comp, hist).
type effective struct {
	msgs    []llm.Message
	comp    *session.Compaction
	hist    *llm.Message
	summary string
	n       int // messages of the history after the summary in msgs
}

// compactedLocked reports whether a stored compaction changes the
// requests: a summary stands in for the start of the history, or old tool
// outputs are shortened.
func (s *State) compactedLocked() bool {
	c := s.compaction
	return c != nil && len(s.history) > 0 && c.Covered >= 0 && c.Covered <= len(s.history) && (c.Covered > 0 || c.Elided > 0)
}
