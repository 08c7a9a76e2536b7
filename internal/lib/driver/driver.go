// Package driver runs harness9's planning workflow — the turn loop, the
// review of a plan, the rounds of its execution and the stop when they
// stall — once, for every engine. It decides; it does no work of its own:
// each piece of work is a step (store the prompt, call the model, run the
// tools of its answer, approve a plan, record how an execution ended ...)
// that its host carries out through Steps. The local engine (package agent)
// runs the steps in its own process, one engine across the steps of a loop;
// the durable engine (package durable) runs this same driver as Temporal
// workflow code, each step an activity on a fresh engine. So a rule changed
// here changes on both, and the planning status changes only inside the
// steps, through planning.Workflow.
//
// The driver is deterministic, as workflow code must be: it starts no
// goroutine, reads no clock and keeps no state but what the steps return.
// Whatever the engine must remember from one step to the next and the store
// does not hold travels in Loop and Memo, so that a step on a fresh engine
// decides as a step on the same engine would.
package driver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/planning/plan"
)

// Status is how a run, an execution or a loop ended: the values of package
// agent's RunStatus, defined here once.
type Status string

// The statuses. "" (a step's Result.End) means the loop goes on.
const (
	Completed        Status = "completed"
	AwaitingApproval Status = "awaiting_approval"
	Stalled          Status = "stalled"
	MaxTurns         Status = "max_turns"
	Cancelled        Status = "cancelled"
	Error            Status = "error"
)

// Steps carry out the driver's steps on an engine. A step that fails
// returns an error, with Result.End saying how the loop ends (Cancelled, or
// "" for Error). Every step but End and SetMode reports the session as it
// left it in its Result.
type Steps interface {
	// Prompt begins a loop in l.Mode: it stores prompt, framed by the
	// mode's prefix, after the hooks a prompt runs (session_start the
	// first time, user_prompt_submit for the user's own prompt, l.User).
	// It sets l.Refining when the loop revises a plan awaiting approval.
	Prompt(ctx context.Context, l *Loop, prompt string) (Result, error)
	// Model makes one model call, compacting the history first when the
	// context calls for it, and stores the answer. An answer without tool
	// calls ends the loop (End), unless a stop hook asks the model to go
	// on (End "" and Calls 0).
	Model(ctx context.Context, l *Loop) (Result, error)
	// Tools runs the tool calls of the last answer that have no result
	// yet. It ends the loop when a call ends the turn (submit_plan).
	Tools(ctx context.Context, l *Loop) (Result, error)
	// End closes the loop: the workflow settles the status a run leaves
	// and the state is saved. It is called once per loop, on every exit
	// path, whether or not Prompt succeeded.
	End(ctx context.Context, l *Loop)
	// Approve approves the plan awaiting approval for execution in mode;
	// Result.Mode is the mode the execution runs in.
	Approve(ctx context.Context, mode plan.Mode) (Result, error)
	// Continue resumes the execution of an approved plan that stalled or
	// was interrupted; Result.Mode is the mode it runs in.
	Continue(ctx context.Context) (Result, error)
	// Cancel drops the plan awaiting approval (or a stalled one).
	Cancel(ctx context.Context) (Result, error)
	// Complete records how an execution ended.
	Complete(ctx context.Context, outcome planning.ExecOutcome) (Result, error)
	// SetMode makes mode the session's mode for what comes next (the user
	// chose to refine a plan: the session goes back to planning).
	SetMode(ctx context.Context, mode plan.Mode)
	// RoundMode is the mode the next execution round runs in, for a plan
	// executing in mode: the session's mode now, which the user may have
	// changed between rounds (the TUI's Shift+Tab), else mode.
	RoundMode(ctx context.Context, mode plan.Mode) plan.Mode
}

// Loop is the state of one run loop that is not in the store. The driver
// hands it to each step of the loop; steps read and update it.
type Loop struct {
	// Mode is the loop's mode, fixed when it begins.
	Mode plan.Mode
	// User says the prompt is the user's, not an execution round's.
	User bool
	// Refining says the loop revises a plan awaiting approval (set by
	// Prompt): a fallback plan keeps that plan's title and content.
	Refining bool
	// StopActive says a stop hook blocked an earlier stop of the loop.
	StopActive bool
	// After is the number of messages stored before the step: a step
	// retried after its first attempt stored its work does not store it
	// again.
	After int
	// Answers are the user's answers to permission questions, by tool
	// call id, for a host that cannot hold a Tools step open while a
	// question waits (see Hosted): the step ends with the question asked,
	// and the host runs it again with the answer here. A call answered
	// here is not asked again, and its pre_tool_use hooks, which ran
	// before it was asked, do not run again.
	Answers map[string]Answer
	// Memo is what the engine remembers across loops.
	Memo Memo
}

// Answer is the user's answer to a permission question (Loop.Answers).
type Answer struct {
	// Answer is allow (this call), always (for the project when a rule
	// narrower than the whole tool covers the call, else for the
	// session) or deny: the words of serve's API and the CLI.
	Answer string
	// Reason is what the model is told with a denial ("" : none given).
	Reason string
	// Unanswered says nobody answered in time: the call is refused, and
	// Reason is the whole message the model sees.
	Unanswered bool
	// Cancelled says the run was cancelled while the question waited:
	// the call and those after it end as a cancelled local run's do.
	Cancelled bool
}

// Memo is what the engine remembers between steps and across loops that
// the store does not hold. The driver carries it from each step to the
// next.
type Memo struct {
	// HooksStarted says the session_start hooks have run.
	HooksStarted bool
	// Usage is the provider's last report of the context's size. Where
	// compaction is decided (before each model call), the size of the
	// next request is that figure plus an estimate of what was stored
	// since.
	Usage Usage
	// Granted is what the user's answers allowed beyond a single call,
	// which an engine keeps in memory: a host that runs each step on a
	// fresh engine carries it from step to step.
	Granted Grants
}

// Grants are what "always" answers allowed in a session.
type Grants struct {
	// Tools are allowed for the rest of the session (an always answer
	// no narrower rule could express).
	Tools []string `json:",omitempty"`
	// Rules are allow rules added for the project.
	Rules []string `json:",omitempty"`
}

// Usage is a provider's report of the context's size after a model call.
type Usage struct {
	Tokens  int // input+output tokens of the call; 0 = unknown
	HistLen int // messages in the history right after the call's answer
	Covered int // how far compaction had gone at the time (summarised and shortened messages)
}

// Result is what a step did.
type Result struct {
	// End ends the loop with this status; "" goes on.
	End Status
	// Calls is the number of tool calls of Model's answer.
	Calls int
	// Mode is the mode an execution runs in (Approve, Continue).
	Mode plan.Mode
	// Phase is the planning status the step left.
	Phase plan.Status
	// Todos is the todo list after the step: what the execution counts.
	Todos []plan.TodoItem
	// HistoryLen is the number of messages stored after the step.
	HistoryLen int
}

// Limits bound a drive. MaxTurns must be set (the host applies its
// default); a zero StallThreshold or MaxRounds is planning.Executor's
// default.
type Limits struct {
	MaxTurns       int // model calls of one loop
	StallThreshold int // execution rounds in a row without a completed item
	MaxRounds      int // execution rounds in all
}

// State is what the driver knows of the session between steps.
type State struct {
	HistoryLen int
	Todos      []plan.TodoItem
	Memo       Memo
	// ExecMode is the mode the execution in progress runs in.
	ExecMode plan.Mode
	// Rounds is the number of execution rounds made, those of the drives
	// this one continues included.
	Rounds int
}

// Driver runs the planning workflow over its host's steps. It is not safe
// for concurrent use: its host runs one drive at a time.
type Driver struct {
	steps    Steps
	obs      planning.Observer
	lim      Limits
	handOver func() bool
	st       State
}

// Option configures a Driver.
type Option func(*Driver)

// WithLimits sets the drive's limits.
func WithLimits(l Limits) Option { return func(d *Driver) { d.lim = l } }

// WithState starts the driver from what the host knows of the session (a
// drive that continues another one: its rounds, todo list and memo).
func WithState(s State) Option { return func(d *Driver) { d.st = s } }

// WithHandOver lets the host end an execution early, right after a round
// that completed an item while items remain, to go on in a new drive
// (Temporal's continue-as-new): when handOver reports true, the execution
// returns ErrHandOver and State tells where to go on.
func WithHandOver(handOver func() bool) Option { return func(d *Driver) { d.handOver = handOver } }

// ErrHandOver is returned when the host took an execution over
// (WithHandOver).
var ErrHandOver = errors.New("driver: the execution is handed over to a new drive")

// New returns a driver over steps that reports execution rounds and stalls
// to obs.
func New(steps Steps, obs planning.Observer, opts ...Option) *Driver {
	d := &Driver{steps: steps, obs: obs}
	for _, o := range opts {
		o(d)
	}
	return d
}

// State returns what the driver knows of the session now.
func (d *Driver) State() State { return d.st }

// Run runs one loop: the prompt, then model calls and the tool calls of
// their answers, until an answer calls no tool, a tool ends the turn (a
// submitted plan), a step fails or MaxTurns model calls were made.
func (d *Driver) Run(ctx context.Context, mode plan.Mode, prompt string, user bool) (Status, error) {
	l := &Loop{Mode: mode, User: user, After: d.st.HistoryLen, Memo: d.st.Memo}
	defer d.end(ctx, l)
	r, err := d.steps.Prompt(ctx, l, prompt)
	if end, err := d.took(l, r, err); end != "" {
		return end, err
	}
	for range d.lim.MaxTurns {
		r, err := d.steps.Model(ctx, l)
		if end, err := d.took(l, r, err); end != "" {
			return end, err
		}
		if r.Calls == 0 {
			continue // a stop hook asked the model to go on
		}
		r, err = d.steps.Tools(ctx, l)
		if end, err := d.took(l, r, err); end != "" {
			return end, err
		}
	}
	return MaxTurns, nil
}

// end closes the loop and keeps what the engine remembered in it.
func (d *Driver) end(ctx context.Context, l *Loop) {
	d.steps.End(ctx, l)
	d.st.Memo = l.Memo
}

// took takes in a step's result and reports how the loop ends ("" when it
// goes on).
func (d *Driver) took(l *Loop, r Result, err error) (Status, error) {
	d.note(r, err)
	l.After = d.st.HistoryLen
	d.st.Memo = l.Memo
	switch {
	case err != nil && r.End == "":
		return Error, err
	case err != nil, r.End != "":
		return r.End, err
	}
	return "", nil
}

// note keeps what a step reported of the session.
func (d *Driver) note(r Result, err error) {
	if err != nil {
		return // a failed step reports nothing reliable
	}
	d.st.HistoryLen = r.HistoryLen
	if r.Todos != nil {
		d.st.Todos = r.Todos
	}
}

// failed is the status of a drive whose step failed.
func failed(r Result, err error) (Status, error) {
	if r.End != "" {
		return r.End, err
	}
	return Error, err
}

// Approve approves the plan awaiting approval for execution in mode and
// executes it: rounds of loops until the todo list is done (Completed) or
// progress stalls (Stalled).
func (d *Driver) Approve(ctx context.Context, mode plan.Mode) (Status, error) {
	r, err := d.steps.Approve(ctx, mode)
	if d.note(r, err); err != nil {
		return failed(r, err)
	}
	return d.Execute(ctx, r.Mode, false)
}

// Continue resumes the execution of an approved plan that stalled or was
// interrupted.
func (d *Driver) Continue(ctx context.Context) (Status, error) {
	r, err := d.steps.Continue(ctx)
	if d.note(r, err); err != nil {
		return failed(r, err)
	}
	return d.Execute(ctx, r.Mode, true)
}

// Execute runs the rounds of an approved plan's execution in mode through
// planning.Executor, which counts the todo lists the steps report: the
// first round sends planning.ExecPrompt (every round sends
// planning.ExecContinuePrompt when resumed), and StallThreshold rounds in a
// row that complete no item stop it. The outcome is recorded (Complete).
func (d *Driver) Execute(ctx context.Context, mode plan.Mode, resumed bool) (Status, error) {
	d.st.ExecMode = mode
	var last Status
	handed := false
	round := func(ctx context.Context, prompt string) error {
		before, _, _ := planning.Progress(d.st.Todos)
		status, err := d.Run(ctx, d.steps.RoundMode(ctx, mode), prompt, false)
		last = status
		switch {
		case err != nil:
			return err
		case status == Cancelled || status == Error:
			return errors.New(string(status))
		}
		if done, active, _ := planning.Progress(d.st.Todos); active > 0 && done > before && d.handOver != nil && d.handOver() {
			handed = true
			return ErrHandOver
		}
		return nil
	}
	earlier := d.st.Rounds
	opts := []planning.ExecutorOption{planning.WithObserver(numbered{d, earlier})}
	if d.lim.StallThreshold > 0 {
		opts = append(opts, planning.WithStallThreshold(d.lim.StallThreshold))
	}
	maxRounds := d.lim.MaxRounds
	if maxRounds <= 0 {
		maxRounds = planning.DefaultMaxRounds
	}
	opts = append(opts, planning.WithMaxRounds(max(maxRounds-earlier, 1)))
	if resumed {
		opts = append(opts, planning.AsContinuation())
	}
	outcome, err := planning.NewExecutor(round, func() []plan.TodoItem { return d.st.Todos }, opts...).Run(ctx)
	switch {
	case handed:
		return "", ErrHandOver
	case err != nil && (last == Cancelled || ctx.Err() != nil || errors.Is(err, context.Canceled)):
		return Cancelled, err
	case err != nil:
		return Error, err
	}
	r, err := d.steps.Complete(ctx, outcome)
	if d.note(r, err); err != nil {
		return failed(r, err)
	}
	if outcome == planning.ExecStalled {
		return Stalled, nil
	}
	return Completed, nil
}

// numbered numbers rounds after those of the drives this one continues,
// and counts them.
type numbered struct {
	d       *Driver
	earlier int
}

func (n numbered) Round(round, done, total int) {
	n.d.st.Rounds = n.earlier + round
	n.d.obs.Round(n.earlier+round, done, total)
}

func (n numbered) Stalled(rounds int) { n.d.obs.Stalled(rounds) }

// ErrUnknownChoice is matched (errors.Is) by the error of Review for a
// choice that is none of planning's four.
var ErrUnknownChoice = errors.New("unknown review choice")

// Review carries out the user's choice about the plan awaiting approval:
// this is the one place a choice is mapped to what it does, for every
// front end and both engines. Approving executes the plan in the choice's
// mode; refining goes back to Plan mode and, with feedback, runs the loop
// that revises the plan (without, nothing runs and the plan still awaits
// approval); cancelling drops the plan.
func (d *Driver) Review(ctx context.Context, c planning.ReviewChoice, feedback string) (Status, error) {
	if mode, ok := c.ApprovalMode(); ok {
		return d.Approve(ctx, mode)
	}
	switch c {
	case planning.ReviewRefine:
		d.steps.SetMode(ctx, planning.ModePlan)
		if strings.TrimSpace(feedback) == "" {
			return AwaitingApproval, nil
		}
		return d.Run(ctx, planning.ModePlan, feedback, true)
	case planning.ReviewCancel:
		r, err := d.steps.Cancel(ctx)
		if d.note(r, err); err != nil {
			return failed(r, err)
		}
		return Completed, nil
	}
	return AwaitingApproval, fmt.Errorf("%w %s", ErrUnknownChoice, c)
}

// Starts reports whether Review(c, feedback) runs the model (an approval,
// or a refinement with feedback) rather than taking effect at once.
func Starts(c planning.ReviewChoice, feedback string) bool {
	_, approves := c.ApprovalMode()
	return approves || c == planning.ReviewRefine && strings.TrimSpace(feedback) != ""
}
