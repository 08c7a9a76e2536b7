package sessionstate

import (
	"context"
	"fmt"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/session"
)

// Store writes use a context detached from the run's cancellation: the
// partial answer and the state of a cancelled run must still be saved.
func detached(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }

// Ensure creates the session from tmpl (in the current mode) unless it
// exists; an existing session's row takes up the current mode, and tmpl's
// title when it has none. claim,
// when not nil, is called with the new session's id before the state
// takes it: an error leaves the state without a session.
func (s *State) Ensure(ctx context.Context, tmpl session.Session, claim func(ctx context.Context, sessionID string) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sess != nil {
		if s.sess.Title == "" && tmpl.Title != "" {
			// Started without a title (StartSession): the first prompt names it.
			s.sess.Title = tmpl.Title
			if err := s.store.Update(detached(ctx), *s.sess); err != nil {
				s.log.Warn("agent: could not save the session's title", "err", err)
			}
		}
		s.syncModeLocked(ctx)
		return nil
	}
	tmpl.Mode = s.mode
	if err := s.store.Create(detached(ctx), &tmpl); err != nil {
		return fmt.Errorf("agent: could not create the session: %w", err)
	}
	if claim != nil {
		if err := claim(ctx, tmpl.ID); err != nil {
			return fmt.Errorf("agent: cannot take the new session %s: %w", tmpl.ID, err)
		}
	}
	s.sess = &tmpl
	return nil
}

// SyncMode records the current mode in the session row, so a resumed
// session starts in the mode it was left in. A failure is logged.
func (s *State) SyncMode(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.syncModeLocked(ctx)
}

func (s *State) syncModeLocked(ctx context.Context) {
	if s.sess == nil || s.sess.Mode == s.mode {
		return
	}
	s.sess.Mode = s.mode
	if err := s.store.Update(detached(ctx), *s.sess); err != nil {
		s.log.Warn("agent: could not save the session's mode", "err", err)
	}
}

// Load reads the stored session id (or unique id prefix): its row, its
// planning state and its history. admit, when not nil, sees the row before
// anything else is read and may refuse the session (another workdir,
// another writer); its error is returned as it is.
func (s *State) Load(ctx context.Context, id string, admit func(ctx context.Context, sess session.Session) error) error {
	row, err := s.store.Get(ctx, id)
	if err != nil {
		return fmt.Errorf("agent: cannot resume session %q: %w", id, err)
	}
	if admit != nil {
		if err := admit(ctx, row); err != nil {
			return err
		}
	}
	st, err := s.store.LoadState(ctx, row.ID)
	if err != nil {
		return fmt.Errorf("agent: cannot load the planning state of session %s: %w", row.ID, err)
	}
	msgs, skipped, err := loadHistory(ctx, s.store, row, st.Compaction)
	if err != nil {
		return fmt.Errorf("agent: cannot load the history of session %s: %w", row.ID, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sess = &row
	s.history, s.skipped = msgs, skipped
	if !s.modeGiven {
		s.mode = row.Mode
	}
	s.applyLocked(st)
	return nil
}

// Reload replaces the planning state with the one the store holds: another
// writer (a resumed process, a tool) may have changed the todos since this
// state last looked. A failure is logged and the state in memory kept.
func (s *State) Reload(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sess == nil {
		return
	}
	st, err := s.store.LoadState(detached(ctx), s.sess.ID)
	if err != nil {
		s.log.Warn("agent: could not load the planning state; using the one in memory", "err", err)
		return
	}
	s.applyLocked(st)
}

func (s *State) applyLocked(st session.State) {
	s.todos.Write(st.Todos)
	s.evidence.Set(st.Evidence)
	s.flow = planning.RestoreWorkflow(planning.WorkflowState{Status: st.Status, Plan: st.Plan, TaskDir: st.TaskDir})
	s.planFile = st.PlanFile
	s.compaction = cloneCompaction(st.Compaction)
	s.lastContext = st.ContextTokens
}

// Save writes the planning state. A failure is logged: a run's outcome
// does not change because its bookkeeping could not be saved.
func (s *State) Save(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.saveLocked(ctx)
}

func (s *State) saveLocked(ctx context.Context) {
	if s.sess == nil {
		return
	}
	flow := s.flow.State()
	st := session.State{
		Todos:         s.todos.Read(),
		Evidence:      s.evidence.Count(),
		Status:        flow.Status,
		Plan:          flow.Plan,
		TaskDir:       flow.TaskDir,
		PlanFile:      s.planFile,
		Compaction:    cloneCompaction(s.compaction),
		ContextTokens: s.lastContext,
	}
	if err := s.store.SaveState(detached(ctx), s.sess.ID, st); err != nil {
		s.log.Error("agent: could not save the planning state", "session", s.sess.ID, "err", err)
	}
}

// Append adds m to the history, storing it first. A store failure is
// returned and m is not added: a run that cannot record what it does
// should stop.
func (s *State) Append(ctx context.Context, m llm.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sess != nil {
		if err := s.store.AppendMessage(detached(ctx), s.sess.ID, m); err != nil {
			return fmt.Errorf("agent: could not save a message to session %s: %w", s.sess.ID, err)
		}
	}
	s.history = append(s.history, m)
	return nil
}
