package agent

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/harness9/harness9/internal/lib/driver"
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
		return e.drive(s, runState{}, func(d *driver.Driver) (driver.Status, error) { return d.Approve(ctx, mode) })
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

// approvePlan approves plan for execution in mode (the approve step): it
// creates the task directory when the engine keeps plan files, then
// records the approval, which switches the session to mode and starts the
// evidence count again (reading done while planning is no
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
		return e.drive(s, runState{}, func(d *driver.Driver) (driver.Status, error) { return d.Continue(ctx) })
	})
}

// CancelPlan drops the plan awaiting approval (or a stalled one) and its
// todo list; the status returns to idle.
func (e *Engine) CancelPlan() error {
	if !e.busy.CompareAndSwap(false, true) {
		return ErrBusy
	}
	defer e.busy.Store(false)
	_, err := (&engineSteps{e: e}).Cancel(context.Background())
	return err
}

// Review carries out the user's choice about the plan awaiting approval;
// the TUI's dialog, the CLI's prompt, the server and the durable workflow
// all go through the planning driver's one mapping of a choice
// (internal/driver). Approving returns the execution to run; refining
// switches to Plan mode and, with feedback, returns the run that sends it;
// cancelling drops the plan at once. A nil start means the choice took
// effect at once.
func (e *Engine) Review(choice planning.ReviewChoice, feedback string) (start func(context.Context) iter.Seq[Event], err error) {
	review := func(ctx context.Context, s *stream) (RunStatus, error) {
		return e.drive(s, runState{}, func(d *driver.Driver) (driver.Status, error) { return d.Review(ctx, choice, feedback) })
	}
	if driver.Starts(choice, feedback) {
		return func(ctx context.Context) iter.Seq[Event] { return e.serve(ctx, review) }, nil
	}
	for ev := range e.serve(context.Background(), review) {
		if d, ok := ev.(Done); ok && d.Err != nil {
			if errors.Is(d.Err, driver.ErrUnknownChoice) {
				return nil, fmt.Errorf("agent: %w", d.Err)
			}
			return nil, d.Err
		}
	}
	return nil, nil
}

// execObserver turns the executor's progress into events.
type execObserver struct{ s *stream }

// Round implements planning.Observer.
func (o execObserver) Round(round, done, total int) {
	o.s.emit(ExecRound{Round: round, Done: done, Total: total})
}

// Stalled implements planning.Observer.
func (o execObserver) Stalled(rounds int) { o.s.emit(Stalled{Rounds: rounds}) }
