package agent

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/harness9/harness9/compact"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/session"
)

// ErrNoCompactor is returned by Compact on an engine built without
// WithCompactor.
var ErrNoCompactor = errors.New("agent: compaction is not configured (WithCompactor)")

// window is the model's context window in tokens.
func (e *Engine) window() int {
	if e.cfg.contextWindow > 0 {
		return e.cfg.contextWindow
	}
	return llm.ContextWindow(e.cfg.model)
}

// usageUpdate records a model call's usage and builds its UsageUpdate. The
// provider's figure (input+output) is the context size when it reports
// one; otherwise the context is estimated.
func (e *Engine) usageUpdate(u llm.Usage) UsageUpdate {
	return UsageUpdate{Usage: u, ContextTokens: e.st.RecordUsage(u, e.cfg.system), ContextWindow: e.window()}
}

// maybeCompact compacts before a model call when the context has passed
// the compactor's threshold.
func (l *turnLoop) maybeCompact(ctx context.Context) error {
	c := l.e.cfg.compactor
	if c == nil {
		return nil
	}
	// The byte bound first: counting tokens loads the tokenizer, which
	// would cost every short session tens of milliseconds for nothing.
	window := l.e.window()
	if !c.Needed(l.e.st.ContextTokensBound(l.e.cfg.system, l.defs), window) ||
		!c.Needed(l.e.st.ContextTokens(l.e.cfg.system, l.defs), window) {
		return nil
	}
	err := l.e.compactNow(ctx, l.s)
	if errors.Is(err, compact.ErrTooShort) {
		return nil
	}
	return err
}

// compactNow summarises the effective history, stores the summary and
// reports Compacted. The messages themselves stay in the store.
func (e *Engine) compactNow(ctx context.Context, s *stream) error {
	c := e.cfg.compactor
	if c == nil {
		return ErrNoCompactor
	}
	eff, offset, covered := e.st.ToCompact() // offset 1: eff[0] is the previous summary
	res, err := c.Compact(ctx, eff, e.st.TodoStore())
	if err != nil {
		return err
	}
	if res.Keep <= offset {
		return fmt.Errorf("%w: only the previous summary would be replaced", compact.ErrTooShort)
	}
	e.st.Compacted(ctx, session.Compaction{
		Summary:      res.Summary,
		Covered:      covered + res.Keep - offset,
		BeforeTokens: res.BeforeTokens,
		AfterTokens:  res.AfterTokens,
	})
	s.emit(Compacted{BeforeTokens: res.BeforeTokens, AfterTokens: res.AfterTokens, Fallback: res.Fallback, Note: res.Note})
	return nil
}

// Compact summarises the older history now (the /compact command). The
// stream ends with Done{RunCompleted}, or RunError when there is
// nothing to compact or no compactor.
func (e *Engine) Compact(ctx context.Context) iter.Seq[Event] {
	return e.serve(ctx, func(ctx context.Context, s *stream) (RunStatus, error) {
		if e.SessionID() == "" {
			return RunError, errors.New("agent: nothing to compact yet")
		}
		if !s.emit(e.started()) {
			return RunCancelled, context.Canceled
		}
		if err := e.compactNow(ctx, s); err != nil {
			if ctx.Err() != nil {
				return RunCancelled, ctx.Err()
			}
			return RunError, fmt.Errorf("agent: compaction failed: %w", err)
		}
		return RunCompleted, nil
	})
}
