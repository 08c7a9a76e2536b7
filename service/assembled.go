package service

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/harness"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/session"
)

// Assembled is the EngineFactory of engines assembled as `harness9 serve`
// assembles them (package harness): each session's workdir gets its own
// agent, harness.New(ctx, p, workdir, opts...) — give it the service's
// store with harness.WithStore — and its engine holds the session's lock:
// the store's own (session.Locker) or a lock file in lockDir
// (session.LockDir of a data directory). With lockDir "" and a store that
// does not lock, sessions are not locked: only for a store no other
// process uses. Closing the engine's io.Closer stops the agent's MCP
// servers and releases the lock.
func Assembled(p llm.Provider, lockDir string, opts ...harness.Option) EngineFactory {
	return func(ctx context.Context, workdir, sessionID string) (*agent.Engine, io.Closer, error) {
		a, err := harness.New(ctx, p, workdir, opts...)
		if err != nil {
			return nil, nil, err
		}
		h := &held{agent: a, dir: lockDir}
		engOpts := []agent.Option{agent.WithSessionClaim(h.claim)}
		if sessionID != "" {
			engOpts = append(engOpts, agent.WithSession(sessionID))
		}
		eng, err := a.NewEngine(engOpts...)
		if err != nil {
			_ = h.Close()
			return nil, nil, err
		}
		return eng, h, nil
	}
}

// held is one assembled engine's agent and the lock of its session.
type held struct {
	agent *harness.Agent
	dir   string

	mu   sync.Mutex
	lock session.Releaser
}

func (h *held) claim(ctx context.Context, id string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, locks := h.agent.Store().(session.Locker)
	if h.lock != nil || (h.dir == "" && !locks) {
		return nil
	}
	l, err := session.LockSession(ctx, h.agent.Store(), h.dir, id)
	if errors.Is(err, errors.ErrUnsupported) {
		return nil // no advisory locks on this system
	}
	if err != nil {
		return err
	}
	h.lock = l
	return nil
}

// Close releases the session's lock and stops the agent.
func (h *held) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	var err error
	if h.lock != nil {
		err = h.lock.Release()
		h.lock = nil
	}
	h.agent.Close()
	return err
}
