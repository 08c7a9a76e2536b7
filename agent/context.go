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

// LastContextTokens is the context size of the session's last model call,
// saved with the session: what a front end's context gauge showed, for a
// session opened again.
func (e *Engine) LastContextTokens() int { return e.st.LastContextTokens() }

// maybeCompact compacts before a model call when the context has passed
// the compactor's threshold. Its error ends the run: the system prompt and
// tools alone pass the threshold (compact.ErrFixedPartTooLarge), which no
// compaction can help. Other failures are logged, and the call is made
// with the history as it is.
func (l *turnLoop) maybeCompact(ctx context.Context) error {
	c := l.e.cfg.compactor
	if c == nil {
		return nil
	}
	// The byte bound first: counting tokens loads the tokenizer, which
	// would cost every short session tens of milliseconds for nothing.
	window := l.e.window()
	if !c.Needed(l.e.st.ContextTokensBound(l.system, l.defs), window) {
		return nil
	}
	tokens := l.e.st.ContextTokens(l.system, l.defs)
	if !c.Needed(tokens, window) {
		return nil
	}
	err := l.e.compactNow(ctx, l.s, l.system, l.defs, tokens, false)
	switch {
	case errors.Is(err, compact.ErrFixedPartTooLarge):
		return fmt.Errorf("agent: %w", err)
	case err != nil && !errors.Is(err, compact.ErrTooShort):
		l.e.log.WarnContext(ctx, "agent: compaction failed; continuing with the history as it is", "err", err)
	}
	return nil
}

// compactNow compacts as compact.Compactor.Plan decides for a request with
// this system prompt and tools (tokens: its measured size, 0 if unknown;
// manual: summarise whatever the sizes), stores what changed and reports
// Compacted. The messages themselves stay in the store.
func (e *Engine) compactNow(ctx context.Context, s *stream, system string, defs []llm.ToolDef, tokens int, manual bool) error {
	c := e.cfg.compactor
	if c == nil {
		return ErrNoCompactor
	}
	sit := e.st.ToCompact()
	sit.Fixed, sit.Window, sit.Tokens, sit.Manual = compact.EstimateTokens(system, nil, defs), e.window(), tokens, manual
	p, err := c.Plan(sit)
	if err != nil || p.Action == compact.None {
		return err
	}
	next := session.Compaction{Covered: p.Covered, Elided: p.Elided, BeforeTokens: p.BeforeTokens, AfterTokens: p.AfterTokens}
	if prev := e.st.Compaction(); prev != nil {
		next.Summary, next.Count, next.Summaries, next.TokensSaved = prev.Summary, prev.Count, prev.Summaries, prev.TokensSaved
	}
	ev := Compacted{Reason: string(p.Reason), ThresholdTokens: p.Threshold, ContextWindow: p.Window, FixedTokens: p.Fixed,
		Elided: p.Shortened}
	if p.Action == compact.Summarise {
		res, err := c.Summarise(ctx, sit, p, e.st.TodoStore())
		if err != nil {
			return err
		}
		next.Summary, next.AfterTokens = res.Summary, res.AfterTokens
		next.Summaries++
		ev.Summarised, ev.Fallback, ev.Note = true, res.Fallback, res.Note
	} else {
		ev.Note = fmt.Sprintf("shortened %d older tool outputs", ev.Elided)
	}
	next.Count++
	next.TokensSaved += max(next.BeforeTokens-next.AfterTokens, 0)
	e.st.Compacted(ctx, next)
	ev.BeforeTokens, ev.AfterTokens = next.BeforeTokens, next.AfterTokens
	s.emit(ev)
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
		defs := e.registry.Definitions(e.withDenyRules(e.gateFor(e.Mode())))
		if err := e.compactNow(ctx, s, e.systemPrompt(), defs, 0, true); err != nil {
			if ctx.Err() != nil {
				return RunCancelled, ctx.Err()
			}
			return RunError, fmt.Errorf("agent: compaction failed: %w", err)
		}
		return RunCompleted, nil
	})
}
