package sessionstate

import (
	"context"

	"github.com/harness9/harness9/compact"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/session"
)

// usageMark remembers the context size a provider reported, so the next
// estimate only has to count what was appended since.
type usageMark struct {
	tokens  int // input+output tokens of the last model call; 0 = unknown
	histLen int // len(history) right after that call's message
	covered int // how far compaction had gone at that time (coveredLocked)
}

// UsageMark is the context size a provider last reported, in the form a
// caller carries it from one State to another (a step on a fresh engine).
type UsageMark struct {
	Tokens  int // input+output tokens of the last model call; 0 = unknown
	HistLen int // len(history) right after that call's message
	Covered int // how far compaction had gone at that time: Covered + Elided
}

// Usage returns the context size a provider last reported.
func (s *State) Usage() UsageMark {
	s.mu.Lock()
	defer s.mu.Unlock()
	return UsageMark{Tokens: s.usage.tokens, HistLen: s.usage.histLen, Covered: s.usage.covered}
}

// SetUsage takes m as the context size a provider last reported (m.Tokens
// 0: none). A mark that does not fit the history (longer than it) is
// dropped.
func (s *State) SetUsage(m UsageMark) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.usage = usageMark{}
	if m.Tokens > 0 && m.HistLen <= len(s.history) {
		s.usage = usageMark{tokens: m.Tokens, histLen: m.HistLen, covered: m.Covered}
	}
}

// coveredLocked is how far compaction has gone: the messages a summary
// stands in for plus where shortened outputs end. Both only grow, so the
// sum changes with every compaction, a trim that summarised nothing
// included: a provider's figure from before it no longer measures the
// history.
func (s *State) coveredLocked() int {
	if s.compaction == nil {
		return 0
	}
	return s.compaction.Covered + s.compaction.Elided
}

// RecordUsage records a model call's usage, made before its message is
// appended, and returns the context size: the provider's figure
// (input+output) when it reports one, otherwise an estimate of system and
// the effective history.
func (s *State) RecordUsage(u llm.Usage, system string) (contextTokens int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.usage = usageMark{}
	if tokens := u.InputTokens + u.OutputTokens; tokens > 0 {
		// The assistant message is appended right after the call.
		s.usage = usageMark{tokens: tokens, histLen: len(s.history) + 1, covered: s.coveredLocked()}
	}
	s.lastContext = s.usage.tokens
	if s.lastContext == 0 {
		s.lastContext = compact.EstimateTokens(system, s.effectiveLocked(), nil)
	}
	return s.lastContext
}

// LastContextTokens is the context size of the session's last model call
// (RecordUsage's), as saved with the state; 0 before any.
func (s *State) LastContextTokens() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastContext
}

// ContextTokens is the size of the next request: the provider's last
// figure plus an estimate of what was appended since, or a full estimate
// (system, effective history, tools) when there is no figure or a
// compaction changed the history.
func (s *State) ContextTokens(system string, tools []llm.ToolDef) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.usage
	if m.tokens > 0 && m.covered == s.coveredLocked() && m.histLen <= len(s.history) {
		return m.tokens + compact.EstimateTokens("", s.history[m.histLen:], nil)
	}
	return compact.EstimateTokens(system, s.effectiveLocked(), tools)
}

// ContextTokensBound is an upper bound of ContextTokens that needs no
// tokenizer (compact.TokenBound): while it is under a threshold, so is
// ContextTokens.
func (s *State) ContextTokensBound(system string, tools []llm.ToolDef) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.usage
	if m.tokens > 0 && m.covered == s.coveredLocked() && m.histLen <= len(s.history) {
		return m.tokens + compact.TokenBound("", s.history[m.histLen:], nil)
	}
	return compact.TokenBound(system, s.effectiveLocked(), tools)
}

// ToCompact returns what a compaction plans from: the history (the part a
// summary covers may be placeholders; the slice must not be changed), the
// summary as sent, and what the stored compaction covers and shortens.
// The caller adds the fixed part, the window and the measured size.
func (s *State) ToCompact() compact.Situation {
	s.mu.Lock()
	defer s.mu.Unlock()
	sit := compact.Situation{History: s.history[:len(s.history):len(s.history)]}
	if s.compactedLocked() {
		sit.Summary, sit.Covered, sit.Elided = s.summaryLocked(), s.compaction.Covered, s.compaction.Elided
	}
	return sit
}

// Compacted stores c as what compaction changed in the requests (the
// summary standing in for the start of the history, the old outputs
// shortened) and saves the state. The usage figure is dropped: it measured
// the history before the summary.
func (s *State) Compacted(ctx context.Context, c session.Compaction) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.compaction = &c
	s.usage = usageMark{}
	s.saveLocked(ctx)
}
