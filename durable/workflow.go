package durable

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/internal/lib/driver"
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
	// Settings are passed to the engines of every step (Engines).
	Settings Settings
	// Prompt starts the first run; "" starts with the session's pending
	// work (a plan awaiting review, or an approved plan to continue).
	Prompt string
	// Mode is the first run's mode (planning.ModePlan to plan).
	Mode planning.Mode
	// AutoApprove approves a submitted plan at once, for execution in
	// ModeDefault; otherwise the workflow waits for a Review signal, as
	// long as it takes.
	AutoApprove bool
	// Continue resumes the execution of an approved plan (no Prompt): the
	// workflow's first step takes the plan's mode and todo list from the
	// store.
	Continue bool
	// Review waits for a review of the stored plan first (no Prompt).
	Review bool
	// Answer carries out this review of the stored plan at once, instead
	// of waiting for one (with Review).
	Answer *Review
	// HandedOver says this run continues the execution of the run before
	// it (continue-as-new sets it, with Continue): its rounds go on where
	// those stopped, from Todos, in ExecMode, with Memo.
	HandedOver bool
	// Todos is the todo list a handed-over execution counts progress from.
	Todos []planning.TodoItem
	// ExecMode is the mode a handed-over execution runs in.
	ExecMode planning.Mode
	// Memo is what the engine remembered in the run before (whether the
	// session_start hooks ran, the provider's last context size).
	Memo driver.Memo
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
	// AskTimeout is how long a permission question waits for its answer
	// before the call is refused, with a message the model sees (default
	// DefaultAskTimeout).
	AskTimeout time.Duration
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
	// Phase is the session's planning.Status as the last step reported
	// it ("" before the first).
	Phase planning.Status
	// Waiting says the workflow waits for a Review signal.
	Waiting bool
	// Asks are the permission questions waiting for an answer (at most
	// one: a tool batch asks one call at a time).
	Asks []Question
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

// flow is the workflow's state: the planning driver (internal/driver) that
// decides, fed only by what the activities return, the events they
// reported and the signals the workflow got.
type flow struct {
	ctx      workflow.Context
	in       Input
	act      *Activities // nil: only its method values name the activities
	d        *driver.Driver
	events   []Envelope
	phase    planning.Status // as the last step reported it
	waiting  bool
	finished bool
	result   agent.RunStatus
	steps    int // activities this run scheduled
	reviews  workflow.ReceiveChannel
	// answers carries the review an update accepted to the waiting loop;
	// answered says the current wait has its answer.
	answers  workflow.Channel
	answered bool
	// asks is the permission questions' side (ask.go).
	asks askState
}

// SessionWorkflow runs a session's plan → approve → execute as a durable
// workflow. The planning driver — the same the local engine runs — makes
// every decision: each of its steps (a prompt, a model call, a tool batch,
// an approval ...) is an activity on a worker, and the auto-execution
// rounds with their stagnation rule run here, in workflow code, counting
// the todo lists activities return. Approval and refinement arrive as
// Review signals or updates.
func SessionWorkflow(ctx workflow.Context, in Input) (Result, error) {
	if in.MaxTurns <= 0 {
		in.MaxTurns = agent.DefaultMaxTurns
	}
	if in.HeartbeatTimeout <= 0 {
		in.HeartbeatTimeout = DefaultHeartbeatTimeout
	}
	f := &flow{ctx: ctx, in: in,
		reviews: workflow.GetSignalChannel(ctx, SignalReview), answers: workflow.NewBufferedChannel(ctx, 1),
		asks: newAskState(ctx)}
	f.d = driver.New(activitySteps{f}, observer{f},
		driver.WithLimits(driver.Limits{MaxTurns: in.MaxTurns, StallThreshold: in.StallThreshold, MaxRounds: in.MaxRounds}),
		driver.WithState(driver.State{HistoryLen: in.HistoryLen, Todos: in.Todos, Memo: in.Memo, ExecMode: in.ExecMode, Rounds: in.RoundsDone}),
		driver.WithHandOver(f.longEnough))
	err := workflow.SetQueryHandler(ctx, QueryStatus, func(from int) (Status, error) {
		base := f.in.EventBase
		from = min(max(from-base, 0), len(f.events))
		to := min(from+queryEvents, len(f.events))
		return Status{Phase: f.phase, Waiting: f.waiting, Asks: f.pendingAsks(), Finished: f.finished, Result: f.result,
			Events: f.events[from:to], Next: base + to, Todos: f.d.State().Todos, Base: base,
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
	err = workflow.SetUpdateHandlerWithOptions(ctx, UpdatePermission, f.answerAsk,
		workflow.UpdateHandlerOptions{Validator: func(_ workflow.Context, a PermissionAnswer) error { return f.canAnswerAsk(a) }})
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

// main drives the session: the work the input names, then, while a plan
// awaits approval, a review at a time. The workflow's context is not a
// context.Context: cancellation reaches the driver through the activities,
// which return it as an error.
func (f *flow) main() (agent.RunStatus, error) {
	ctx := context.Background()
	var status driver.Status
	var err error
	switch {
	case f.in.HandedOver:
		status, err = f.d.Execute(ctx, f.in.ExecMode, true)
	case f.in.Continue:
		status, err = f.d.Continue(ctx)
	case f.in.Review:
		status = driver.AwaitingApproval
	default:
		status, err = f.d.Run(ctx, f.in.Mode, f.in.Prompt, true)
	}
	for err == nil && status == driver.AwaitingApproval {
		r, ok := f.awaitReview()
		if !ok {
			// The plan stays awaiting approval in the store; a new
			// workflow can pick it up (run --resume ID).
			return agent.RunCancelled, nil
		}
		status, err = f.d.Review(ctx, r.Choice, r.Feedback)
		if errors.Is(err, driver.ErrUnknownChoice) {
			status, err = driver.AwaitingApproval, nil // an unknown choice changes nothing
		}
	}
	if errors.Is(err, driver.ErrHandOver) {
		return agent.RunError, f.continueAsNew()
	}
	return agent.RunStatus(status), err
}

// awaitReview returns the review of the plan awaiting approval: the
// input's answer, an approval when the input says so, or the first review
// signal or update that comes. ok is false when the workflow was cancelled
// while it waited.
func (f *flow) awaitReview() (r Review, ok bool) {
	switch {
	case f.in.Answer != nil:
		r, f.in.Answer = *f.in.Answer, nil
		return r, true
	case f.in.AutoApprove:
		return Review{Choice: planning.ReviewApprove}, true
	}
	f.waiting, f.answered = true, false
	cancelled := false
	sel := workflow.NewSelector(f.ctx)
	sel.AddReceive(f.reviews, func(c workflow.ReceiveChannel, _ bool) { c.Receive(f.ctx, &r) })
	sel.AddReceive(f.answers, func(c workflow.ReceiveChannel, _ bool) { c.Receive(f.ctx, &r) })
	sel.AddReceive(f.ctx.Done(), func(workflow.ReceiveChannel, bool) { cancelled = true })
	sel.Select(f.ctx)
	f.waiting = false
	if f.answered {
		// An accepted update wins over a signal selected in the same
		// wait: its caller was told it took effect.
		f.answers.ReceiveAsync(&r)
	}
	return r, !cancelled
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
// the driver handed over: the session's state is in the store; the new run
// carries only what the driver knows besides (the todo list it counts, the
// mode, the engine's memo) and the counts that keep event indices and the
// round cap whole.
func (f *flow) continueAsNew() error {
	st := f.d.State()
	next := f.in
	next.Prompt, next.Review, next.Answer = "", false, nil
	next.Continue, next.HandedOver, next.ExecMode = true, true, st.ExecMode
	next.HistoryLen, next.Todos, next.Memo = st.HistoryLen, st.Todos, st.Memo
	next.EventBase = f.in.EventBase + len(f.events)
	next.RoundsDone = st.Rounds
	return workflow.NewContinueAsNewError(f.ctx, WorkflowName, next)
}

// observer records the driver's execution rounds and stalls as events.
type observer struct{ f *flow }

func (o observer) Round(round, done, total int) {
	o.f.emit(agent.ExecRound{Round: round, Done: done, Total: total})
}

func (o observer) Stalled(rounds int) { o.f.emit(agent.Stalled{Rounds: rounds}) }

func (f *flow) emit(ev agent.Event) {
	if env, ok := Encode(ev); ok {
		f.events = append(f.events, env)
	}
}

// activitySteps are the driver's steps as activities on the session's task
// queue. The context the driver passes is not used: activities run in the
// workflow's.
type activitySteps struct{ f *flow }

func (a activitySteps) Prompt(_ context.Context, l *driver.Loop, prompt string) (driver.Result, error) {
	return a.f.step(a.f.act.Prompt, StepInput{Loop: *l, Prompt: prompt}, l)
}

func (a activitySteps) Model(_ context.Context, l *driver.Loop) (driver.Result, error) {
	return a.f.step(a.f.act.ModelCall, StepInput{Loop: *l}, l)
}

// Tools runs the tool batch; a question it ends at is put to the user
// (ask.go) and the batch runs again with the answer, until no question is
// left: to the driver, the step is the local engine's, which blocks on the
// question.
func (a activitySteps) Tools(_ context.Context, l *driver.Loop) (driver.Result, error) {
	defer func() { l.Answers = nil }()
	ctx := a.f.stepContext()
	for {
		out, r, err := a.f.run(ctx, a.f.act.ToolBatch, StepInput{Loop: *l}, l)
		if err != nil || out.Ask == nil {
			return r, err
		}
		answer := a.f.askUser(*out.Ask)
		if l.Answers == nil {
			l.Answers = map[string]driver.Answer{}
		}
		l.Answers[out.Ask.ID] = answer
		if answer.Cancelled {
			// The workflow is cancelled: the batch records the call and
			// those after it as cancelled, as a local run does, on a
			// context the cancellation does not end.
			ctx = a.f.cleanupContext()
		}
	}
}

// End is a no-op: each activity closes its own loop.
func (a activitySteps) End(context.Context, *driver.Loop) {}

func (a activitySteps) Approve(_ context.Context, mode planning.Mode) (driver.Result, error) {
	return a.f.step(a.f.act.Approve, StepInput{Mode: mode}, nil)
}

func (a activitySteps) Continue(context.Context) (driver.Result, error) {
	return a.f.step(a.f.act.Continue, StepInput{}, nil)
}

func (a activitySteps) Cancel(context.Context) (driver.Result, error) {
	return a.f.step(a.f.act.CancelPlan, StepInput{}, nil)
}

func (a activitySteps) Complete(_ context.Context, outcome planning.ExecOutcome) (driver.Result, error) {
	return a.f.step(a.f.act.Complete, StepInput{Outcome: outcome}, nil)
}

// SetMode is a no-op: the next loop's prompt step stores its mode.
func (a activitySteps) SetMode(context.Context, planning.Mode) {}

// RoundMode is mode: nobody changes the session's mode while the workflow
// executes its plan.
func (a activitySteps) RoundMode(_ context.Context, mode planning.Mode) planning.Mode { return mode }

// step runs one activity on the session's task queue and takes in what it
// returned: its events, the planning status it left and the loop's state.
func (f *flow) step(activity any, in StepInput, l *driver.Loop) (driver.Result, error) {
	_, r, err := f.run(f.stepContext(), activity, in, l)
	return r, err
}

// stepContext is the context steps run in: the workflow's, with the
// activity options.
func (f *flow) stepContext() workflow.Context {
	return workflow.WithActivityOptions(f.ctx, f.activityOptions())
}

// run is step in ctx (a context with activity options), with the whole
// output.
func (f *flow) run(ctx workflow.Context, activity any, in StepInput, l *driver.Loop) (StepOutput, driver.Result, error) {
	in.SessionID, in.Settings = f.in.SessionID, f.in.Settings
	f.steps++
	var out StepOutput
	if err := workflow.ExecuteActivity(ctx, activity, in).Get(ctx, &out); err != nil {
		if temporal.IsCanceledError(err) {
			return out, driver.Result{End: driver.Cancelled}, err
		}
		return out, driver.Result{}, fmt.Errorf("durable: %w", err)
	}
	f.events = append(f.events, out.Events...)
	f.phase = out.Result.Phase
	if l != nil {
		*l = out.Loop
	}
	if out.Err != "" {
		return out, out.Result, errors.New(out.Err)
	}
	return out, out.Result, nil
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
