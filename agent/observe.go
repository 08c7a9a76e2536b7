package agent

import (
	"context"

	"github.com/harness9/harness9/session"
)

// Observer watches what an engine does, for telemetry (package telemetry
// turns it into OpenTelemetry spans and metrics). Without one
// (WithObserver) the engine calls nothing and allocates nothing for it.
// Its methods are called on the engine's goroutines and must return
// quickly.
type Observer interface {
	// StartRun is called as a run begins: Run, Approve, Continue, Compact,
	// or one step of a durable engine. The context it returns is the
	// run's: what the observer puts in it (a span) reaches the model
	// calls, the tool calls and the sub-agents of the run.
	StartRun(ctx context.Context, info RunInfo) (context.Context, RunObserver)
	// Usage reports usage the engine recorded: a model call's tokens and
	// tool calls, or a plan's outcome (submitted, approved, refined,
	// cancelled, stalled), whether or not a run is in progress.
	Usage(ctx context.Context, sessionID, model string, u session.Usage)
}

// RunInfo describes a run that begins.
type RunInfo struct {
	// SessionID is the session's id; "" when the run creates the session
	// (SessionStarted then names it).
	SessionID string
	// Agent is "harness9", or a sub-agent's definition name.
	Agent   string
	Model   string // "provider/model"
	Workdir string
	// ParentID is the session of the run that started this sub-agent; ""
	// for a top-level run.
	ParentID string
	// New says the session has no messages yet: this is its first run.
	New bool
}

// RunObserver watches one run. Event and ToolContext are called on the
// run loop's goroutine, End once as the run ends.
type RunObserver interface {
	// Event sees each event of the run before the run's consumer does.
	Event(ev Event)
	// ToolContext returns the context the tool call callID (announced by
	// a ToolCall event) runs in.
	ToolContext(ctx context.Context, callID string) context.Context
	// End reports how the run ended.
	End(status RunStatus, err error)
}

// WithObserver makes o watch the engine's runs, and its sub-agents'.
func WithObserver(o Observer) Option { return func(c *config) { c.observer = o } }

// AgentName is the name an engine's runs report when they are not a
// sub-agent's.
const AgentName = "harness9"

// observe starts observing a run whose events go to s, and returns the
// run's context and the function that ends the observation. Without an
// observer both are what they were.
func (e *Engine) observe(ctx context.Context, s *stream) (context.Context, func(RunStatus, error)) {
	if e.cfg.observer == nil {
		return ctx, nil
	}
	name := e.cfg.agentName
	if name == "" {
		name = AgentName
	}
	ctx, s.obs = e.cfg.observer.StartRun(ctx, RunInfo{SessionID: e.SessionID(), Agent: name, Model: e.cfg.modelLabel,
		Workdir: e.cfg.workdir, ParentID: e.cfg.parentID, New: e.st.Len() == 0})
	return ctx, s.obs.End
}

// toolContext is the context tool call id runs in.
func (s *stream) toolContext(ctx context.Context, id string) context.Context {
	if s.obs == nil {
		return ctx
	}
	return s.obs.ToolContext(ctx, id)
}
