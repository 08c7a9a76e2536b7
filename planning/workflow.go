package planning

import (
	"errors"
	"fmt"

	"github.com/harness9/harness9/planning/plan"
)

// Status is the phase of a session's planning workflow (plan.Status). It is
// separate from Mode (which the user picks) and from how one run ended
// (agent.RunStatus): a status outlives runs and is stored with the session.
type Status = plan.Status

// The statuses.
const (
	StatusIdle             = plan.StatusIdle             // no plan in flight
	StatusRunning          = plan.StatusRunning          // a run is in progress, no plan submitted in it yet
	StatusAwaitingApproval = plan.StatusAwaitingApproval // a plan waits for the user's review
	StatusExecuting        = plan.StatusExecuting        // an approved plan is being carried out
	StatusStalled          = plan.StatusStalled          // execution stopped without finishing the todo list
)

// Statuses lists every status, in the order of a plan's life.
var Statuses = plan.Statuses

// Action is a step of the planning workflow: one of Workflow's transitions.
type Action string

// The actions.
const (
	ActionStart    Action = "start"    // a run begins (a round of execution keeps Executing)
	ActionRefine   Action = "refine"   // a run begins while a plan awaits approval: it revises the plan
	ActionFinish   Action = "finish"   // a run ended; a run that submitted nothing returns to Idle
	ActionSubmit   Action = "submit"   // the run submitted a plan
	ActionApprove  Action = "approve"  // the user approved the plan
	ActionCancel   Action = "cancel"   // the user dropped the plan
	ActionContinue Action = "continue" // execution resumes after a stall or an interruption
	ActionComplete Action = "complete" // execution finished the todo list
	ActionStall    Action = "stall"    // execution gave up without progress
)

// Actions lists every action.
var Actions = []Action{ActionStart, ActionRefine, ActionFinish, ActionSubmit, ActionApprove, ActionCancel, ActionContinue, ActionComplete, ActionStall}

// transitions is the workflow: for each action, the statuses it may start
// from and the status it leads to. A pair that is absent is refused.
var transitions = map[Action]map[Status]Status{
	// Stalled may start a run: the user steers by hand what execution
	// could not finish; the plan and task directory stay for Continue.
	ActionStart:  {StatusIdle: StatusRunning, StatusStalled: StatusRunning, StatusExecuting: StatusExecuting},
	ActionRefine: {StatusAwaitingApproval: StatusRunning},
	// A run that submitted a plan, and a round of execution, end in the
	// status they are in; only a plain run goes back to Idle.
	ActionFinish: {StatusRunning: StatusIdle, StatusAwaitingApproval: StatusAwaitingApproval, StatusExecuting: StatusExecuting},
	// Only a run may submit: during execution a new plan would be
	// overwritten by the execution's outcome before anyone reviewed it.
	ActionSubmit:   {StatusRunning: StatusAwaitingApproval},
	ActionApprove:  {StatusAwaitingApproval: StatusExecuting},
	ActionCancel:   {StatusAwaitingApproval: StatusIdle, StatusStalled: StatusIdle},
	ActionContinue: {StatusExecuting: StatusExecuting, StatusStalled: StatusExecuting},
	ActionComplete: {StatusExecuting: StatusIdle},
	ActionStall:    {StatusExecuting: StatusStalled},
}

// ErrTransition is matched (errors.Is) by every refused transition.
var ErrTransition = errors.New("planning: action not allowed in this status")

// TransitionError says which action was refused in which status, and why.
type TransitionError struct {
	Action Action
	Status Status
	Reason string // how to go on, for the user
}

func (e *TransitionError) Error() string {
	return fmt.Sprintf("planning: cannot %s while the workflow is %s: %s", e.Action, e.Status, e.Reason)
}

// Is makes errors.Is(err, ErrTransition) hold.
func (e *TransitionError) Is(target error) bool { return target == ErrTransition }

// reasons explain a refusal by the status it happened in.
var reasons = map[Status]string{
	StatusIdle:             "there is no plan (plan one in Plan mode first)",
	StatusRunning:          "a run is in progress",
	StatusAwaitingApproval: "the plan awaits approval (approve, refine or cancel it)",
	StatusExecuting:        "an approved plan is executing",
	StatusStalled:          "execution stalled (continue it, steer it with a prompt, or cancel the plan)",
}

// Next returns the status action leads to from s, or a *TransitionError.
func Next(s Status, a Action) (Status, error) {
	to, ok := transitions[a][s]
	if !ok {
		return s, &TransitionError{Action: a, Status: s, Reason: reasons[s]}
	}
	return to, nil
}

// WorkflowState is a Workflow's stored form.
type WorkflowState struct {
	Status  Status
	Plan    *Plan
	TaskDir string
}

// Workflow is the planning state machine of one session: its status, the
// plan submitted or approved, the approved plan's task directory and the
// mode the approved plan executes in. Every change goes through a
// transition of the table above, so the engine that drives it, the front
// ends that ask it what comes next and the tests agree on one set of rules.
// A Workflow is not safe for concurrent use; its owner locks.
type Workflow struct {
	status   Status
	plan     *Plan
	taskDir  string
	execMode Mode
}

// NewWorkflow returns an idle workflow.
func NewWorkflow() *Workflow { return &Workflow{status: StatusIdle} }

// RestoreWorkflow rebuilds a workflow from its stored state. State is only
// restored while no run is in progress, so Running (what a process killed
// mid-run leaves behind) and an empty status become Idle.
func RestoreWorkflow(st WorkflowState) *Workflow {
	w := &Workflow{status: st.Status, plan: clonePlan(st.Plan), taskDir: st.TaskDir}
	if w.status == "" || w.status == StatusRunning {
		w.status = StatusIdle
	}
	return w
}

// State returns what to store.
func (w *Workflow) State() WorkflowState {
	return WorkflowState{Status: w.status, Plan: clonePlan(w.plan), TaskDir: w.taskDir}
}

// Status returns the current status.
func (w *Workflow) Status() Status { return w.status }

// Plan returns a copy of the submitted or approved plan, or nil.
func (w *Workflow) Plan() *Plan { return clonePlan(w.plan) }

// TaskDir returns the approved plan's task directory, or "".
func (w *Workflow) TaskDir() string { return w.taskDir }

// Executing reports whether an approved plan is being carried out or
// stalled: its task directory's TODO.md follows the todo list then.
func (w *Workflow) Executing() bool {
	return w.taskDir != "" && (w.status == StatusExecuting || w.status == StatusStalled)
}

func (w *Workflow) apply(a Action) error {
	to, err := Next(w.status, a)
	if err != nil {
		return err
	}
	w.status = to
	return nil
}

// StartRun moves the workflow into a run. refining reports that a plan
// awaited approval: the run revises that plan (ActionRefine) rather than
// starting a new one (ActionStart).
func (w *Workflow) StartRun() (refining bool, err error) {
	if w.status == StatusAwaitingApproval {
		return true, w.apply(ActionRefine)
	}
	return false, w.apply(ActionStart)
}

// FinishRun settles the status when a run ends.
func (w *Workflow) FinishRun() error { return w.apply(ActionFinish) }

// Submit records p as the plan awaiting approval.
func (w *Workflow) Submit(p Plan) error {
	if err := w.apply(ActionSubmit); err != nil {
		return err
	}
	w.plan = clonePlan(&p)
	return nil
}

// Approve approves the plan awaiting approval, to be executed in mode
// (ModeDefault: edits run at once; ModeAutoEdit: each edit is confirmed)
// with its files in taskDir ("" when the program keeps no task files).
func (w *Workflow) Approve(mode Mode, taskDir string) error {
	if err := CheckExecMode(mode); err != nil {
		return err
	}
	if w.status == StatusAwaitingApproval && w.plan == nil {
		return &TransitionError{Action: ActionApprove, Status: w.status, Reason: "no plan was recorded"}
	}
	if err := w.apply(ActionApprove); err != nil {
		return err
	}
	w.taskDir, w.execMode = taskDir, mode
	return nil
}

// CheckExecMode reports whether an approved plan can execute in mode
// (Policy.Executes): in ModeDefault or ModeAutoEdit, not in ModePlan,
// which cannot edit.
func CheckExecMode(mode Mode) error {
	if !PolicyFor(mode).Executes {
		return fmt.Errorf("planning: a plan is approved to run in %s or %s mode, not %s: that mode cannot edit", ModeDefault, ModeAutoEdit, mode)
	}
	return nil
}

// ExecMode returns the mode an approved plan executes in, given the mode
// the session is in: the approval's mode when it was approved here,
// otherwise the session's own mode, except Plan (which cannot edit).
func (w *Workflow) ExecMode(current Mode) Mode {
	if PolicyFor(current).Executes {
		return current
	}
	if !PolicyFor(w.execMode).Executes {
		return ModeDefault
	}
	return w.execMode
}

// Cancel drops the plan awaiting approval, or a stalled one, and its task
// directory; the status returns to Idle.
func (w *Workflow) Cancel() error {
	if err := w.apply(ActionCancel); err != nil {
		return err
	}
	w.plan, w.taskDir = nil, ""
	return nil
}

// Continue resumes the execution of an approved plan.
func (w *Workflow) Continue() error {
	if w.plan == nil && (w.status == StatusExecuting || w.status == StatusStalled) {
		return &TransitionError{Action: ActionContinue, Status: w.status, Reason: "no approved plan was recorded"}
	}
	return w.apply(ActionContinue)
}

// Complete records how an execution ended.
func (w *Workflow) Complete(outcome ExecOutcome) error {
	if outcome == ExecStalled {
		return w.apply(ActionStall)
	}
	return w.apply(ActionComplete)
}

// Step is what a session should do next, decided from its stored state.
type Step int

// The steps.
const (
	StepPrompt   Step = iota // nothing in flight: wait for a prompt
	StepReview               // a plan awaits the user's review
	StepContinue             // an approved plan was interrupted or stalled: offer to continue it
)

// String returns the step's name.
func (s Step) String() string {
	switch s {
	case StepPrompt:
		return "prompt"
	case StepReview:
		return "review"
	case StepContinue:
		return "continue"
	}
	return fmt.Sprintf("step(%d)", int(s))
}

// Resume decides what a resumed session does next.
func (w *Workflow) Resume() Step {
	switch {
	case w.status == StatusAwaitingApproval && w.plan != nil:
		return StepReview
	case (w.status == StatusExecuting || w.status == StatusStalled) && w.plan != nil:
		return StepContinue
	}
	return StepPrompt
}

func clonePlan(p *Plan) *Plan {
	if p == nil {
		return nil
	}
	c := *p
	c.Steps = append([]string(nil), p.Steps...)
	return &c
}
