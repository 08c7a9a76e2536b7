package agent

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/harness9/harness9/planning"
)

// ErrNoPendingPlan is returned by Approve and CancelPlan when no plan is
// awaiting approval.
var ErrNoPendingPlan = errors.New("agent: no plan is awaiting approval")

// ErrNothingToContinue is returned by Continue when no approved plan is
// being executed.
var ErrNothingToContinue = errors.New("agent: no approved plan to continue")

// Approve approves the plan awaiting approval and executes it: it creates
// the task directory (PLAN.md, TODO.md), emits Approved, switches to
// Default mode (AutoEdit with confirmEdits, so every write, edit and bash
// call waits for the user) and runs auto-execution rounds until every todo
// is done (Done{StatusCompleted}) or progress stalls (Done{StatusStalled}).
// Each round is one run of the loop; its events are forwarded, with an
// ExecRound event before it.
func (e *Engine) Approve(ctx context.Context, confirmEdits bool) iter.Seq[Event] {
	return e.serve(ctx, func(ctx context.Context, s *stream) (RunStatus, error) {
		e.loadState(ctx)
		e.mu.Lock()
		if e.sess == nil || e.status != planning.StatusAwaitingApproval || e.plan == nil {
			status := e.status
			e.mu.Unlock()
			return StatusError, fmt.Errorf("%w (status: %s)", ErrNoPendingPlan, status)
		}
		plan := *clonePlan(e.plan)
		e.mu.Unlock()
		mode := planning.ModeDefault
		if confirmEdits {
			mode = planning.ModeAutoEdit
		}
		// The stream reports the mode the execution runs in, not the Plan
		// mode the plan was made in.
		if !s.emit(e.startedIn(mode)) {
			return StatusCancelled, context.Canceled
		}
		dir, err := planning.CreateTaskDir(e.planBase(), plan, e.todos.Read(), e.cfg.now())
		if err != nil {
			return StatusError, fmt.Errorf("agent: could not create the task directory: %w", err)
		}
		e.mu.Lock()
		e.taskDir = dir
		e.status = planning.StatusExecuting
		// Reading done while planning (after submit_plan, in a refining
		// run, or before a fallback plan) is no evidence that a step was
		// carried out: execution starts with none.
		e.evidence.Reset()
		e.mode = mode
		e.mu.Unlock()
		e.saveState(ctx)
		e.syncSessionMode(ctx)
		if !s.emit(Approved{TaskDir: dir}) {
			return StatusCancelled, context.Canceled
		}
		return e.execute(ctx, s, false)
	})
}

// Continue resumes auto-execution of an approved plan that stalled or was
// interrupted (cancelled, failed, or the process died). A plan still
// awaiting approval must be approved with Approve instead.
func (e *Engine) Continue(ctx context.Context) iter.Seq[Event] {
	return e.serve(ctx, func(ctx context.Context, s *stream) (RunStatus, error) {
		e.loadState(ctx)
		e.mu.Lock()
		status := e.status
		ok := e.sess != nil && e.plan != nil && e.taskDir != "" &&
			(status == planning.StatusExecuting || status == planning.StatusStalled)
		if ok {
			e.status = planning.StatusExecuting
			if e.mode == planning.ModePlan {
				e.mode = planning.ModeDefault
			}
		}
		e.mu.Unlock()
		if ok {
			e.saveState(ctx)
			e.syncSessionMode(ctx)
		}
		if !ok {
			if status == planning.StatusAwaitingApproval {
				return StatusError, fmt.Errorf("%w: the plan has not been approved yet (approve it first)", ErrNothingToContinue)
			}
			return StatusError, fmt.Errorf("%w (status: %s)", ErrNothingToContinue, status)
		}
		if !s.emit(e.started()) {
			return StatusCancelled, context.Canceled
		}
		return e.execute(ctx, s, true)
	})
}

// CancelPlan drops the plan awaiting approval (or a stalled one) and its
// todo list; the status returns to idle.
func (e *Engine) CancelPlan() error {
	if !e.busy.CompareAndSwap(false, true) {
		return ErrBusy
	}
	defer e.busy.Store(false)
	e.mu.Lock()
	switch e.status {
	case planning.StatusAwaitingApproval, planning.StatusStalled:
	default:
		status := e.status
		e.mu.Unlock()
		return fmt.Errorf("%w (status: %s)", ErrNoPendingPlan, status)
	}
	e.plan = nil
	e.taskDir = ""
	e.status = planning.StatusIdle
	e.todos.Write(nil)
	e.mu.Unlock()
	e.saveState(context.Background())
	return nil
}

// execute drives planning.Executor: each round is one loop over the exec
// prompt; the executor decides from the todo list whether to go on.
func (e *Engine) execute(ctx context.Context, s *stream, resumed bool) (RunStatus, error) {
	round := func(ctx context.Context, prompt string) error {
		status, err := e.loop(ctx, s, prompt, e.Mode())
		switch {
		case s.stopped:
			return context.Canceled
		case status == StatusCancelled, status == StatusError:
			if err == nil {
				err = errors.New(string(status))
			}
			return err
		}
		return nil
	}
	opts := []planning.ExecutorOption{planning.WithObserver(execObserver{s})}
	if e.cfg.stallThreshold > 0 {
		opts = append(opts, planning.WithStallThreshold(e.cfg.stallThreshold))
	}
	if e.cfg.maxExecRounds > 0 {
		opts = append(opts, planning.WithMaxRounds(e.cfg.maxExecRounds))
	}
	if resumed {
		opts = append(opts, planning.AsContinuation())
	}
	outcome, err := planning.NewExecutor(round, e.todos.Read, opts...).Run(ctx)
	if err != nil {
		e.saveState(ctx)
		if ctx.Err() != nil || errors.Is(err, context.Canceled) {
			return StatusCancelled, err
		}
		return StatusError, err
	}
	e.mu.Lock()
	result := StatusCompleted
	if outcome == planning.ExecStalled {
		e.status = planning.StatusStalled
		result = StatusStalled
	} else {
		e.status = planning.StatusIdle
	}
	e.mu.Unlock()
	e.saveState(ctx)
	return result, nil
}

// execObserver turns the executor's progress into events.
type execObserver struct{ s *stream }

// Round implements planning.Observer.
func (o execObserver) Round(round, done, total int) {
	o.s.emit(ExecRound{Round: round, Done: done, Total: total})
}

// Stalled implements planning.Observer.
func (o execObserver) Stalled(rounds int) { o.s.emit(Stalled{Rounds: rounds}) }
