// Package sessionstate holds the state of one agent session — its stored
// row, the conversation, the planning workflow, the todo list and evidence
// counter, the plan file, the compaction summary, the tools the user allowed
// for the session and the last usage figure — behind one mutex, together
// with its persistence in a session.Store.
//
// The engine (package agent) runs the loop and drives this state only
// through the methods below: they are the only way to change it, and each
// method that changes what is stored writes it to the store while holding
// the lock, so a concurrent Reload never sees, or brings back, a state
// between a change and its write.
package sessionstate

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/session"
)

// State is one session's state. Its methods are safe for concurrent use.
type State struct {
	store session.Store
	log   *slog.Logger
	// todos and evidence lock themselves: the planning tools the engine
	// registers (todo_write, submit_plan) write them directly.
	todos    *planning.TodoStore
	evidence *planning.Evidence

	mu         sync.Mutex
	mode       planning.Mode
	modeGiven  bool               // the mode was chosen by the program: Load keeps it
	sess       *session.Session   // nil until Ensure or Load
	history    []llm.Message      // the whole conversation, as stored
	skipped    int                // leading placeholders in history a lean Load did not read (history.go)
	flow       *planning.Workflow // status, plan, task dir: changed only through its transitions
	planFile   string
	compaction *session.Compaction
	allowed    map[string]bool // AutoEdit: tools the user allowed for the session
	granted    []string        // allow rules the user's answers added for the project
	usage      usageMark
	// lastContext is the context size of the last model call, saved with
	// the state (a front end's gauge when the session is opened again).
	lastContext int
	eff         effective // the last effective history of a compacted session
	usageHook   func(ctx context.Context, sessionID, model string, u session.Usage)
	pending     map[usageKey]session.Usage // model calls not written yet (ledger.go)
	now         func() time.Time
}

// Option configures a State.
type Option func(*State)

// WithMode sets the mode the session starts in; a session Load reads keeps
// it instead of the mode stored with the session. Without it the session
// starts in planning.ModeDefault and Load takes the stored mode.
func WithMode(m planning.Mode) Option {
	return func(s *State) { s.mode, s.modeGiven = m, true }
}

// WithLogger receives what the state could not save or load; those
// failures do not change a run's outcome.
func WithLogger(l *slog.Logger) Option { return func(s *State) { s.log = l } }

// New returns the empty state of a session not created yet, persisted in
// store (required).
func New(store session.Store, opts ...Option) *State {
	s := &State{
		store:    store,
		log:      slog.New(slog.DiscardHandler),
		todos:    planning.NewTodoStore(),
		evidence: new(planning.Evidence),
		flow:     planning.NewWorkflow(),
		allowed:  map[string]bool{},
		now:      time.Now,
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

// TodoStore is the session's todo list, for the planning tools that write
// it (todo_write, submit_plan) and the compactor's Active Tasks block.
func (s *State) TodoStore() *planning.TodoStore { return s.todos }

// Evidence is the session's evidence counter, for the planning tools that
// read and reset it (todo_write's evidence gate).
func (s *State) Evidence() *planning.Evidence { return s.evidence }

// RecordEvidence counts one successful tool call as evidence of work.
func (s *State) RecordEvidence() { s.evidence.Record() }

// SessionID returns the session's id, or "" before it is created.
func (s *State) SessionID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sess == nil {
		return ""
	}
	return s.sess.ID
}

// Mode returns the mode the next run starts in.
func (s *State) Mode() planning.Mode {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mode
}

// SetMode changes the mode the next run starts in. The session row follows
// at the next SyncMode (or Ensure, or transition that sets a mode).
func (s *State) SetMode(m planning.Mode) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mode = m
}

// Status returns the planning workflow's status.
func (s *State) Status() planning.Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.flow.Status()
}

// NextStep says what a resumed session should do next.
func (s *State) NextStep() planning.Step {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.flow.Resume()
}

// Todos returns a copy of the todo list.
func (s *State) Todos() []planning.TodoItem { return s.todos.Read() }

// Plan returns a copy of the submitted or approved plan, or nil.
func (s *State) Plan() *planning.Plan {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.flow.Plan()
}

// TaskDir returns the approved plan's task directory, or "".
func (s *State) TaskDir() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.flow.TaskDir()
}

// PlanFile returns the session's plan file, or "" before one is chosen.
func (s *State) PlanFile() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.planFile
}

// Compaction returns a copy of the stored compaction summary, or nil.
func (s *State) Compaction() *session.Compaction {
	s.mu.Lock()
	defer s.mu.Unlock()
	return cloneCompaction(s.compaction)
}

// AllowForSession records the user's "allow for this session" answer for
// the tool name.
func (s *State) AllowForSession(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.allowed[name] = true
}

// AllowedForSession reports whether the user allowed the tool name for the
// session.
func (s *State) AllowedForSession(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.allowed[name]
}

// GrantRules records allow rules the user's "always" answer added for the
// project, so that an engine carrying the session on (a durable step on
// another worker) can add them too.
func (s *State) GrantRules(rules ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range rules {
		if !slices.Contains(s.granted, r) {
			s.granted = append(s.granted, r)
		}
	}
}

// Grants returns the tools the user allowed for the session and the rules
// their answers added, sorted and in the order added.
func (s *State) Grants() (tools, rules []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name := range s.allowed {
		tools = append(tools, name)
	}
	slices.Sort(tools)
	return tools, slices.Clone(s.granted)
}

func cloneCompaction(c *session.Compaction) *session.Compaction {
	if c == nil {
		return nil
	}
	cp := *c
	return &cp
}
