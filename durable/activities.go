package durable

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/session"
)

// Engines opens an engine on a stored session, for one step. The worker's
// program provides it: it knows the provider, the tools and the store.
type Engines interface {
	Engine(ctx context.Context, sessionID string) (*agent.Engine, error)
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

// StepInput names the session and the mode of a step.
type StepInput struct {
	SessionID string
	Mode      planning.Mode
	// Prompt is the prompt of a Prompt step; User says the user gave it
	// (the session_start and user_prompt_submit hooks run), rather than
	// the executor (a round's prompt).
	Prompt string
	User   bool
	// After is the history length the workflow saw before the step (see
	// agent.Engine.StepModel): a retried step does not store twice.
	After int
	// Outcome is the outcome a Complete step records.
	Outcome planning.ExecOutcome
}

// StepOutput is what a step reports to the workflow.
type StepOutput struct {
	Events     []Envelope
	Calls      int
	Status     agent.RunStatus
	Todos      []planning.TodoItem
	HistoryLen int
}

func output(r agent.StepResult) StepOutput {
	return StepOutput{Events: encodeAll(r.Events), Calls: r.Calls, Status: r.Status, Todos: r.Todos, HistoryLen: r.HistoryLen}
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

// with opens the session's engine and runs fn while heartbeating, so the
// server notices a dead worker within the heartbeat timeout and so a
// cancelled workflow cancels the step.
func (a *Activities) with(ctx context.Context, id string, fn func(context.Context, *agent.Engine) (agent.StepResult, error)) (StepOutput, error) {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	go a.beat(ctx)
	eng, err := a.engines.Engine(ctx, id)
	if err != nil {
		return StepOutput{}, classify(fmt.Errorf("durable: cannot open session %s on this worker: %w", id, err))
	}
	r, err := fn(ctx, eng)
	return output(r), classify(err)
}

func (a *Activities) beat(ctx context.Context) {
	if !activity.IsActivity(ctx) {
		return
	}
	t := time.NewTicker(a.heartbeat)
	defer t.Stop()
	for {
		activity.RecordHeartbeat(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Prompt stores a run's prompt (agent.Engine.StepPrompt).
func (a *Activities) Prompt(ctx context.Context, in StepInput) (StepOutput, error) {
	return a.with(ctx, in.SessionID, func(ctx context.Context, e *agent.Engine) (agent.StepResult, error) {
		if in.User {
			return e.StepUserPrompt(ctx, in.Mode, in.Prompt, in.After)
		}
		return e.StepPrompt(ctx, in.Mode, in.Prompt, in.After)
	})
}

// ModelCall makes one model call (agent.Engine.StepModel).
func (a *Activities) ModelCall(ctx context.Context, in StepInput) (StepOutput, error) {
	return a.with(ctx, in.SessionID, func(ctx context.Context, e *agent.Engine) (agent.StepResult, error) {
		return e.StepModel(ctx, in.Mode, in.After)
	})
}

// ToolBatch runs the unanswered tool calls of the last assistant message
// (agent.Engine.StepTools). A call whose result is stored is never run
// again: that is the idempotency key of a write, the call's id.
func (a *Activities) ToolBatch(ctx context.Context, in StepInput) (StepOutput, error) {
	return a.with(ctx, in.SessionID, func(ctx context.Context, e *agent.Engine) (agent.StepResult, error) {
		return e.StepTools(ctx, in.Mode)
	})
}

// Approve approves the plan awaiting approval (agent.Engine.StepApprove).
func (a *Activities) Approve(ctx context.Context, in StepInput) (StepOutput, error) {
	return a.with(ctx, in.SessionID, func(ctx context.Context, e *agent.Engine) (agent.StepResult, error) {
		return e.StepApprove(ctx, in.Mode)
	})
}

// Complete records how an execution ended (agent.Engine.StepComplete).
func (a *Activities) Complete(ctx context.Context, in StepInput) (StepOutput, error) {
	return a.with(ctx, in.SessionID, func(ctx context.Context, e *agent.Engine) (agent.StepResult, error) {
		return agent.StepResult{}, e.StepComplete(ctx, in.Outcome)
	})
}

// CancelPlan drops the plan awaiting approval (agent.Engine.CancelPlan).
func (a *Activities) CancelPlan(ctx context.Context, in StepInput) (StepOutput, error) {
	return a.with(ctx, in.SessionID, func(ctx context.Context, e *agent.Engine) (agent.StepResult, error) {
		err := e.CancelPlan()
		if errors.Is(err, agent.ErrNoPendingPlan) && e.Status() == planning.StatusIdle {
			err = nil // an earlier attempt cancelled it
		}
		return agent.StepResult{}, err
	})
}
