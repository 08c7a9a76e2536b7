// Package agent is harness9's engine: the run loop that sends the
// conversation to a model, streams its answer, runs the tools it calls and
// decides whether to go on, plus the planning workflow around it (Plan Mode,
// plan approval, auto-execution). The session's state and its persistence
// are a separate object the engine drives (agent/internal/sessionstate).
// It is the one package that knows every other one; everything it does is
// reported as a stream of Events that the TUI, the headless JSONL writer and
// library users consume alike.
//
// A minimal agent:
//
//	eng, err := agent.New(provider, agent.WithModel("gpt-4o"), agent.WithTools(builtin.All(ws)...))
//	for ev := range eng.Run(ctx, "fix the failing test") {
//		if t, ok := ev.(agent.Text); ok {
//			fmt.Println(t.Text)
//		}
//	}
package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/harness9/harness9/agent/internal/sessionstate"
	"github.com/harness9/harness9/checkpoint"
	"github.com/harness9/harness9/internal/lib/driver"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/session/memstore"
	"github.com/harness9/harness9/tool"
)

// Engine runs an agent over one session. Its accessors and SetMode are safe
// for concurrent use; one Run, Approve, Continue or Compact runs at a time
// (a second one started meanwhile ends at once with an error).
//
// The Engine is the loop and what it needs (provider, registry, tool
// groupings, workspace, checkpoints, logger); the session's state — the
// conversation, the planning workflow, todos, evidence, compaction, usage —
// lives in a sessionstate.State, which the engine changes only through its
// methods and which persists itself in the store.
type Engine struct {
	cfg      config
	provider llm.Provider
	registry *tool.Registry
	readOnly []string // registered tools that declare themselves read-only
	// shell are the tools that run a command read-only when asked
	// (tool.ReadOnlyCapable, bash in the kernel sandbox): allowed while
	// planning behind the parse gate. notReadOnly could, but cannot here;
	// they are withheld while planning. gateOnly are the shell tools no
	// kernel sandbox confines here (tool.GateOnly, plan_bash = "gated"),
	// whose commands the gate checks more strictly.
	shell, notReadOnly, gateOnly []string
	ws                           *tool.Workspace      // Plan Mode's bash sandbox; nil if the workdir is not usable
	ckpt                         *checkpoint.Recorder // nil: no checkpoints (checkpoints.go)
	log                          *slog.Logger
	busy                         atomic.Bool
	effort                       atomic.Value // llm.Effort: SetEffort's, else cfg.effort
	// memo is what the planning driver remembers across this engine's
	// calls (internal/driver.Memo); only the call holding busy uses it.
	memo driver.Memo
	// src holds the tool source's tools as last taken (toolsource.go) and
	// guards readOnly, shell, notReadOnly and gateOnly, which follow them.
	src      sourceTools
	taskName string // the task tool's name, "" without sub-agents
	// sent is the engine's previous model request (loop.go); only the call
	// holding busy uses it.
	sent sentMemo

	st *sessionstate.State
}

// New builds an engine. With WithSession it loads the stored session
// (history, todos, plan, status); otherwise a session is created by the
// first Run.
func New(p llm.Provider, opts ...Option) (*Engine, error) {
	if p == nil {
		return nil, errors.New("agent: a provider is required")
	}
	cfg := config{maxTurns: DefaultMaxTurns, evidenceGate: true, now: time.Now}
	for _, o := range opts {
		o(&cfg)
	}
	if err := cfg.fill(p); err != nil {
		return nil, err
	}
	stOpts := []sessionstate.Option{sessionstate.WithLogger(cfg.logger), sessionstate.WithClock(cfg.now)}
	if cfg.observer != nil {
		stOpts = append(stOpts, sessionstate.WithUsageHook(cfg.observer.Usage))
	}
	if cfg.modeSet {
		stOpts = append(stOpts, sessionstate.WithMode(cfg.mode))
	}
	e := &Engine{
		cfg:      cfg,
		provider: p,
		log:      cfg.logger,
		ws:       cfg.workspace,
		st:       sessionstate.New(cfg.store, stOpts...),
	}
	if e.ws == nil {
		ws, err := tool.NewWorkspace(cfg.workdir)
		if err != nil {
			e.log.Warn("agent: the workdir is not a usable workspace; Plan Mode's bash paths are not sandboxed", "err", err)
		}
		e.ws = ws
	}
	if err := e.buildRegistry(); err != nil {
		return nil, err
	}
	e.ckpt = e.newRecorder()
	if cfg.sessionID != "" {
		if err := e.resume(context.Background(), cfg.sessionID); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// fill applies defaults that depend on the environment.
func (c *config) fill(p llm.Provider) error {
	if c.maxTurns <= 0 {
		c.maxTurns = DefaultMaxTurns
	}
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	if c.store == nil {
		// The engine always has a store, so it runs one code path; this
		// one forgets everything when the program ends.
		c.store = memstore.New()
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.system == "" {
		c.system = DefaultSystemPrompt
	}
	if c.modelLabel == "" {
		c.modelLabel = p.Name() + "/" + c.model
	}
	if c.vision == nil {
		v := llm.SupportsVision(c.model)
		c.vision = &v
	}
	if !c.requestImagesSet {
		c.requestImages, c.requestImageBytes = DefaultRequestImages, DefaultRequestImageBytes
	}
	if c.workdir == "" && c.workspace != nil {
		// The workspace names the workdir: a program gives it once.
		c.workdir = c.workspace.Root()
	}
	if c.workdir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("agent: cannot determine the working directory: %w", err)
		}
		c.workdir = wd
	}
	abs, err := filepath.Abs(c.workdir)
	if err != nil {
		return fmt.Errorf("agent: workdir %q: %w", c.workdir, err)
	}
	c.workdir = abs
	return nil
}

// SessionID returns the session's id, or "" before the first run of a new
// session.
func (e *Engine) SessionID() string { return e.st.SessionID() }

// Workdir returns the absolute working directory.
func (e *Engine) Workdir() string { return e.cfg.workdir }

// Model returns the "provider/model" label.
func (e *Engine) Model() string { return e.cfg.modelLabel }

// Mode returns the mode the next run will start in.
func (e *Engine) Mode() planning.Mode { return e.st.Mode() }

// SetMode changes the mode for the next run. A run already in progress
// keeps the mode it started with.
func (e *Engine) SetMode(m planning.Mode) { e.st.SetMode(m) }

// Effort returns the reasoning effort runs ask for.
func (e *Engine) Effort() llm.Effort {
	if v, ok := e.effort.Load().(llm.Effort); ok {
		return v
	}
	return e.cfg.effort
}

// SetEffort changes the reasoning effort for the next run (the TUI's
// /effort). A run already in progress keeps the effort it started with.
func (e *Engine) SetEffort(eff llm.Effort) { e.effort.Store(eff) }

// Status returns the planning workflow's status.
func (e *Engine) Status() planning.Status { return e.st.Status() }

// NextStep says what a resumed session should do next: wait for a prompt,
// review the plan awaiting approval, or offer to continue an approved plan
// that was interrupted or stalled.
func (e *Engine) NextStep() planning.Step { return e.st.NextStep() }

// Todos returns a copy of the todo list.
func (e *Engine) Todos() []planning.TodoItem { return e.st.Todos() }

// Plan returns a copy of the submitted or approved plan, or nil.
func (e *Engine) Plan() *planning.Plan { return e.st.Plan() }

// TaskDir returns the approved plan's task directory, or "".
func (e *Engine) TaskDir() string { return e.st.TaskDir() }

// PlanFile returns this session's plan file (rewritten on every
// todo_write), or "" before the first todo_write.
func (e *Engine) PlanFile() string { return e.st.PlanFile() }

// History returns a copy of the whole conversation, including messages a
// compaction summary stands in for.
func (e *Engine) History() []llm.Message { return e.st.History() }

// Compaction returns the stored compaction summary, or nil.
func (e *Engine) Compaction() *session.Compaction { return e.st.Compaction() }
