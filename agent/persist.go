package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/harness9/harness9/compact"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/session"
)

// Store writes use a context detached from the run's cancellation: the
// partial answer and the state of a cancelled run must still be saved.
func detached(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }

// ensureSession creates the session on the first run of a new engine.
func (e *Engine) ensureSession(ctx context.Context, prompt string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.sess != nil {
		e.syncSessionModeLocked(ctx)
		return nil
	}
	t := title(prompt)
	if e.cfg.childTitle != "" {
		t = title(e.cfg.childTitle)
	}
	s := &session.Session{Workdir: e.cfg.workdir, Model: e.cfg.modelLabel, Title: t, Mode: e.mode, ParentID: e.cfg.parentID}
	if err := e.cfg.store.Create(detached(ctx), s); err != nil {
		return fmt.Errorf("agent: could not create the session: %w", err)
	}
	if e.cfg.claim != nil {
		if err := e.cfg.claim(ctx, s.ID); err != nil {
			return fmt.Errorf("agent: cannot take the new session %s: %w", s.ID, err)
		}
	}
	e.sess = s
	return nil
}

// StartSession creates the engine's session now, before its first run,
// titled after title, and returns its id: a front end that lists sessions
// (harness9 serve) can name one before a prompt is sent. An engine that
// already has a session returns its id.
func (e *Engine) StartSession(ctx context.Context, title string) (string, error) {
	if err := e.ensureSession(ctx, title); err != nil {
		return "", err
	}
	return e.SessionID(), nil
}

// syncSessionMode records the current mode in the session row, so a
// resumed session starts in the mode it was left in.
func (e *Engine) syncSessionMode(ctx context.Context) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.syncSessionModeLocked(ctx)
}

func (e *Engine) syncSessionModeLocked(ctx context.Context) {
	if e.sess == nil || e.sess.Mode == e.mode {
		return
	}
	e.sess.Mode = e.mode
	if err := e.cfg.store.Update(detached(ctx), *e.sess); err != nil {
		e.log.Warn("agent: could not save the session's mode", "err", err)
	}
}

// ErrOtherWorkdir is matched (errors.Is) by the *WorkdirError New returns
// when WithSession names a session started in another working directory.
var ErrOtherWorkdir = errors.New("the session belongs to another working directory")

// WorkdirError is why New refused to resume a session: it was started in
// SessionWorkdir, the engine works in Workdir. The session's history, plan
// and task directory speak of the files of its own directory, so running it
// against another tree would mislead the model and the user.
type WorkdirError struct {
	SessionID      string
	SessionWorkdir string
	Workdir        string
}

func (e *WorkdirError) Error() string {
	return fmt.Sprintf("agent: session %s was started in %s, not in %s", e.SessionID, e.SessionWorkdir, e.Workdir)
}

// Is makes errors.Is(err, ErrOtherWorkdir) hold.
func (e *WorkdirError) Is(target error) bool { return target == ErrOtherWorkdir }

// resume loads a stored session: metadata, history and planning state.
func (e *Engine) resume(ctx context.Context, id string) error {
	st := e.cfg.store
	s, err := st.Get(ctx, id)
	if err != nil {
		return fmt.Errorf("agent: cannot resume session %q: %w", id, err)
	}
	if s.Workdir != "" && !sameDir(s.Workdir, e.cfg.workdir) {
		return &WorkdirError{SessionID: s.ID, SessionWorkdir: s.Workdir, Workdir: e.cfg.workdir}
	}
	if e.cfg.claim != nil {
		// Before the history is read: a session another process is
		// writing is neither loaded nor written.
		if err := e.cfg.claim(ctx, s.ID); err != nil {
			return err
		}
	}
	state, err := st.LoadState(ctx, s.ID)
	if err != nil {
		return fmt.Errorf("agent: cannot load the planning state of session %s: %w", s.ID, err)
	}
	msgs, skipped, err := loadHistory(ctx, st, s, state.Compaction)
	if err != nil {
		return fmt.Errorf("agent: cannot load the history of session %s: %w", s.ID, err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.sess = &s
	e.history, e.skipped = msgs, skipped
	if !e.cfg.modeSet {
		e.mode = s.Mode
	}
	e.applyStateLocked(state)
	return nil
}

// sameDir reports whether a and b name the same directory, by path or, for
// two spellings of one directory (a symlink), by identity.
func sameDir(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(ia, ib)
}

// loadState reloads the planning state saved for the session, so each loop
// starts from what the store holds: another writer (a resumed process, a
// tool) may have changed the todos since this engine last looked.
func (e *Engine) loadState(ctx context.Context) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.sess == nil {
		return
	}
	st, err := e.cfg.store.LoadState(detached(ctx), e.sess.ID)
	if err != nil {
		e.log.Warn("agent: could not load the planning state; using the one in memory", "err", err)
		return
	}
	e.applyStateLocked(st)
}

func (e *Engine) applyStateLocked(st session.State) {
	e.todos.Write(st.Todos)
	e.evidence.Set(st.Evidence)
	e.flow = planning.RestoreWorkflow(planning.WorkflowState{Status: st.Status, Plan: st.Plan, TaskDir: st.TaskDir})
	e.planFile = st.PlanFile
	e.compaction = nil
	if st.Compaction != nil {
		c := *st.Compaction
		e.compaction = &c
	}
}

// saveState writes the planning state; failures are logged (the run's
// outcome does not change because its bookkeeping could not be saved).
func (e *Engine) saveState(ctx context.Context) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.sess == nil {
		return
	}
	flow := e.flow.State()
	st := session.State{
		Todos:    e.todos.Read(),
		Evidence: e.evidence.Count(),
		Status:   flow.Status,
		Plan:     flow.Plan,
		TaskDir:  flow.TaskDir,
		PlanFile: e.planFile,
	}
	if e.compaction != nil {
		c := *e.compaction
		st.Compaction = &c
	}
	if err := e.cfg.store.SaveState(detached(ctx), e.sess.ID, st); err != nil {
		e.log.Error("agent: could not save the planning state", "session", e.sess.ID, "err", err)
	}
}

// appendMessage adds m to the history and the store. A store failure is
// returned: a run that cannot record what it does should stop.
func (e *Engine) appendMessage(ctx context.Context, m llm.Message) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.sess != nil {
		if err := e.cfg.store.AppendMessage(detached(ctx), e.sess.ID, m); err != nil {
			return fmt.Errorf("agent: could not save a message to session %s: %w", e.sess.ID, err)
		}
	}
	e.history = append(e.history, m)
	return nil
}

// effectiveHistory is what the model sees: the compaction summary standing
// in for the messages it covers, then the rest verbatim. The returned slice
// must not be appended to in place; its capacity is capped to guarantee it.
func (e *Engine) effectiveHistory() []llm.Message {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.effectiveLocked()
}

func (e *Engine) effectiveLocked() []llm.Message {
	if !e.summaryActiveLocked() {
		return e.history[:len(e.history):len(e.history)]
	}
	rest := e.history[e.compaction.Covered:]
	out := make([]llm.Message, 0, len(rest)+1)
	out = append(out, compact.SummaryMessage(compact.RefreshActiveTasks(e.compaction.Summary, e.todos)))
	return append(out, rest...)
}

// summaryActiveLocked reports whether a stored compaction summary stands in
// for the start of the history.
func (e *Engine) summaryActiveLocked() bool {
	return e.compaction != nil && e.compaction.Covered > 0 && e.compaction.Covered <= len(e.history)
}
