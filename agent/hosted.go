package agent

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/harness9/harness9/internal/lib/driver"
	"github.com/harness9/harness9/permission"
	"github.com/harness9/harness9/planning"
)

// A durable host (package durable) runs each of the driver's steps as a
// Temporal activity, on a fresh engine opened on the stored session by
// whichever worker picks it up. It reaches the engine's steps through
// driver.Hosted, which this registers: the engine's public API has no step
// plumbing.
func init() {
	driver.RegisterHost(func(engine any, emit func(any)) (driver.Steps, error) {
		e, ok := engine.(*Engine)
		if !ok || e == nil {
			return nil, fmt.Errorf("agent: hosted steps need an *agent.Engine, not %T", engine)
		}
		return hostedSteps{e: e, emit: emit}, nil
	})
}

// hostedSteps runs each step on its own: with the engine's single-run
// lock, on a stream that collects the step's events (without the deltas of
// streamed text), closing the step's loop before it returns. A question
// for the user ends a tools step: the request goes to emit unanswered, and
// the host runs the step again with the answer (driver.Hosted). What the
// user's answers granted comes in, and goes back out, with the loop's
// memo. A panic is the step's error.
type hostedSteps struct {
	e    *Engine
	emit func(any)
}

func (h hostedSteps) run(ctx context.Context, l *driver.Loop, fn func(ctx context.Context, x *engineSteps) (driver.Result, error)) (r driver.Result, err error) {
	e := h.e
	if !e.busy.CompareAndSwap(false, true) {
		return r, ErrBusy
	}
	defer e.busy.Store(false)
	if e.SessionID() == "" {
		return r, errors.New("agent: a step needs a stored session (WithSession)")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &stream{cancel: cancel, yield: func(ev Event) bool {
		switch ev := ev.(type) {
		case TextDelta, ReasoningDelta:
		case *ApprovalRequest:
			ev.Respond(awaitAnswer, "")
			h.emit(ev)
		default:
			h.emit(ev)
		}
		return true
	}}
	ctx, end := e.observe(ctx, s)
	x := &engineSteps{e: e, s: s, retried: true}
	if l != nil {
		e.grant(l.Memo.Granted)
	}
	defer func() {
		if p := recover(); p != nil {
			e.log.ErrorContext(ctx, "agent: panic in a step", "panic", p, "stack", string(debug.Stack()))
			r, err = driver.Result{}, fmt.Errorf("agent: internal error: %v", p)
		}
		x.End(ctx, l)
		if l != nil {
			l.Memo.Granted.Tools, l.Memo.Granted.Rules = e.st.Grants()
		}
		if end != nil {
			end(stepStatus(r, err), err)
		}
	}()
	return fn(ctx, x)
}

// stepStatus is how a step's run ended, for its observer: the status that
// ends the loop, RunError on failure, else completed (the loop goes on).
func stepStatus(r driver.Result, err error) RunStatus {
	switch {
	case err != nil:
		return RunError
	case r.End != "":
		return RunStatus(r.End)
	}
	return RunCompleted
}

// grant gives this engine what the user's answers allowed on the engines
// of the session's earlier steps.
func (e *Engine) grant(g driver.Grants) {
	for _, name := range g.Tools {
		e.st.AllowForSession(name)
	}
	if len(g.Rules) == 0 || e.cfg.permissions == nil {
		return
	}
	if err := e.cfg.permissions.Add(permission.Allow, projectSource, g.Rules...); err != nil {
		e.log.Warn("agent: an always-allow answer of an earlier step made no rule", "rules", g.Rules, "err", err)
		return
	}
	e.st.GrantRules(g.Rules...)
}

func (h hostedSteps) Prompt(ctx context.Context, l *driver.Loop, prompt string) (driver.Result, error) {
	return h.run(ctx, l, func(ctx context.Context, x *engineSteps) (driver.Result, error) { return x.Prompt(ctx, l, prompt) })
}

func (h hostedSteps) Model(ctx context.Context, l *driver.Loop) (driver.Result, error) {
	return h.run(ctx, l, func(ctx context.Context, x *engineSteps) (driver.Result, error) { return x.Model(ctx, l) })
}

func (h hostedSteps) Tools(ctx context.Context, l *driver.Loop) (driver.Result, error) {
	return h.run(ctx, l, func(ctx context.Context, x *engineSteps) (driver.Result, error) { return x.Tools(ctx, l) })
}

// End is a no-op: every step closed its own loop.
func (h hostedSteps) End(context.Context, *driver.Loop) {}

func (h hostedSteps) Approve(ctx context.Context, mode planning.Mode) (driver.Result, error) {
	return h.run(ctx, nil, func(ctx context.Context, x *engineSteps) (driver.Result, error) { return x.Approve(ctx, mode) })
}

func (h hostedSteps) Continue(ctx context.Context) (driver.Result, error) {
	return h.run(ctx, nil, func(ctx context.Context, x *engineSteps) (driver.Result, error) { return x.Continue(ctx) })
}

func (h hostedSteps) Cancel(ctx context.Context) (driver.Result, error) {
	return h.run(ctx, nil, func(ctx context.Context, x *engineSteps) (driver.Result, error) { return x.Cancel(ctx) })
}

func (h hostedSteps) Complete(ctx context.Context, outcome planning.ExecOutcome) (driver.Result, error) {
	return h.run(ctx, nil, func(ctx context.Context, x *engineSteps) (driver.Result, error) { return x.Complete(ctx, outcome) })
}

// SetMode is a no-op: the mode of the next loop is stored by its prompt
// step.
func (h hostedSteps) SetMode(context.Context, planning.Mode) {}

// RoundMode is mode: nobody changes a durable session's mode while its
// plan executes.
func (h hostedSteps) RoundMode(_ context.Context, mode planning.Mode) planning.Mode { return mode }
