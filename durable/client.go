package durable

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/harness9/harness9/agent"
)

// WorkflowID is the id of a session's workflow: one workflow at a time per
// session, and any client that knows the session can reach it.
func WorkflowID(sessionID string) string { return "harness9-session-" + sessionID }

// ErrRunning is matched (errors.Is) when a session already has a workflow
// in progress.
var ErrRunning = errors.New("the session already has a workflow in progress")

// ErrNoWorkflow is matched (errors.Is) when a session has no workflow in
// progress to signal.
var ErrNoWorkflow = errors.New("the session has no workflow in progress")

// Start starts the session's workflow; its workflow tasks and activities
// run on in.TaskQueue.
func Start(ctx context.Context, c client.Client, in Input) error {
	_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                       WorkflowID(in.SessionID),
		TaskQueue:                in.TaskQueue,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
		Memo:                     map[string]any{"session_id": in.SessionID, "task_queue": in.TaskQueue},
	}, WorkflowName, in)
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &started) {
		return fmt.Errorf("%w (session %s; answer its review with `harness9 sessions approve|refine|cancel %s`)", ErrRunning, in.SessionID, in.SessionID)
	}
	if err != nil {
		return fmt.Errorf("durable: cannot start the workflow of session %s: %w", in.SessionID, err)
	}
	return nil
}

// SendReview signals the session's workflow with the user's review.
func SendReview(ctx context.Context, c client.Client, sessionID string, r Review) error {
	err := c.SignalWorkflow(ctx, WorkflowID(sessionID), "", SignalReview, r)
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return fmt.Errorf("%w (session %s)", ErrNoWorkflow, sessionID)
	}
	return err
}

// ErrNotWaiting is matched (errors.Is) when Answer finds no plan awaiting
// a review: another reviewer answered it first, or it is still being made.
var ErrNotWaiting = errors.New("no plan awaits a review")

// Answer answers the plan the session's workflow waits for, exactly once:
// of concurrent answers the workflow takes the first and refuses the rest
// (ErrNotWaiting). It returns the index of the first event the review
// causes (see AnsweredAt). A worker must be up to decide: without one it
// waits until ctx ends.
func Answer(ctx context.Context, c client.Client, sessionID string, r Review) (int, error) {
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID:   WorkflowID(sessionID),
		UpdateName:   UpdateReview,
		Args:         []any{r},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	var at int
	if err == nil {
		err = h.Get(ctx, &at)
	}
	var nf *serviceerror.NotFound
	var app *temporal.ApplicationError
	switch {
	case err == nil:
		return at, nil
	case errors.As(err, &nf):
		return 0, fmt.Errorf("%w (session %s)", ErrNoWorkflow, sessionID)
	case errors.As(err, &app) && app.Type() == ErrTypeNotWaiting:
		return 0, fmt.Errorf("%w: %s", ErrNotWaiting, app.Message())
	case errors.As(err, &app):
		return 0, errors.New(app.Message())
	}
	return 0, fmt.Errorf("durable: cannot answer the review of session %s: %w", sessionID, err)
}

// Cancel asks the session's workflow to stop; a running step is cancelled
// (a bash command's process group is killed), and the workflow ends with
// agent.RunCancelled.
func Cancel(ctx context.Context, c client.Client, sessionID string) error {
	err := c.CancelWorkflow(ctx, WorkflowID(sessionID), "")
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return fmt.Errorf("%w (session %s)", ErrNoWorkflow, sessionID)
	}
	return err
}

// Running reports whether the session has a workflow in progress.
func Running(ctx context.Context, c client.Client, sessionID string) (bool, error) {
	d, err := c.DescribeWorkflow(ctx, WorkflowID(sessionID), "")
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return d.Status == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, nil
}

// Query returns the workflow's status with its events from index from on.
func Query(ctx context.Context, c client.Client, sessionID string, from int) (Status, error) {
	return queryRun(ctx, c, sessionID, "", from)
}

// queryRun queries one run of the session's workflow ("" the latest).
func queryRun(ctx context.Context, c client.Client, sessionID, runID string, from int) (Status, error) {
	v, err := c.QueryWorkflow(ctx, WorkflowID(sessionID), runID, QueryStatus, from)
	if err != nil {
		return Status{}, err
	}
	var st Status
	err = v.Get(&st)
	return st, err
}

// queryOpen queries the latest run of the session's workflow while it is
// open; open is false, with no status, once it has closed (the server
// answers that itself, without replaying the closed run on a worker).
func queryOpen(ctx context.Context, c client.Client, sessionID string, from int) (st Status, open bool, err error) {
	resp, err := c.QueryWorkflowWithOptions(ctx, &client.QueryWorkflowWithOptionsRequest{
		WorkflowID: WorkflowID(sessionID), QueryType: QueryStatus, Args: []any{from},
		QueryRejectCondition: enumspb.QUERY_REJECT_CONDITION_NOT_OPEN,
	})
	if err != nil {
		return Status{}, false, err
	}
	if resp.QueryRejected != nil {
		return Status{}, false, nil
	}
	err = resp.QueryResult.Get(&st)
	return st, err == nil, err
}

// catchUp plays the events of run runID (and of the runs it continued)
// from f.next up to index to.
func (f *Follower) catchUp(ctx context.Context, sessionID, runID string, to int, emit func([]Envelope)) error {
	for f.next < to {
		st, err := queryRun(ctx, f.c, sessionID, runID, f.next)
		if err != nil {
			return err
		}
		if f.next < st.Base {
			if st.PrevRun == "" {
				f.next = st.Base // nothing older to read
				continue
			}
			if err := f.catchUp(ctx, sessionID, st.PrevRun, st.Base, emit); err != nil {
				return err
			}
			f.next = max(f.next, st.Base) // never loop on a gap
			continue
		}
		if len(st.Events) == 0 {
			return nil
		}
		emit(st.Events)
		f.next = st.Next
	}
	return nil
}

// askPoll is how often a follower polls while a permission question waits.
const askPoll = time.Second

// Follower plays a workflow's events as they are recorded.
type Follower struct {
	c    client.Client
	poll time.Duration
	next int
	// waitAfter: a wait for review counts only once events past this
	// index exist (the wait seen right after a review was sent is the one
	// that review answers).
	waitAfter int
}

// FollowOption configures a Follower.
type FollowOption func(*Follower)

// WithPoll sets how often the workflow is asked for new events (default
// 300ms).
func WithPoll(d time.Duration) FollowOption { return func(f *Follower) { f.poll = d } }

// AnsweredAt tells the follower that a review was answered when the
// workflow had recorded n events (what Answer returns): a wait for review
// counts only once events past n exist.
func AnsweredAt(n int) FollowOption { return func(f *Follower) { f.waitAfter = n } }

// FromEvent starts at event index n (events before it are not played).
func FromEvent(n int) FollowOption { return func(f *Follower) { f.next = n } }

// NewFollower returns a follower reading through c.
func NewFollower(c client.Client, opts ...FollowOption) *Follower {
	f := &Follower{c: c, poll: 300 * time.Millisecond, waitAfter: -1}
	for _, o := range opts {
		o(f)
	}
	return f
}

// Answered tells the follower that a review was just sent: the workflow's
// wait for it is not reported again, only a later one.
func (f *Follower) Answered() { f.waitAfter = f.next }

// Next is the index of the first event not played yet.
func (f *Follower) Next() int { return f.next }

// Follow calls play for each new event of the session's workflow until it
// ends, or, with untilWaiting, until it waits for a review. It returns the
// last status seen (Finished and Result set when it ended). A query that
// fails (no worker is up at the moment) is retried until ctx ends.
func (f *Follower) Follow(ctx context.Context, sessionID string, untilWaiting bool, play func(agent.Event)) (Status, error) {
	emit := func(evs []Envelope) {
		for _, env := range evs {
			if ev, err := env.Decode(); err == nil {
				play(ev)
			} else {
				play(agent.Error{Message: err.Error()})
			}
		}
	}
	for {
		poll := f.poll
		// One request a poll: the query itself says when the workflow
		// is no longer open (a describe before each query doubled the
		// server's work for every session followed).
		st, open, qerr := queryOpen(ctx, f.c, sessionID, f.next)
		var nf *serviceerror.NotFound
		if qerr == nil && !open || errors.As(qerr, &nf) {
			var res Result
			if err := f.c.GetWorkflow(ctx, WorkflowID(sessionID), "").Get(ctx, &res); err != nil {
				return Status{}, fmt.Errorf("durable: the workflow of session %s ended without a result: %w", sessionID, err)
			}
			// Further behind than the result reaches: the closed
			// workflow answers queries (replayed on a worker).
			if err := f.catchUp(ctx, sessionID, "", res.From, emit); err != nil {
				return Status{}, fmt.Errorf("durable: cannot read the events of session %s's workflow: %w", sessionID, err)
			}
			if end := res.From + len(res.Events); f.next < end {
				emit(res.Events[f.next-res.From:])
				f.next = end
			}
			return Status{Finished: true, Result: res.Status, Next: f.next}, nil
		}
		if qerr == nil {
			if f.next < st.Base {
				// The run continued as new since the last poll: read
				// the rest of the runs before it first.
				if qerr = f.catchUp(ctx, sessionID, st.PrevRun, st.Base, emit); qerr == nil {
					st, qerr = Query(ctx, f.c, sessionID, f.next)
				}
			}
			if qerr == nil {
				emit(st.Events)
				f.next = st.Next
				if untilWaiting && st.Waiting && st.Next > f.waitAfter {
					return st, nil
				}
				if len(st.Asks) > 0 {
					// A question may wait for hours: ask the workers
					// less often meanwhile.
					poll = max(poll, askPoll)
				}
			}
		}
		select {
		case <-ctx.Done():
			return Status{}, ctx.Err()
		case <-time.After(poll):
		}
	}
}

// ErrAnswered is matched (errors.Is) when AnswerPermission finds its
// question answered already (by another reviewer, or by the ask timeout).
var ErrAnswered = errors.New("the permission question was answered already")

// ErrNoQuestion is matched (errors.Is) when AnswerPermission names a
// question the workflow does not wait on.
var ErrNoQuestion = errors.New("no such permission question waits")

// AnswerPermission answers the permission question the session's workflow
// waits on, exactly once: of concurrent answers the workflow takes the
// first and refuses the rest (ErrAnswered). A worker must be up to decide:
// without one it waits until ctx ends.
func AnswerPermission(ctx context.Context, c client.Client, sessionID string, a PermissionAnswer) error {
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID:   WorkflowID(sessionID),
		UpdateName:   UpdatePermission,
		Args:         []any{a},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err == nil {
		err = h.Get(ctx, nil)
	}
	var nf *serviceerror.NotFound
	var app *temporal.ApplicationError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &nf):
		return fmt.Errorf("%w (session %s)", ErrNoWorkflow, sessionID)
	case errors.As(err, &app) && app.Type() == ErrTypeAnswered:
		return fmt.Errorf("%w: %s", ErrAnswered, app.Message())
	case errors.As(err, &app) && app.Type() == ErrTypeNoQuestion:
		return fmt.Errorf("%w: %s", ErrNoQuestion, app.Message())
	case errors.As(err, &app):
		return errors.New(app.Message())
	}
	return fmt.Errorf("durable: cannot answer the permission question of session %s: %w", sessionID, err)
}

// Questions returns the permission questions the session's workflow waits
// on (a worker must be up to answer the query).
func Questions(ctx context.Context, c client.Client, sessionID string) ([]Question, error) {
	st, err := Query(ctx, c, sessionID, math.MaxInt32)
	if err != nil {
		return nil, err
	}
	return st.Asks, nil
}
