package eval

import (
	"context"
	"iter"
	"sync"
	"time"

	"github.com/harness9/harness9/llm"
)

// meter is a provider that counts the calls made through it, the tokens
// they used and the time spent waiting for them: the engine's turns, the
// compactor's summaries and web_fetch's alike.
type meter struct {
	p llm.Provider

	mu     sync.Mutex
	calls  int
	tokens llm.Usage
	wait   time.Duration
}

func (m *meter) Name() string { return m.p.Name() }

func (m *meter) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	return func(yield func(llm.Chunk, error) bool) {
		start := time.Now()
		var usage llm.Accumulator // merges the stream's usage chunks as the engine does
		defer func() {
			m.mu.Lock()
			m.calls++
			m.tokens = addUsage(m.tokens, usage.Response().Usage)
			m.wait += time.Since(start)
			m.mu.Unlock()
		}()
		for c, err := range m.p.Stream(ctx, req) {
			if c.Kind == llm.ChunkUsage {
				usage.Add(c)
			}
			if !yield(c, err) {
				return
			}
		}
	}
}

func (m *meter) totals() (int, llm.Usage, int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls, m.tokens, m.wait.Milliseconds()
}

func addUsage(a, b llm.Usage) llm.Usage {
	return llm.Usage{InputTokens: a.InputTokens + b.InputTokens, OutputTokens: a.OutputTokens + b.OutputTokens,
		CacheReadTokens: a.CacheReadTokens + b.CacheReadTokens, CacheWriteTokens: a.CacheWriteTokens + b.CacheWriteTokens,
		ReasoningTokens: a.ReasoningTokens + b.ReasoningTokens}
}
