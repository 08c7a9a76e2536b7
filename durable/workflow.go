package durable

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/planning"
)

// Names under which the workflow, its signal and its query are registered.
const (
	WorkflowName = "harness9.session"
	SignalReview = "review"
	QueryStatus  = "status"
	// UpdateReview answers the plan awaiting approval exactly once: the
	// workflow accepts the first review it gets while it waits and rejects
	// every other, so of two reviewers answering at once one is refused
	// (a signal would queue behind the first and answer the next plan).
	// It returns the index of the first event the review causes.
	UpdateReview = "review-once"
)

// ErrTypeNotWaiting is the error type of a review update the workflow
// refuses because no plan awaits a review (answered already, or never).
const ErrTypeNotWaiting = "not_waiting"

// Defaults of a workflow's limits.
const (
	DefaultHeartbeatTimeout = 15 * time.Second
	// DefaultContinueAfter is how many steps (activities) one workflow run
	// takes before an execution continues as a new run, which keeps a
	// long session's history far below Temporal's limits (each step adds a
	// few history events and carries its events in its result).
	DefaultContinueAfter = 1000
)

// Input starts a session's workflow.
type Input struct {
	SessionID string
	// Prompt starts the first run; "" starts with the session's pending
	// work (a plan awaiting review, or an approved plan to continue).
	Prompt string
	// Mode is the first run's mode (planning.ModePlan to plan).
	Mode planning.Mode
	// AutoApprove approves a submitted plan at once, for execution in
	// ModeDefault; otherwise the workflow waits for a Review signal, as
	// long as it takes.
	AutoApprove bool
	// Continue resumes the execution of an approved plan (no Prompt).
	Continue bool
	// Review waits for a review of the stored plan first (no Prompt).
	Review bool
	// Answer carries out this review of the stored plan at once, instead
	// of waiting for one (with Review).
	Answer *Review
	// Todos is the stored todo list when a continued execution starts: the
	// executor counts progress from it (without it, an execution resumed
	// by a new workflow would look finished before its first round).
	Todos []planning.TodoItem
	// ExecMode is the mode a continued execution runs in.
	ExecMode planning.Mode
	// TaskQueue is where the activities run: the queue of the worker host
	// that holds the session's workspace.
	TaskQueue string
	// HistoryLen is the session's message count when the workflow starts.
	HistoryLen int
	// MaxTurns caps model calls per run (0: agent.DefaultMaxTurns);
	// StallThreshold and MaxRounds are planning.Executor's (0: its
	// defaults).
	MaxTurns, StallThreshold, MaxRounds int
	// HeartbeatTimeout is how soon a step on a dead worker is retried
	// elsewhere on the queue (default DefaultHeartbeatTimeout).
	HeartbeatTimeout time.Duration
	// ContinueAfter is how many steps a run takes before an execution
	// continues as new (default DefaultContinueAfter). It happens only
	// right after an execution round that completed an item, so the
	// stagnation rule, whose count starts again in the new run, loses
	// nothing.
	ContinueAfter int
	// EventBase is the index of this run's first event among all the
	// events of the session's workflow, counted across continue-as-new;
	// RoundsDone the execution rounds earlier runs made. Continue-as-new
	// sets them.
	EventBase, RoundsDone int
}

// Review is the signal that answers a plan awaiting approval: Choice is a
// planning.ReviewChoice; Feedback is the prompt of a refining run.
type Review struct {
	Choice   planning.ReviewChoice
	Feedback string
}

// Status is what the status query returns.
type Status struct {
	// Phase is the session's planning.Status as the workflow knows it.
	Phase planning.Status
	// Waiting says the workflow waits for a Review signal.
	Waiting bool
	// Finished says the workflow has ended with Result.
	Finished bool
	Result   agent.RunStatus
	// Events are the events from the index the query asked for on.
	Events []Envelope
	// Next is the index to ask for next time.
	Next  int
	Todos []planning.TodoItem
	// Base is the index of this run's first event; events before it are
	// in the run PrevRun (the run this one continued), "" when none.
	Base    int
	PrevRun string
}

// Result is how the workflow ended, with the last events it recorded:
// Events holds the events from index From on (at most resultEvents of
// them, so a long session's result stays far below the server's payload
// limit; a follower that is further behind queries the closed workflow).
type Result struct {
	Status agent.RunStatus
	Error  string
	From   int
	Events []Envelope
}

// Caps on the events one answer carries.
const (
	resultEvents = 200
	queryEvents  = 500
)

// flow is the workflow's state: only what it derives from activity results
// (events, the todo list, the history length) and the signals it got.
type flow struct {
	ctx      workflow.Context
	in       Input
	act      *Activities // nil: only its method values name the activities
	events   []Envelope
	todos    []planning.TodoItem
	histLen  int
	phase    planning.Status
	waiting  bool
	finished bool
	result   agent.RunStatus
	steps    int // activities this run scheduled
	rounds   int // execution rounds this run made
	reviews  workflow.ReceiveChannel
	// answers carries the review an update accepted to the waiting loop;
	// answered says the current wait has its answer.
	answers  workflow.Channel
	answered bool
}

// SessionWorkflow runs a session's plan → approve → execute as a durable
// workflow: each model call and each tool batch is an activity, approval
// and refinement are Review signals, and the auto-execution rounds with
// their stagnation rule run here, in workflow code, through
// planning.Executor fed only by the todo lists activities return.
func SessionWorkflow(ctx workflow.Context, in Input) (Result, error) {
	if in.MaxTurns <= 0 {
		in.MaxTurns = agent.DefaultMaxTurns
	}
	if in.HeartbeatTimeout <= 0 {
		in.HeartbeatTimeout = DefaultHeartbeatTimeout
	}
	f := &flow{ctx: ctx, in: in, histLen: in.HistoryLen, phase: planning.StatusRunning, todos: in.Todos,
		reviews: workflow.GetSignalChannel(ctx, SignalReview), answers: workflow.NewBufferedChannel(ctx, 1)}
	err := workflow.SetQueryHandler(ctx, QueryStatus, func(from int) (Status, error) {
		base := f.in.EventBase
		from = min(max(from-base, 0), len(f.events))
		to := min(from+queryEvents, len(f.events))
		return Status{Phase: f.phase, Waiting: f.waiting, Finished: f.finished, Result: f.result,
			Events: f.events[from:to], Next: base + to, Todos: f.todos, Base: base,
			PrevRun: workflow.GetInfo(ctx).ContinuedExecutionRunID}, nil
	})
	if err != nil {
		return Result{}, err
	}
	err = workflow.SetUpdateHandlerWithOptions(ctx, UpdateReview, f.answer,
		workflow.UpdateHandlerOptions{Validator: func(_ workflow.Context, r Review) error { return f.canAnswer(r) }})
	if err != nil {
		return Result{}, err
	}
	status, err := f.main()
	var can *workflow.ContinueAsNewError
	if errors.As(err, &can) {
		return Result{}, err
	}
	if temporal.IsCanceledError(err) || errors.Is(ctx.Err(), workflow.ErrCanceled) {
		status, err = agent.RunCancelled, nil
	}
	res := Result{Status: status}
	if err != nil {
		res.Status, res.Error = agent.RunError, err.Error()
		f.emit(agent.Error{Message: err.Error()})
	}
	f.finished, f.result = true, res.Status
	from := max(len(f.events)-resultEvents, 0)
	res.From, res.Events = in.EventBase+from, f.events[from:]
	return res, nil
}

func (f *flow) main() (agent.RunStatus, error) {
	var status agent.RunStatus
	var err error
	switch {
	case f.in.Continue:
		f.phase = planning.StatusExecuting
		status, err = f.execute(f.in.ExecMode, true)
	case f.in.Review:
		status = agent.RunAwaitingApproval
	default:
		status, err = f.run(f.in.Mode, f.in.Prompt, true)
	}
	for err == nil && status == agent.RunAwaitingApproval {
		f.phase = planning.StatusAwaitingApproval
		r := Review{Choice: planning.ReviewApprove}
		switch {
		case f.in.Answer != nil:
			r, f.in.Answer = *f.in.Answer, nil
		case !f.in.AutoApprove:
			f.waiting, f.answered = true, false
			cancelled := false
			sel := workflow.NewSelector(f.ctx)
			sel.AddReceive(f.reviews, func(c workflow.ReceiveChannel, _ bool) { c.Receive(f.ctx, &r) })
			sel.AddReceive(f.answers, func(c workflow.ReceiveChannel, _ bool) { c.Receive(f.ctx, &r) })
			sel.AddReceive(f.ctx.Done(), func(workflow.ReceiveChannel, bool) { cancelled = true })
			sel.Select(f.ctx)
			f.waiting = false
			if f.answered {
				// An accepted update wins over a signal selected in the
				// same wait: its caller was told it took effect.
				f.answers.ReceiveAsync(&r)
			}
			if cancelled {
				// The plan stays awaiting approval in the store; a new
				// workflow can pick it up (run --resume ID).
				return agent.RunCancelled, nil
			}
		}
		status, err = f.review(r)
	}
	return status, err
}

// canAnswer says whether an update may answer the current wait.
func (f *flow) canAnswer(r Review) error {
	if !f.waiting || f.answered {
		return temporal.NewNonRetryableApplicationError("no plan awaits a review in session "+f.in.SessionID+
			" (it was reviewed already, or it is still being made)", ErrTypeNotWaiting, nil)
	}
	switch {
	case r.Choice == planning.ReviewRefine && r.Feedback == "":
		return temporal.NewNonRetryableApplicationError("refine needs feedback: the prompt the plan is revised with", ErrTypeUsage, nil)
	case r.Choice == planning.ReviewRefine, r.Choice == planning.ReviewCancel:
	default:
		if _, ok := r.Choice.ApprovalMode(); !ok {
			return temporal.NewNonRetryableApplicationError("unknown review choice "+r.Choice.String(), ErrTypeUsage, nil)
		}
	}
	return nil
}

// answer is the UpdateReview handler: it hands the review to the waiting
// loop and returns the index of the first event the review causes. The
// check is repeated here because two updates may pass their validators
// before either handler runs; handlers run one at a time.
func (f *flow) answer(ctx workflow.Context, r Review) (int, error) {
	if err := f.canAnswer(r); err != nil {
		return 0, err
	}
	f.answered = true
	f.answers.Send(ctx, r)
	return f.in.EventBase + len(f.events), nil
}

// review carries out one review choice.
func (f *flow) review(r Review) (agent.RunStatus, error) {
	if mode, ok := r.Choice.ApprovalMode(); ok {
		if _, err := f.step(f.act.Approve, StepInput{Mode: mode}); err != nil {
			return agent.RunError, err
		}
		f.phase = planning.StatusExecuting
		return f.execute(mode, false)
	}
	switch r.Choice {
	case planning.ReviewRefine:
		if r.Feedback == "" {
			return agent.RunAwaitingApproval, nil // keep waiting
		}
		f.phase = planning.StatusRunning
		return f.run(planning.ModePlan, r.Feedback, true)
	case planning.ReviewCancel:
		if _, err := f.step(f.act.CancelPlan, StepInput{}); err != nil {
			return agent.RunError, err
		}
		f.phase = planning.StatusIdle
		return agent.RunCompleted, nil
	}
	return agent.RunAwaitingApproval, nil // an unknown choice changes nothing
}

// run is one run loop: the prompt, then model calls and tool batches until
// the model stops calling tools, a tool ends the turn or MaxTurns is hit.
// user says the user gave the prompt (its hooks run; a blocking one ends
// the loop).
func (f *flow) run(mode planning.Mode, prompt string, user bool) (agent.RunStatus, error) {
	out, err := f.step(f.act.Prompt, StepInput{Mode: mode, Prompt: prompt, User: user})
	if err != nil {
		return agent.RunError, err
	}
	if out.Status != "" {
		return out.Status, nil
	}
	for range f.in.MaxTurns {
		out, err := f.step(f.act.ModelCall, StepInput{Mode: mode})
		if err != nil {
			return agent.RunError, err
		}
		if out.Status != "" {
			return out.Status, nil
		}
		if out, err = f.step(f.act.ToolBatch, StepInput{Mode: mode}); err != nil {
			return agent.RunError, err
		}
		if out.Status != "" {
			return out.Status, nil
		}
	}
	return agent.RunMaxTurns, nil
}

// execute drives planning.Executor — the same rounds and stagnation rule
// as a local run — with rounds made of activities. The executor reads the
// todo list the last activity returned; nothing else.
func (f *flow) execute(mode planning.Mode, resumed bool) (agent.RunStatus, error) {
	round := func(_ context.Context, prompt string) error {
		before, _, _ := planning.Progress(f.todos)
		status, err := f.run(mode, prompt, false)
		if err == nil && status == agent.RunError {
			err = errors.New("the round failed")
		}
		if done, active, _ := planning.Progress(f.todos); err == nil && active > 0 && done > before && f.longEnough() {
			err = errContinue
		}
		return err
	}
	opts := []planning.ExecutorOption{planning.WithObserver(observer{f})}
	if f.in.StallThreshold > 0 {
		opts = append(opts, planning.WithStallThreshold(f.in.StallThreshold))
	}
	maxRounds := f.in.MaxRounds
	if maxRounds <= 0 {
		maxRounds = planning.DefaultMaxRounds
	}
	opts = append(opts, planning.WithMaxRounds(max(maxRounds-f.in.RoundsDone, 1)))
	if resumed {
		opts = append(opts, planning.AsContinuation())
	}
	todos := func() []planning.TodoItem { return f.todos }
	// The executor's context is not the workflow's: cancellation reaches
	// the rounds through their activities, which return it as an error.
	outcome, err := planning.NewExecutor(round, todos, opts...).Run(context.Background())
	if errors.Is(err, errContinue) {
		return agent.RunError, f.continueAsNew(mode)
	}
	if err != nil {
		return agent.RunError, err
	}
	if _, err := f.step(f.act.Complete, StepInput{Outcome: outcome}); err != nil {
		return agent.RunError, err
	}
	if outcome == planning.ExecStalled {
		f.phase = planning.StatusStalled
		return agent.RunStalled, nil
	}
	f.phase = planning.StatusIdle
	return agent.RunCompleted, nil
}

// errContinue ends an executor's rounds for continue-as-new.
var errContinue = errors.New("continue as new")

// longEnough reports whether this run has taken enough steps, or the
// server suggests it, to continue as new.
func (f *flow) longEnough() bool {
	limit := f.in.ContinueAfter
	if limit <= 0 {
		limit = DefaultContinueAfter
	}
	return f.steps >= limit || workflow.GetInfo(f.ctx).GetContinueAsNewSuggested()
}

// continueAsNew ends this run with a new one that continues the execution
// in mode: the session's state is in the store; the new run carries only
// the counts that keep event indices and the round cap whole.
func (f *flow) continueAsNew(mode planning.Mode) error {
	next := f.in
	next.Prompt, next.Review, next.Answer = "", false, nil
	next.Continue, next.ExecMode = true, mode
	next.HistoryLen, next.Todos = f.histLen, f.todos
	next.EventBase = f.in.EventBase + len(f.events)
	next.RoundsDone = f.in.RoundsDone + f.rounds
	return workflow.NewContinueAsNewError(f.ctx, WorkflowName, next)
}

// observer records the executor's progress as events.
type observer struct{ f *flow }

func (o observer) Round(round, done, total int) {
	o.f.rounds = round
	o.f.emit(agent.ExecRound{Round: o.f.in.RoundsDone + round, Done: done, Total: total})
}

func (o observer) Stalled(rounds int) { o.f.emit(agent.Stalled{Rounds: rounds}) }

func (f *flow) emit(ev agent.Event) {
	if env, ok := Encode(ev); ok {
		f.events = append(f.events, env)
	}
}

// step runs one activity on the session's task queue and takes in what it
// returned: its events, the todo list, the history length.
func (f *flow) step(activity any, in StepInput) (StepOutput, error) {
	in.SessionID = f.in.SessionID
	in.After = f.histLen
	f.steps++
	ctx := workflow.WithActivityOptions(f.ctx, f.activityOptions())
	var out StepOutput
	if err := workflow.ExecuteActivity(ctx, activity, in).Get(ctx, &out); err != nil {
		return out, fmt.Errorf("durable: %w", err)
	}
	f.events = append(f.events, out.Events...)
	f.todos = out.Todos
	f.histLen = out.HistoryLen
	return out, nil
}

// activityOptions: a step may run long (a model call, a test suite) but
// heartbeats, so a dead worker is noticed within HeartbeatTimeout; provider
// failures are retried with backoff, usage errors are not.
func (f *flow) activityOptions() workflow.ActivityOptions {
	return workflow.ActivityOptions{
		TaskQueue:           f.in.TaskQueue,
		StartToCloseTimeout: 2 * time.Hour,
		HeartbeatTimeout:    f.in.HeartbeatTimeout,
		WaitForCancellation: true,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:        time.Second,
			BackoffCoefficient:     2,
			MaximumInterval:        time.Minute,
			MaximumAttempts:        10,
			NonRetryableErrorTypes: []string{ErrTypeUsage},
		},
	}
}
