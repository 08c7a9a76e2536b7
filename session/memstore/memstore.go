// Package memstore is a session.Store that keeps everything in memory: the
// store of an engine that was given none, and of tests. It passes
// session/storetest like the SQLite store; nothing outlives the process.
package memstore

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning/plan"
	"github.com/harness9/harness9/session"
)

// Store is an in-memory session.Store, safe for concurrent use. Everything
// handed in or out is copied, so callers never share its slices.
type Store struct {
	mu       sync.Mutex
	now      func() time.Time
	sessions map[string]*entry
}

type entry struct {
	sess  session.Session
	msgs  []llm.Message
	state *session.State // nil until saved
	cps   []session.Checkpoint
	usage map[usageKey]session.Usage
}

// Option configures New.
type Option func(*Store)

// WithClock sets the clock for Created and Updated times (tests).
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// New returns an empty store.
func New(opts ...Option) *Store {
	s := &Store{now: time.Now, sessions: map[string]*entry{}}
	for _, o := range opts {
		o(s)
	}
	return s
}

func notFound(id string) error { return fmt.Errorf("%w: %q", session.ErrNotFound, id) }

// Create implements session.Store.
func (s *Store) Create(_ context.Context, sess *session.Session) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sess.ID == "" {
		sess.ID = session.NewID()
	}
	if _, ok := s.sessions[sess.ID]; ok {
		return fmt.Errorf("create session: id %q is already in use", sess.ID)
	}
	if sess.Created.IsZero() {
		sess.Created = s.now()
	}
	if sess.Updated.IsZero() {
		sess.Updated = sess.Created
	}
	e := &entry{sess: *sess}
	e.sess.MessageCount = 0
	s.sessions[sess.ID] = e
	return nil
}

// Get implements session.Store: an exact id, else a unique prefix of at
// least session.MinPrefixLen characters (case-insensitively for the hex
// ids NewID makes).
func (s *Store) Get(_ context.Context, id string) (session.Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.lookup(id)
	if err != nil {
		return session.Session{}, err
	}
	return e.session(), nil
}

func (s *Store) lookup(id string) (*entry, error) {
	if e, ok := s.sessions[id]; ok {
		return e, nil
	}
	if len(id) < session.MinPrefixLen {
		return nil, fmt.Errorf("%w: %q (an id prefix needs at least %d characters)", session.ErrNotFound, id, session.MinPrefixLen)
	}
	var matches []string
	for cand := range s.sessions {
		if strings.HasPrefix(cand, id) {
			matches = append(matches, cand)
		}
	}
	slices.Sort(matches)
	switch len(matches) {
	case 0:
		if lower := strings.ToLower(id); lower != id {
			return s.lookup(lower)
		}
		return nil, notFound(id)
	case 1:
		return s.sessions[matches[0]], nil
	}
	list := strings.Join(matches[:min(len(matches), 3)], ", ")
	if len(matches) > 3 {
		list += ", ..."
	}
	return nil, fmt.Errorf("%w: %q matches %s; give more characters", session.ErrAmbiguous, id, list)
}

func (e *entry) session() session.Session {
	out := e.sess
	out.MessageCount = len(e.msgs)
	return out
}

// List implements session.Store.
func (s *Store) List(_ context.Context, opts session.ListOptions) ([]session.Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.listLocked(opts), nil
}

// ListSummaries implements session.Store.
func (s *Store) ListSummaries(_ context.Context, opts session.ListOptions) ([]session.Summary, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	listed := s.listLocked(opts)
	out := make([]session.Summary, len(listed))
	for i, sess := range listed {
		var st session.State // read in place: Summarize keeps nothing of it
		if saved := s.sessions[sess.ID].state; saved != nil {
			st = *saved
		}
		out[i] = session.Summarize(sess, st)
	}
	return out, nil
}

// listLocked lists the sessions opts selects, most recently updated
// first. s.mu is held.
func (s *Store) listLocked(opts session.ListOptions) []session.Session {
	out := []session.Session{}
	for _, e := range s.sessions {
		if opts.Matches(e.sess) {
			out = append(out, e.session())
		}
	}
	slices.SortFunc(out, func(a, b session.Session) int {
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
	if opts.Limit > 0 && len(out) > opts.Limit {
		out = out[:opts.Limit]
	}
	return out
}

// bump moves Updated forward, never backward, so a session just written is
// the most recent even on a clock with coarse ticks.
func (s *Store) bump(e *entry) {
	now := s.now()
	if !now.After(e.sess.Updated) {
		now = e.sess.Updated.Add(time.Nanosecond)
	}
	e.sess.Updated = now
}

// Update implements session.Store: Title, Model and Mode are saved.
func (s *Store) Update(_ context.Context, sess session.Session) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.sessions[sess.ID]
	if !ok {
		return notFound(sess.ID)
	}
	e.sess.Title, e.sess.Model, e.sess.Mode = sess.Title, sess.Model, sess.Mode
	s.bump(e)
	return nil
}

// Delete implements session.Store.
func (s *Store) Delete(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.sessions[id]; !ok {
		return notFound(id)
	}
	delete(s.sessions, id)
	return nil
}

// AppendMessage implements session.Store.
func (s *Store) AppendMessage(_ context.Context, sessionID string, m llm.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.sessions[sessionID]
	if !ok {
		return notFound(sessionID)
	}
	e.msgs = append(e.msgs, cloneMessage(m))
	s.bump(e)
	return nil
}

// Messages implements session.Store.
func (s *Store) Messages(ctx context.Context, sessionID string) ([]llm.Message, error) {
	return s.MessagesFrom(ctx, sessionID, 0)
}

// MessagesFrom implements session.Store.
func (s *Store) MessagesFrom(_ context.Context, sessionID string, from int) ([]llm.Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.sessions[sessionID]
	if !ok {
		return nil, notFound(sessionID)
	}
	rest := e.msgs[min(max(from, 0), len(e.msgs)):]
	out := make([]llm.Message, len(rest))
	for i, m := range rest {
		out[i] = cloneMessage(m)
	}
	return out, nil
}

// LoadState implements session.Store.
func (s *Store) LoadState(_ context.Context, sessionID string) (session.State, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.sessions[sessionID]
	if !ok {
		return session.State{}, notFound(sessionID)
	}
	return e.loadState(), nil
}

func (e *entry) loadState() session.State {
	if e.state == nil {
		return session.State{Todos: []plan.TodoItem{}}
	}
	return cloneState(*e.state)
}

// SaveState implements session.Store; like a message, it makes the
// session the most recently updated.
func (s *Store) SaveState(_ context.Context, sessionID string, st session.State) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.sessions[sessionID]
	if !ok {
		return notFound(sessionID)
	}
	c := cloneState(st)
	e.state = &c
	s.bump(e)
	return nil
}

// Close implements session.Store; the store stays usable.
func (s *Store) Close() error { return nil }

func cloneMessage(m llm.Message) llm.Message {
	m.ToolCalls = slices.Clone(m.ToolCalls)
	for i := range m.ToolCalls {
		m.ToolCalls[i].Input = bytes.Clone(m.ToolCalls[i].Input)
	}
	return m
}

func cloneState(st session.State) session.State {
	st.Todos = slices.Clone(st.Todos)
	if st.Todos == nil {
		st.Todos = []plan.TodoItem{}
	}
	if st.Plan != nil {
		p := *st.Plan
		p.Steps = slices.Clone(p.Steps)
		st.Plan = &p
	}
	if st.Compaction != nil {
		c := *st.Compaction
		st.Compaction = &c
	}
	return st
}
