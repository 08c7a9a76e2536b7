package durable

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/internal/lib/driver"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/session"
)

// Engines opens an engine on a stored session, for one step, with the
// settings the workflow's starter asked for. The worker's program provides
// it: it knows the provider, the tools and the store. The step calls
// release (never nil) once it is done with the engine, so an Engines that
// keeps what engines are built on between steps (a workspace's sandbox,
// MCP servers, skills) knows which of those parts are in use and may close
// the others.
type Engines interface {
	Engine(ctx context.Context, sessionID string, s Settings) (eng *agent.Engine, release func(), err error)
}

// EnginesFunc adapts a function that builds a fresh engine for every step,
// keeping nothing between steps, to Engines.
type EnginesFunc func(ctx context.Context, sessionID string, s Settings) (*agent.Engine, error)

// Engine implements Engines; its release does nothing.
func (f EnginesFunc) Engine(ctx context.Context, sessionID string, s Settings) (*agent.Engine, func(), error) {
	eng, err := f(ctx, sessionID, s)
	return eng, func() {}, err
}

// Settings are what the workflow's starter asks of the engines its steps
// open, beyond the worker's own configuration.
type Settings struct {
	// ContextWindow overrides the model's context window, in tokens (0:
	// the worker's setting), so a session compacts at the same turns as
	// it would run locally with the same override.
	ContextWindow int
}

// Activities are the steps of a session's workflow, run by a worker. Each
// opens a fresh engine on the session, so any worker that reaches the
// session's workspace and store can run them; state lives in the store.
type Activities struct {
	engines   Engines
	heartbeat time.Duration
}

// ActivitiesOption configures Activities.
type ActivitiesOption func(*Activities)

// WithHeartbeatEvery sets how often a running activity tells the server it
// is alive (default 2s); it must be well under the workflow's heartbeat
// timeout.
func WithHeartbeatEvery(d time.Duration) ActivitiesOption {
	return func(a *Activities) {
		if d > 0 {
			a.heartbeat = d
		}
	}
}

// NewActivities returns the activities, opening engines with engines.
func NewActivities(engines Engines, opts ...ActivitiesOption) *Activities {
	a := &Activities{engines: engines, heartbeat: 2 * time.Second}
	for _, o := range opts {
		o(a)
	}
	return a
}

// StepInput is what a step of the session's workflow gets: the session,
// the loop it belongs to (the driver's, internal/driver) and what the step
// needs besides.
type StepInput struct {
	SessionID string
	// Settings are the workflow's (Input.Settings).
	Settings Settings
	// Loop is the state of the loop a Prompt, ModelCall or ToolBatch step
	// belongs to, as the workflow carries it between steps.
	Loop driver.Loop
	// Prompt is a Prompt step's prompt.
	Prompt string
	// Mode is the mode an Approve step approves the plan for.
	Mode planning.Mode
	// Outcome is the outcome a Complete step records.
	Outcome planning.ExecOutcome
}

// StepOutput is what a step reports to the workflow.
type StepOutput struct {
	// Events are what the step reported, without the deltas of streamed
	// text.
	Events []Envelope
	Result driver.Result
	// Loop is the loop's state after the step.
	Loop driver.Loop
	// Err is why the step ended its loop with an error (a blocking hook)
	// or cancelled it (the answer to a question was the workflow's
	// cancellation): a decision of the step, not a failure to retry.
	Err string
	// Ask is the question a tool batch ended at (nil: none): the
	// workflow puts it to the user and runs the batch again with the
	// answer.
	Ask *Question
}

// Non-retryable error types: retrying cannot help, so the workflow fails
// at once and says why.
const (
	ErrTypeUsage    = "usage"    // a missing session, a plan that is not awaiting approval, a provider refusing the request
	ErrTypeProvider = "provider" // a provider error worth retrying (rate limit, 5xx, dropped connection)
)

// classify turns an engine error into what the workflow should do with it.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var pe *llm.ProviderError
	switch {
	case errors.Is(err, context.Canceled):
		return err
	case errors.As(err, &pe) && pe.Retryable():
		return temporal.NewApplicationErrorWithCause(err.Error(), ErrTypeProvider, err)
	case errors.As(err, &pe),
		errors.Is(err, session.ErrNotFound), errors.Is(err, session.ErrAmbiguous),
		errors.Is(err, agent.ErrNoPendingPlan), errors.Is(err, agent.ErrOtherWorkdir):
		return temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeUsage, err)
	}
	return err
}

// with opens the session's engine and runs one of its hosted steps
// (driver.Hosted) while heartbeating, so the server notices a dead worker
// within the heartbeat timeout and so a cancelled workflow cancels the step.
func (a *Activities) with(ctx context.Context, in StepInput, fn func(context.Context, driver.Steps, *driver.Loop) (driver.Result, error)) (StepOutput, error) {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	go a.beat(ctx)
	eng, release, err := a.engines.Engine(ctx, in.SessionID, in.Settings)
	if err != nil {
		return StepOutput{}, classify(fmt.Errorf("durable: cannot open session %s on this worker: %w", in.SessionID, err))
	}
	defer release()
	var evs []agent.Event
	var ask *Question
	steps, err := driver.Hosted(eng, func(ev any) {
		if req, ok := ev.(*agent.ApprovalRequest); ok {
			q := questionOf(req)
			ask = &q
		}
		evs = append(evs, ev.(agent.Event))
	})
	if err != nil {
		return StepOutput{}, err
	}
	l := in.Loop
	r, err := fn(ctx, steps, &l)
	out := StepOutput{Events: encodeAll(evs), Result: r, Loop: l, Ask: ask}
	if err != nil && (r.End == driver.Error || r.End == driver.Cancelled && ctx.Err() == nil) {
		out.Err, err = err.Error(), nil
	}
	return out, classify(err)
}

func (a *Activities) beat(ctx context.Context) {
	if !activity.IsActivity(ctx) {
		return
	}
	// The first beat comes after an interval, not at once: most steps end
	// sooner, and a beat is a request the server records.
	t := time.NewTicker(a.heartbeat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		activity.RecordHeartbeat(ctx)
	}
}

// Prompt begins a loop: it stores its prompt (driver.Steps.Prompt).
func (a *Activities) Prompt(ctx context.Context, in StepInput) (StepOutput, error) {
	return a.with(ctx, in, func(ctx context.Context, s driver.Steps, l *driver.Loop) (driver.Result, error) {
		return s.Prompt(ctx, l, in.Prompt)
	})
}

// ModelCall makes one model call (driver.Steps.Model).
func (a *Activities) ModelCall(ctx context.Context, in StepInput) (StepOutput, error) {
	return a.with(ctx, in, func(ctx context.Context, s driver.Steps, l *driver.Loop) (driver.Result, error) {
		return s.Model(ctx, l)
	})
}

// ToolBatch runs the unanswered tool calls of the last assistant message
// (driver.Steps.Tools). A call whose result is stored is never run again:
// that is the idempotency key of a write, the call's id.
func (a *Activities) ToolBatch(ctx context.Context, in StepInput) (StepOutput, error) {
	return a.with(ctx, in, func(ctx context.Context, s driver.Steps, l *driver.Loop) (driver.Result, error) {
		return s.Tools(ctx, l)
	})
}

// Approve approves the plan awaiting approval (driver.Steps.Approve).
func (a *Activities) Approve(ctx context.Context, in StepInput) (StepOutput, error) {
	return a.with(ctx, in, func(ctx context.Context, s driver.Steps, _ *driver.Loop) (driver.Result, error) {
		return s.Approve(ctx, in.Mode)
	})
}

// Continue resumes an approved plan's execution (driver.Steps.Continue).
func (a *Activities) Continue(ctx context.Context, in StepInput) (StepOutput, error) {
	return a.with(ctx, in, func(ctx context.Context, s driver.Steps, _ *driver.Loop) (driver.Result, error) {
		return s.Continue(ctx)
	})
}

// Complete records how an execution ended (driver.Steps.Complete).
func (a *Activities) Complete(ctx context.Context, in StepInput) (StepOutput, error) {
	return a.with(ctx, in, func(ctx context.Context, s driver.Steps, _ *driver.Loop) (driver.Result, error) {
		return s.Complete(ctx, in.Outcome)
	})
}

// CancelPlan drops the plan awaiting approval (driver.Steps.Cancel).
func (a *Activities) CancelPlan(ctx context.Context, in StepInput) (StepOutput, error) {
	return a.with(ctx, in, func(ctx context.Context, s driver.Steps, _ *driver.Loop) (driver.Result, error) {
		return s.Cancel(ctx)
	})
}
