package service

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"path/filepath"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/session"
)

// Runner creates and resumes the sessions the server drives. The local
// implementation (NewEngineRunner) runs an agent.Engine in this process;
// another implementation may run the same engine elsewhere (a durable
// workflow) as long as it speaks in agent events.
type Runner interface {
	// Create starts a new session in workdir (already checked against the
	// allowed roots) in mode, titled after title.
	Create(ctx context.Context, workdir string, mode planning.Mode, title string) (Session, error)
	// Open resumes a stored session. While the Session is open, this
	// process is its one writer (it holds the session's lock).
	Open(ctx context.Context, id string) (Session, error)
}

// Session is one open session the server drives. One run (Run, Review's
// start, Continue) goes at a time; the server sees to that.
type Session interface {
	ID() string
	Workdir() string
	// Run sends prompt to the model in mode.
	Run(ctx context.Context, mode planning.Mode, prompt string) iter.Seq[agent.Event]
	// Review carries out a review choice about the plan awaiting
	// approval; a nil start means the choice took effect at once.
	Review(choice planning.ReviewChoice, feedback string) (start func(context.Context) iter.Seq[agent.Event], err error)
	// Continue resumes the execution of an approved plan that stalled or
	// was interrupted.
	Continue(ctx context.Context) iter.Seq[agent.Event]
	// Snapshot is the session's planning state now.
	Snapshot() Snapshot
	// Close gives the session up (releases its lock); its state is saved.
	Close() error
}

// Detached is implemented by a Runner whose sessions run outside this
// process (a durable workflow carried out by workers). Opening such a
// session takes no lock and runs nothing here, so the server opens one
// just to watch it: an event stream or a cancel request attaches to work
// the workers are doing, even when this process did not start it.
type Detached interface {
	Detached() bool
}

// Remote is implemented by a Session whose work goes on outside this
// process.
type Remote interface {
	// Attach returns the events of work in progress elsewhere (an
	// execution the workers carry on after this server restarted), or
	// nil when none is in progress.
	Attach(ctx context.Context) func(context.Context) iter.Seq[agent.Event]
	// Cancel stops the work in progress, wherever it runs; the events of
	// a run that follows it end with done cancelled.
	Cancel(ctx context.Context) error
}

// Asker is implemented by a Session whose permission asks wait outside
// this process (a durable workflow's questions): they are listed and
// answered where they wait, so an ask outlives this process, and whichever
// process (or the CLI) answers it, it is answered once. Such a session's
// event stream carries its asks (*agent.ApprovalRequest, whose Respond
// does nothing) and an AskAnswered when one is settled.
type Asker interface {
	// Asks lists the asks waiting for an answer.
	Asks(ctx context.Context) ([]*agent.ApprovalRequest, error)
	// Answer answers ask with allow, always or deny (reason goes to the
	// model with a denial). It fails with ErrAskAnswered when the ask was
	// answered already and ErrNoAsk when none such waits.
	Answer(ctx context.Context, ask, answer, reason string) error
}

// Errors of Asker.Answer.
var (
	ErrAskAnswered = errors.New("the permission ask was answered already")
	ErrNoAsk       = errors.New("no such permission ask waits")
)

// AskAnswered is the event of an Asker's session whose ask was settled,
// here or elsewhere (another serve process, `harness9 sessions answer`, or
// nobody within the ask timeout: Unanswered); serve sends it as
// permission_answered.
type AskAnswered struct {
	ID, Answer string
	Unanswered bool
}

// Type implements agent.Event.
func (AskAnswered) Type() string { return "permission_answered" }

// Snapshot is what a page or a client needs to draw a session.
type Snapshot struct {
	Mode   planning.Mode
	Status planning.Status
	Plan   *planning.Plan
	Todos  []planning.TodoItem
	// Next is what a resumed session should do: wait for a prompt, review
	// the plan, or continue executing it.
	Next planning.Step
}

// EngineFactory builds an engine for a session of workdir: a new one when
// sessionID is "", else one resuming sessionID. The engine must hold the
// session's lock (agent.WithSessionClaim) from then on; closing the
// returned io.Closer releases it and whatever else the engine holds.
type EngineFactory func(ctx context.Context, workdir, sessionID string) (*agent.Engine, io.Closer, error)

// NewEngineRunner is the local Runner: sessions run in this process's
// agent.Engine, built by factory, their metadata read from store.
func NewEngineRunner(store session.Store, factory EngineFactory) Runner {
	return &engineRunner{store: store, factory: factory}
}

type engineRunner struct {
	store   session.Store
	factory EngineFactory
}

func (r *engineRunner) Create(ctx context.Context, workdir string, mode planning.Mode, title string) (Session, error) {
	eng, closer, err := r.factory(ctx, workdir, "")
	if err != nil {
		return nil, err
	}
	// The roots were checked for workdir: an engine set up elsewhere
	// would run outside them.
	if got, err := filepath.EvalSymlinks(eng.Workdir()); err != nil || got != workdir {
		_ = closer.Close()
		return nil, fmt.Errorf("the engine was built for %s, not for the requested workdir %s", eng.Workdir(), workdir)
	}
	eng.SetMode(mode)
	if _, err := eng.StartSession(ctx, title); err != nil {
		_ = closer.Close()
		return nil, err
	}
	return &engineSession{eng: eng, closer: closer}, nil
}

func (r *engineRunner) Open(ctx context.Context, id string) (Session, error) {
	s, err := r.store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	eng, closer, err := r.factory(ctx, s.Workdir, s.ID)
	if err != nil {
		return nil, err
	}
	return &engineSession{eng: eng, closer: closer}, nil
}

// engineSession adapts an agent.Engine to Session.
type engineSession struct {
	eng    *agent.Engine
	closer io.Closer
}

func (s *engineSession) ID() string      { return s.eng.SessionID() }
func (s *engineSession) Workdir() string { return s.eng.Workdir() }

func (s *engineSession) Run(ctx context.Context, mode planning.Mode, prompt string) iter.Seq[agent.Event] {
	s.eng.SetMode(mode)
	return s.eng.Run(ctx, prompt)
}

func (s *engineSession) Review(choice planning.ReviewChoice, feedback string) (func(context.Context) iter.Seq[agent.Event], error) {
	return s.eng.Review(choice, feedback)
}

func (s *engineSession) Continue(ctx context.Context) iter.Seq[agent.Event] {
	return s.eng.Continue(ctx)
}

func (s *engineSession) Snapshot() Snapshot {
	return Snapshot{Mode: s.eng.Mode(), Status: s.eng.Status(), Plan: s.eng.Plan(), Todos: s.eng.Todos(), Next: s.eng.NextStep()}
}

func (s *engineSession) Close() error {
	if s.closer == nil {
		return nil
	}
	if err := s.closer.Close(); err != nil {
		return fmt.Errorf("close session %s: %w", s.ID(), err)
	}
	return nil
}
