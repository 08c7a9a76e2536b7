package sessionstate

import (
	"context"
	"errors"

	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/session"
)

// The planning workflow's transitions as the engine drives them. Each one
// that ends a step of the workflow writes the state while still holding
// the lock (saveLocked): a Reload cannot slip between the change and its
// write and bring the old state back.

// errNoSession is the refusal of a transition before the session exists.
var errNoSession = errors.New("the session has not started")

// StartRun reloads the planning state and moves the workflow into a run;
// refining reports that a plan awaited approval (the run revises it). The
// status of a run in progress is not stored: a process killed mid-run
// leaves the status it started from.
func (s *State) StartRun(ctx context.Context) (refining bool, err error) {
	s.Reload(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	refining, err = s.flow.StartRun()
	if refining && err == nil {
		s.addUsageLocked(ctx, "", session.Usage{PlansRefined: 1})
	}
	return refining, err
}

// FinishRun settles the status of a run that ended and saves the state
// and the run's usage; they are saved even when the workflow refuses
// (err).
func (s *State) FinishRun(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.flow.FinishRun()
	s.saveLocked(ctx)
	s.flushUsageLocked(ctx)
	return err
}

// Submit records a plan awaiting approval (submit_plan's callback and the
// fallback plan). It is saved with the todo list the submission wrote, by
// the caller's next Save or FinishRun.
func (s *State) Submit(p planning.Plan) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.flow.Submit(p); err != nil {
		return err
	}
	s.addUsageLocked(context.Background(), "", session.Usage{PlansSubmitted: 1})
	return nil
}

// Approvable returns the plan awaiting approval; ok is false when no plan
// can be approved now (status says why).
func (s *State) Approvable() (plan planning.Plan, status planning.Status, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	status = s.flow.Status()
	p := s.flow.Plan()
	if _, refused := planning.Next(status, planning.ActionApprove); s.sess == nil || refused != nil || p == nil {
		return planning.Plan{}, status, false
	}
	return *p, status, true
}

// Approve approves the plan awaiting approval for execution in mode with
// its files in taskDir, and saves the state and the session's new mode.
// The evidence counter starts again from zero: reading done while planning
// is no evidence that a step was carried out.
func (s *State) Approve(ctx context.Context, mode planning.Mode, taskDir string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.flow.Approve(mode, taskDir); err != nil {
		return err
	}
	s.evidence.Reset()
	s.mode = mode
	s.saveLocked(ctx)
	s.syncModeLocked(ctx)
	s.addUsageLocked(ctx, "", session.Usage{PlansApproved: 1})
	return nil
}

// Continue resumes the execution of an approved plan that stalled or was
// interrupted, in the mode the plan executes in, and saves the state and
// the session's mode. status is the workflow's status before, for the
// refusal's message.
func (s *State) Continue(ctx context.Context) (status planning.Status, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	status = s.flow.Status()
	if s.sess == nil {
		return status, errNoSession
	}
	if err := s.flow.Continue(); err != nil {
		return status, err
	}
	s.mode = s.flow.ExecMode(s.mode)
	s.saveLocked(ctx)
	s.syncModeLocked(ctx)
	return status, nil
}

// Cancel drops the plan awaiting approval (or a stalled one) and its todo
// list, and saves the state. status is the workflow's status before.
func (s *State) Cancel(ctx context.Context) (status planning.Status, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	status = s.flow.Status()
	if err := s.flow.Cancel(); err != nil {
		return status, err
	}
	s.todos.Write(nil)
	s.saveLocked(ctx)
	s.addUsageLocked(ctx, "", session.Usage{PlansCancelled: 1})
	return status, nil
}

// Complete records how the execution of an approved plan ended and saves
// the state.
func (s *State) Complete(ctx context.Context, outcome planning.ExecOutcome) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.flow.Complete(outcome); err != nil {
		return err
	}
	s.saveLocked(ctx)
	if outcome == planning.ExecStalled {
		s.addUsageLocked(ctx, "", session.Usage{PlansStalled: 1})
	}
	return nil
}

// PlanTargets says where a todo list goes: the session's plan file (chosen
// by choose, with the session's id, the first time, when the session has
// none and choose is not nil), the task directory of a plan being executed
// ("" otherwise) and the plan's title.
func (s *State) PlanTargets(choose func(sessionID string) string) (planFile, taskDir, title string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.planFile == "" && s.sess != nil && choose != nil {
		s.planFile = choose(s.sess.ID)
	}
	if s.flow.Executing() {
		taskDir = s.flow.TaskDir()
	}
	if p := s.flow.Plan(); p != nil {
		title = p.Title
	}
	return s.planFile, taskDir, title
}
