// Package durablerunner is the service.Runner of `harness9 serve --engine
// temporal`: a session's plan → approve → execute runs as a durable
// Temporal workflow (package durable) on the workers of a task queue, and
// the server only starts it, answers its reviews, follows its events and
// cancels it. The server process runs no model call and no tool; the
// session's state lives in the store the workers write.
//
// A permission ask (AutoEdit's "approve and confirm each edit", an ask
// rule) waits in the workflow: the session is a service.Asker, its asks are
// the workflow's questions and an answer is an update the workflow takes
// once. Answering a review or an ask needs a worker to be up, because the
// workflow decides which of concurrent answers takes effect.
package durablerunner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"sync"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/durable"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/service"
	"github.com/harness9/harness9/session"
)

// DefaultAnswerTimeout bounds how long answering a review waits for a
// worker to take it.
const DefaultAnswerTimeout = 30 * time.Second

// Limits are a workflow's limits (durable.Input's).
type Limits struct {
	MaxTurns, StallThreshold, MaxRounds int
	HeartbeatTimeout                    time.Duration
	// ContinueAfter is the steps a workflow run takes before a long
	// execution continues as new (0: durable.DefaultContinueAfter).
	ContinueAfter int
	// ContextWindow is the window the workers' engines use (0: their own
	// setting).
	ContextWindow int
	// AskTimeout is how long a permission question waits for its answer
	// (0: durable.DefaultAskTimeout).
	AskTimeout time.Duration
}

// Runner starts and follows sessions' workflows.
type Runner struct {
	c             client.Client
	store         session.Store
	queue         string
	model         string
	limits        Limits
	poll          time.Duration
	answerTimeout time.Duration
}

// Option configures a Runner.
type Option func(*Runner)

// WithModel sets the model ("provider/name") new sessions are stored with;
// the workers run them with it.
func WithModel(m string) Option { return func(r *Runner) { r.model = m } }

// WithLimits sets the workflows' limits (zero values: durable's defaults).
func WithLimits(l Limits) Option { return func(r *Runner) { r.limits = l } }

// WithPoll sets how often a followed workflow is asked for new events
// (default durable's).
func WithPoll(d time.Duration) Option { return func(r *Runner) { r.poll = d } }

// WithAnswerTimeout bounds how long answering a review waits for a worker
// (default DefaultAnswerTimeout).
func WithAnswerTimeout(d time.Duration) Option {
	return func(r *Runner) {
		if d > 0 {
			r.answerTimeout = d
		}
	}
}

// New returns a Runner whose workflows run on queue — the task queue of the
// worker host that holds the sessions' workspaces — through c, with the
// sessions kept in store (the workers' store too).
func New(c client.Client, store session.Store, queue string, opts ...Option) *Runner {
	r := &Runner{c: c, store: store, queue: queue, answerTimeout: DefaultAnswerTimeout}
	for _, o := range opts {
		o(r)
	}
	return r
}

// Detached implements service.Detached: sessions run on the workers.
func (r *Runner) Detached() bool { return true }

// Create stores a new session; its workflow starts with the first prompt.
func (r *Runner) Create(ctx context.Context, workdir string, mode planning.Mode, title string) (service.Session, error) {
	s := &session.Session{Workdir: workdir, Model: r.model, Title: agent.SessionTitle(title), Mode: mode}
	if err := r.store.Create(ctx, s); err != nil {
		return nil, fmt.Errorf("cannot create the session: %w", err)
	}
	return &Session{r: r, id: s.ID, workdir: s.Workdir}, nil
}

// Open returns a stored session. It takes no lock: the session's workflow
// is its one writer, and the workflow id admits one workflow at a time.
func (r *Runner) Open(ctx context.Context, id string) (service.Session, error) {
	s, err := r.store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	return &Session{r: r, id: s.ID, workdir: s.Workdir}, nil
}

var _ service.Asker = (*Session)(nil)

// Session is one session whose workflow the server drives.
type Session struct {
	r       *Runner
	id      string
	workdir string

	mu sync.Mutex
	// next is the index of the first event of the current workflow run
	// not yet played here; known says next belongs to that run (false: a
	// follow starts at 0 and replays the run's events into the server's
	// ring, as a fresh process has none of them).
	next  int
	known bool
}

// ID implements service.Session.
func (s *Session) ID() string { return s.id }

// Workdir implements service.Session.
func (s *Session) Workdir() string { return s.workdir }

// Close implements service.Session; nothing is held.
func (s *Session) Close() error { return nil }

// input is a workflow input for this session with the runner's settings.
func (s *Session) input(ctx context.Context) (durable.Input, error) {
	stored, err := s.r.store.Get(ctx, s.id)
	if err != nil {
		return durable.Input{}, err
	}
	l := s.r.limits
	return durable.Input{SessionID: s.id, TaskQueue: s.r.queue, HistoryLen: stored.MessageCount, Mode: stored.Mode,
		MaxTurns: l.MaxTurns, StallThreshold: l.StallThreshold, MaxRounds: l.MaxRounds, HeartbeatTimeout: l.HeartbeatTimeout,
		ContinueAfter: l.ContinueAfter, AskTimeout: l.AskTimeout, Settings: durable.Settings{ContextWindow: l.ContextWindow}}, nil
}

// start starts a workflow run; its events are played from 0.
func (s *Session) start(ctx context.Context, in durable.Input) error {
	if err := durable.Start(ctx, s.r.c, in); err != nil {
		return err
	}
	s.mu.Lock()
	s.next, s.known = 0, true
	s.mu.Unlock()
	return nil
}

// Run sends prompt in mode: it starts the session's workflow, or, while the
// workflow waits for a review, refines the plan with it (a prompt to a
// session whose plan awaits approval revises the plan, as locally).
func (s *Session) Run(ctx context.Context, mode planning.Mode, prompt string) iter.Seq[agent.Event] {
	return func(yield func(agent.Event) bool) {
		running, err := durable.Running(ctx, s.r.c, s.id)
		if err != nil {
			fail(yield, fmt.Errorf("cannot ask Temporal about session %s: %w", s.id, err))
			return
		}
		if running {
			at, err := s.answer(ctx, durable.Review{Choice: planning.ReviewRefine, Feedback: prompt})
			if err != nil {
				fail(yield, fmt.Errorf("session %s is busy: its workflow is running and no plan of it awaits a review (%w); "+
					"wait for its done event or cancel it", s.id, err))
				return
			}
			s.follow(ctx, at, yield)
			return
		}
		in, err := s.input(ctx)
		if err != nil {
			fail(yield, err)
			return
		}
		in.Prompt, in.Mode = prompt, mode
		if err := s.start(ctx, in); err != nil {
			fail(yield, err)
			return
		}
		s.follow(ctx, 0, yield)
	}
}

// Review implements service.Session: the choice goes to the workflow waiting
// for it, which takes exactly one of concurrent answers; a plan stored
// awaiting approval with no workflow waiting gets a workflow that starts
// with the answer.
func (s *Session) Review(choice planning.ReviewChoice, feedback string) (func(context.Context) iter.Seq[agent.Event], error) {
	if choice == planning.ReviewRefine && feedback == "" {
		return nil, nil // as locally: the next prompt revises the plan
	}
	r := durable.Review{Choice: choice, Feedback: feedback}
	ctx, cancel := context.WithTimeout(context.Background(), s.r.answerTimeout)
	defer cancel()
	running, err := durable.Running(ctx, s.r.c, s.id)
	if err != nil {
		return nil, fmt.Errorf("cannot ask Temporal about session %s: %w", s.id, err)
	}
	if !running {
		in, err := s.input(ctx)
		if err != nil {
			return nil, err
		}
		in.Review, in.Answer = true, &r
		if err := s.start(ctx, in); err != nil {
			return nil, err // another reviewer's workflow started first: durable.ErrRunning
		}
		return func(ctx context.Context) iter.Seq[agent.Event] {
			return func(yield func(agent.Event) bool) { s.follow(ctx, 0, yield) }
		}, nil
	}
	at, err := s.answer(ctx, r)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) iter.Seq[agent.Event] {
		return func(yield func(agent.Event) bool) { s.follow(ctx, at, yield) }
	}, nil
}

// answer sends r to the waiting workflow and returns the index its events
// start at.
//
// The store says a plan awaits approval as soon as the step that made it is
// stored, a moment before the workflow itself learns it and starts waiting.
// A review sent in that moment (a client that saw awaiting_approval in the
// API) is tried again until the workflow waits; one sent after another
// reviewer's answer keeps being refused, and gets the refusal once the
// approval is stored, so exactly one answer still wins.
func (s *Session) answer(ctx context.Context, r durable.Review) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, s.r.answerTimeout)
	defer cancel()
	at, err := durable.Answer(ctx, s.r.c, s.id, r)
	first, _ := s.awaitingPlan(ctx)
	for errors.Is(err, durable.ErrNotWaiting) && first != "" {
		// Only the plan the refused answer was meant for: a refinement by
		// another reviewer makes a new plan, which this answer must not reach.
		if now, _ := s.awaitingPlan(ctx); now != first {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
			at, err = durable.Answer(ctx, s.r.c, s.id, r)
			continue
		}
		break
	}
	if ctx.Err() != nil {
		return 0, fmt.Errorf("no worker took the review of session %s within %s; start `harness9 worker` for task queue %s and retry",
			s.id, s.r.answerTimeout, s.r.queue)
	}
	return at, err
}

// awaitingPlan returns the stored plan, encoded, when the store says it
// awaits approval, else "".
func (s *Session) awaitingPlan(ctx context.Context) (string, error) {
	st, err := s.r.store.LoadState(ctx, s.id)
	if err != nil || st.Status != planning.StatusAwaitingApproval || st.Plan == nil {
		return "", err
	}
	b, err := json.Marshal(st.Plan)
	return string(b), err
}

// Asks implements service.Asker: the questions the workflow waits on.
func (s *Session) Asks(ctx context.Context) ([]*agent.ApprovalRequest, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	qs, err := durable.Questions(ctx, s.r.c, s.id)
	if err != nil {
		return nil, err
	}
	out := make([]*agent.ApprovalRequest, 0, len(qs))
	for _, q := range qs {
		out = append(out, q.Request())
	}
	return out, nil
}

// Answer implements service.Asker: the answer is an update the workflow
// takes once; its event stream then reports it.
func (s *Session) Answer(ctx context.Context, ask, answer, reason string) error {
	ctx, cancel := context.WithTimeout(ctx, s.r.answerTimeout)
	defer cancel()
	err := durable.AnswerPermission(ctx, s.r.c, s.id, durable.PermissionAnswer{Ask: ask, Answer: answer, Reason: reason})
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("no worker took the answer to %s of session %s within %s; start `harness9 worker` for task queue %s and retry",
			ask, s.id, s.r.answerTimeout, s.r.queue)
	case errors.Is(err, durable.ErrAnswered):
		return fmt.Errorf("%w: %v", service.ErrAskAnswered, err)
	case errors.Is(err, durable.ErrNoQuestion), errors.Is(err, durable.ErrNoWorkflow):
		return fmt.Errorf("%w: %v", service.ErrNoAsk, err)
	}
	return err
}

// Continue implements service.Session: a workflow resumes the execution of
// the approved plan.
func (s *Session) Continue(ctx context.Context) iter.Seq[agent.Event] {
	return func(yield func(agent.Event) bool) {
		in, err := s.input(ctx)
		if err != nil {
			fail(yield, err)
			return
		}
		// The workflow's continue step resumes the plan in the mode it was
		// approved for, from the stored todo list.
		in.Continue = true
		if err := s.start(ctx, in); err != nil {
			fail(yield, err)
			return
		}
		s.follow(ctx, 0, yield)
	}
}

// Attach implements service.Remote: a workflow that is carrying out work
// (not waiting for a review) is followed from its first event.
func (s *Session) Attach(ctx context.Context) func(context.Context) iter.Seq[agent.Event] {
	running, err := durable.Running(ctx, s.r.c, s.id)
	if err != nil || !running {
		return nil
	}
	qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if st, err := durable.Query(qctx, s.r.c, s.id, 0); err == nil && st.Waiting {
		return nil // the plan awaits a review: nothing to follow until one comes
	} else if err != nil {
		// No worker answers: the store says whether a plan waits.
		if snap := s.Snapshot(); snap.Status == planning.StatusAwaitingApproval {
			return nil
		}
	}
	s.mu.Lock()
	s.known = false
	s.mu.Unlock()
	return func(ctx context.Context) iter.Seq[agent.Event] {
		return func(yield func(agent.Event) bool) { s.follow(ctx, -1, yield) }
	}
}

// Cancel implements service.Remote: the workflow is cancelled (a running
// step's commands are killed on the worker).
func (s *Session) Cancel(ctx context.Context) error {
	return durable.Cancel(ctx, s.r.c, s.id)
}

// Snapshot implements service.Session from the store, which the workers'
// steps keep current; it needs no worker to answer.
func (s *Session) Snapshot() service.Snapshot {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var snap service.Snapshot
	if stored, err := s.r.store.Get(ctx, s.id); err == nil {
		snap.Mode = stored.Mode
	}
	st, err := s.r.store.LoadState(ctx, s.id)
	if err != nil {
		return snap
	}
	flow := planning.RestoreWorkflow(planning.WorkflowState{Status: st.Status, Plan: st.Plan, TaskDir: st.TaskDir})
	snap.Status, snap.Plan, snap.Todos, snap.Next = flow.Status(), flow.Plan(), st.Todos, flow.Resume()
	return snap
}

// follow plays the workflow's events until it ends or waits for a review,
// then reports done. answeredAt is the index a review was answered at (-1:
// none). The server's shutdown ends ctx: the workflow goes on without it.
func (s *Session) follow(ctx context.Context, answeredAt int, yield func(agent.Event) bool) {
	s.mu.Lock()
	from := 0
	if s.known {
		from = s.next
	}
	s.mu.Unlock()
	opts := []durable.FollowOption{durable.FromEvent(from), durable.AnsweredAt(answeredAt)}
	if s.r.poll > 0 {
		opts = append(opts, durable.WithPoll(s.r.poll))
	}
	fol := durable.NewFollower(s.r.c, opts...)
	stopped := false
	st, err := fol.Follow(ctx, s.id, true, func(ev agent.Event) {
		if a, ok := ev.(durable.PermissionAnswered); ok {
			ev = service.AskAnswered{ID: a.ID, Answer: a.Answer, Unanswered: a.Unanswered}
		}
		if !stopped {
			stopped = !yield(ev)
		}
	})
	s.mu.Lock()
	s.next, s.known = fol.Next(), !st.Finished
	s.mu.Unlock()
	switch {
	case stopped, ctx.Err() != nil:
	case err != nil:
		fail(yield, err)
	case st.Finished:
		yield(agent.Done{Status: st.Result})
	default:
		yield(agent.Done{Status: agent.RunAwaitingApproval})
	}
}

// fail reports err as a run that ended in error.
func fail(yield func(agent.Event) bool, err error) {
	if yield(agent.Error{Message: err.Error()}) {
		yield(agent.Done{Status: agent.RunError, Err: err})
	}
}
