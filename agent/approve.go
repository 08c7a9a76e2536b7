package agent

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"

	"github.com/harness9/harness9/planning"
)

// ErrNoPendingPlan is returned by Approve and CancelPlan when no plan is
// awaiting approval.
var ErrNoPendingPlan = errors.New("agent: no plan is awaiting approval")

// ErrNothingToContinue is returned by Continue when no approved plan is
// being executed.
var ErrNothingToContinue = errors.New("agent: no approved plan to continue")

// Approve approves the plan awaiting approval and executes it in mode:
// planning.ModeDefault runs its edits at once, planning.ModeAutoEdit makes
// every write, edit and bash call wait for the user. It creates the task
// directory (PLAN.md, TODO.md) when the engine keeps plan files, emits
// Approved, and runs auto-execution rounds until every todo is done
// (Done{RunCompleted}) or progress stalls (Done{RunStalled}). Each
// round is one run of the loop; its events are forwarded, with an ExecRound
// event before it.
func (e *Engine) Approve(ctx context.Context, mode planning.Mode) iter.Seq[Event] {
	return e.serve(ctx, func(ctx context.Context, s *stream) (RunStatus, error) {
		if err := planning.CheckExecMode(mode); err != nil {
			return RunError, fmt.Errorf("agent: %w", err)
		}
		e.st.Reload(ctx)
		plan, err := e.pendingPlan()
		if err != nil {
			return RunError, err
		}
		// The stream reports the mode the execution runs in, not the Plan
		// mode the plan was made in.
		if !s.emit(e.startedIn(mode)) {
			return RunCancelled, context.Canceled
		}
		dir, err := e.approvePlan(ctx, mode, plan)
		if err != nil {
			return RunError, err
		}
		if !s.emit(Approved{TaskDir: dir}) {
			return RunCancelled, context.Canceled
		}
		return e.execute(ctx, s, false)
	})
}

// pendingPlan returns the plan awaiting approval, or an error matching
// ErrNoPendingPlan that names the workflow's status.
func (e *Engine) pendingPlan() (planning.Plan, error) {
	plan, status, ok := e.st.Approvable()
	if !ok {
		return plan, fmt.Errorf("%w (status: %s)", ErrNoPendingPlan, status)
	}
	return plan, nil
}

// approvePlan approves plan for execution in mode (Approve and
// StepApprove): it creates the task directory when the engine keeps plan
// files, then records the approval, which switches the session to mode and
// starts the evidence count again (reading done while planning is no
// evidence that a step was carried out). It returns the task directory.
func (e *Engine) approvePlan(ctx context.Context, mode planning.Mode, plan planning.Plan) (string, error) {
	dir, err := e.createTaskDir(plan)
	if err != nil {
		return "", err
	}
	if err := e.st.Approve(ctx, mode, dir); err != nil {
		return "", fmt.Errorf("agent: %w", err)
	}
	return dir, nil
}

// createTaskDir writes the approved plan's task directory, if the engine
// keeps plan files (WithPlanFiles); otherwise it returns "".
func (e *Engine) createTaskDir(plan planning.Plan) (string, error) {
	if e.cfg.planHome == "" {
		return "", nil
	}
	dir, err := planning.CreateTaskDir(e.planBase(), plan, e.st.Todos(), e.cfg.now())
	if err != nil {
		return "", fmt.Errorf("agent: could not create the task directory: %w", err)
	}
	return dir, nil
}

// Continue resumes auto-execution of an approved plan that stalled or was
// interrupted (cancelled, failed, or the process died). A plan still
// awaiting approval must be approved with Approve instead.
func (e *Engine) Continue(ctx context.Context) iter.Seq[Event] {
	return e.serve(ctx, func(ctx context.Context, s *stream) (RunStatus, error) {
		e.st.Reload(ctx)
		// The plan executes in the mode it was approved for (or the
		// session's, unless that is Plan).
		if status, err := e.st.Continue(ctx); err != nil {
			if status == planning.StatusAwaitingApproval {
				return RunError, fmt.Errorf("%w: the plan has not been approved yet (approve it first)", ErrNothingToContinue)
			}
			return RunError, fmt.Errorf("%w (status: %s)", ErrNothingToContinue, status)
		}
		if !s.emit(e.started()) {
			return RunCancelled, context.Canceled
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
	if status, err := e.st.Cancel(context.Background()); err != nil {
		return fmt.Errorf("%w (status: %s)", ErrNoPendingPlan, status)
	}
	return nil
}

// Review carries out the user's choice about the plan awaiting approval;
// the TUI's dialog and the CLI's prompt both go through it. Approving
// returns the execution to run; refining switches to Plan mode and, with
// feedback, returns the run that sends it; cancelling drops the plan at
// once. A nil start means the choice took effect at once.
func (e *Engine) Review(choice planning.ReviewChoice, feedback string) (start func(context.Context) iter.Seq[Event], err error) {
	if mode, ok := choice.ApprovalMode(); ok {
		return func(ctx context.Context) iter.Seq[Event] { return e.Approve(ctx, mode) }, nil
	}
	switch choice {
	case planning.ReviewRefine:
		e.SetMode(planning.ModePlan)
		if strings.TrimSpace(feedback) == "" {
			return nil, nil
		}
		return func(ctx context.Context) iter.Seq[Event] { return e.Run(ctx, feedback) }, nil
	case planning.ReviewCancel:
		return nil, e.CancelPlan()
	}
	return nil, fmt.Errorf("agent: unknown review choice %s", choice)
}

// execute drives planning.Executor: each round is one loop over the exec
// prompt; the executor decides from the todo list whether to go on.
func (e *Engine) execute(ctx context.Context, s *stream, resumed bool) (RunStatus, error) {
	round := func(ctx context.Context, prompt string) error {
		status, err := e.loop(ctx, s, userPrompt{text: prompt}, e.Mode(), runState{})
		switch {
		case s.stopped:
			return context.Canceled
		case status == RunCancelled, status == RunError:
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
	outcome, err := planning.NewExecutor(round, e.st.Todos, opts...).Run(ctx)
	if err != nil {
		e.st.Save(ctx)
		if ctx.Err() != nil || errors.Is(err, context.Canceled) {
			return RunCancelled, err
		}
		return RunError, err
	}
	if err := e.st.Complete(ctx, outcome); err != nil {
		return RunError, fmt.Errorf("agent: %w", err)
	}
	result := RunCompleted
	if outcome == planning.ExecStalled {
		result = RunStalled
	}
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
