package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/harness9/harness9/session"
)

// Persistence is the session state's (agent/internal/sessionstate): the
// engine says what happened, the state stores it. What is left here is
// what the engine decides about a session: its title, who may write it,
// which directory it belongs to.

// detached is a context without the run's cancellation, for the writes
// that must happen even when a run is cancelled (a checkpoint's after
// state).
func detached(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }

// ensureSession creates the session on the first run of a new engine; an
// existing session's row takes up the current mode, and the prompt's title
// when it has none yet (StartSession without a title).
func (e *Engine) ensureSession(ctx context.Context, prompt string) error {
	return e.ensureTitled(ctx, title(prompt))
}

func (e *Engine) ensureTitled(ctx context.Context, t string) error {
	if e.cfg.childTitle != "" {
		t = title(e.cfg.childTitle)
	}
	return e.st.Ensure(ctx, session.Session{Workdir: e.cfg.workdir, Model: e.cfg.modelLabel, Title: t, ParentID: e.cfg.parentID}, e.cfg.claim)
}

// StartSession creates the engine's session now, before its first run,
// titled after title, and returns its id: a front end that lists sessions
// (harness9 serve, harness9 acp) can name one before a prompt is sent. A
// session started with an empty title takes the title of its first run's
// prompt. An engine that already has a session returns its id.
func (e *Engine) StartSession(ctx context.Context, name string) (string, error) {
	t := ""
	if strings.TrimSpace(name) != "" {
		t = title(name)
	}
	if err := e.ensureTitled(ctx, t); err != nil {
		return "", err
	}
	return e.SessionID(), nil
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

// resume loads a stored session: metadata, history and planning state. A
// session of another workdir is refused, and one another process writes is
// claimed before its history is read: it is neither loaded nor written.
func (e *Engine) resume(ctx context.Context, id string) error {
	return e.st.Load(ctx, id, func(ctx context.Context, s session.Session) error {
		if s.Workdir != "" && !sameDir(s.Workdir, e.cfg.workdir) {
			return &WorkdirError{SessionID: s.ID, SessionWorkdir: s.Workdir, Workdir: e.cfg.workdir}
		}
		if e.cfg.claim != nil {
			return e.cfg.claim(ctx, s.ID)
		}
		return nil
	})
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
