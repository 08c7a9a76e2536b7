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
		var u llm.Usage
		defer func() {
			m.mu.Lock()
			m.calls++
			m.tokens = addUsage(m.tokens, u)
			m.wait += time.Since(start)
			m.mu.Unlock()
		}()
		for c, err := range m.p.Stream(ctx, req) {
			if c.Kind == llm.ChunkUsage && c.Usage != nil {
				u = mergeUsage(u, *c.Usage)
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

// mergeUsage applies a later usage chunk of the same stream: its non-zero
// fields replace the earlier ones (llm.ChunkUsage).
func mergeUsage(a, b llm.Usage) llm.Usage {
	pick := func(x, y int) int {
		if y != 0 {
			return y
		}
		return x
	}
	return llm.Usage{InputTokens: pick(a.InputTokens, b.InputTokens), OutputTokens: pick(a.OutputTokens, b.OutputTokens),
		CacheReadTokens: pick(a.CacheReadTokens, b.CacheReadTokens), CacheWriteTokens: pick(a.CacheWriteTokens, b.CacheWriteTokens),
		ReasoningTokens: pick(a.ReasoningTokens, b.ReasoningTokens)}
}

func addUsage(a, b llm.Usage) llm.Usage {
	return llm.Usage{InputTokens: a.InputTokens + b.InputTokens, OutputTokens: a.OutputTokens + b.OutputTokens,
		CacheReadTokens: a.CacheReadTokens + b.CacheReadTokens, CacheWriteTokens: a.CacheWriteTokens + b.CacheWriteTokens,
		ReasoningTokens: a.ReasoningTokens + b.ReasoningTokens}
}
