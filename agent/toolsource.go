package agent

import (
	"slices"
	"sync"

	"github.com/harness9/harness9/tool"
)

// ToolSource supplies tools that may change while the engine lives: an
// MCP server's tools after its notifications/tools/list_changed
// (mcptool.Manager is one). Generation must change whenever Tools would
// return something different.
type ToolSource interface {
	Tools() []tool.Tool
	Generation() uint64
}

// WithToolSource adds src's tools to the engine's. They are taken again
// between two model calls when src's generation has moved, so a server
// that adds or removes tools is followed within a run; the tools of one
// model call never change under it.
func WithToolSource(src ToolSource) Option { return func(c *config) { c.toolSource = src } }

// sourceTools are the tool source's tools as the engine last took them.
type sourceTools struct {
	mu    sync.RWMutex
	gen   uint64
	tools []tool.Tool
}

// userTools are the tools the engine was given: WithTools' and the
// source's current ones.
func (e *Engine) userTools() []tool.Tool {
	e.src.mu.RLock()
	defer e.src.mu.RUnlock()
	return e.userToolsLocked()
}

func (e *Engine) userToolsLocked() []tool.Tool {
	return append(slices.Clip(e.cfg.tools), e.src.tools...)
}

// takeSourceTools registers the source's first tools (New).
func (e *Engine) takeSourceTools() {
	if e.cfg.toolSource == nil {
		return
	}
	e.src.gen = e.cfg.toolSource.Generation()
	e.src.tools = e.fitting(e.cfg.toolSource.Tools(), nil)
	_ = e.registry.Register(e.src.tools...)
}

// fitting drops the tools whose names another tool already has (a
// built-in, another source tool), keeping those named in mine.
func (e *Engine) fitting(ts []tool.Tool, mine []string) []tool.Tool {
	var out []tool.Tool
	seen := map[string]bool{}
	for _, t := range ts {
		name := t.Name()
		if _, taken := e.registry.Lookup(name); (taken && !slices.Contains(mine, name)) || seen[name] || name == "" {
			e.log.Warn("agent: a tool source's tool is left out: its name is taken", "tool", name)
			continue
		}
		seen[name] = true
		out = append(out, t)
	}
	return out
}

// syncTools takes the source's tools again if they changed since the
// engine last did, and reports whether they did. The caller then builds
// its gate and tool definitions again.
func (e *Engine) syncTools() bool {
	src := e.cfg.toolSource
	if src == nil {
		return false
	}
	gen := src.Generation()
	e.src.mu.RLock()
	same := gen == e.src.gen
	e.src.mu.RUnlock()
	if same {
		return false
	}
	next := src.Tools()
	e.src.mu.Lock()
	defer e.src.mu.Unlock()
	old := make([]string, len(e.src.tools))
	for i, t := range e.src.tools {
		old[i] = t.Name()
	}
	keep := e.fitting(next, old)
	if err := e.registry.Replace(old, keep...); err != nil {
		e.log.Warn("agent: a tool source's new tools could not be registered", "err", err)
		return false
	}
	e.src.gen, e.src.tools = gen, keep
	_ = e.noteProperties()
	return true
}
