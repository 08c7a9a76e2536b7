package agent

import (
	"context"

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

// fullHistoryLocked returns a copy of the whole conversation, first
// reading from the store the messages a lean resume skipped. If that read
// fails, the messages that were loaded are returned.
func (e *Engine) fullHistoryLocked() []llm.Message {
	if e.skipped > 0 && e.sess != nil {
		all, err := e.cfg.store.Messages(context.Background(), e.sess.ID)
		if err != nil || len(all) < e.skipped {
			e.log.Warn("agent: could not load the compacted part of the history", "session", e.sess.ID, "err", err)
			return append([]llm.Message(nil), e.history[e.skipped:]...)
		}
		copy(e.history, all[:e.skipped])
		e.skipped = 0
	}
	return append([]llm.Message(nil), e.history...)
}
