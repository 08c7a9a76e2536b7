package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/harness9/harness9/checkpoint"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/tool"
)

// ErrNoCheckpoints is returned by the undo methods of an engine that
// records no checkpoints (its store does not implement
// session.CheckpointStore, or WithCheckpoints(false)).
var ErrNoCheckpoints = errors.New("this session records no file checkpoints, so there is nothing to undo " +
	"(the store does not keep them, or they are turned off)")

// WithCheckpoints turns file checkpoints (undo) on or off. They are on by
// default when the store implements session.CheckpointStore: before the
// first change to a file in each turn (a run loop; every round of an
// approved plan's auto-execution is a turn of its own), its prior content
// is stored, and shell calls outside Plan Mode are covered by comparing the
// tree before and after (see package checkpoint for the limits).
func WithCheckpoints(on bool) Option {
	return func(c *config) { c.noCheckpoints = !on }
}

// newRecorder is the engine's checkpoint recorder, or nil when none can
// be kept.
func (e *Engine) newRecorder() *checkpoint.Recorder {
	cs, ok := e.cfg.store.(session.CheckpointStore)
	if !ok || e.cfg.noCheckpoints || e.ws == nil {
		return nil
	}
	return checkpoint.New(e.ws, cs, checkpoint.WithLogger(e.log))
}

// beginTurn opens a checkpoint turn for a run loop's prompt. Outside Plan
// Mode it also starts filling the recorder's content cache in the
// background (once per engine), while the model thinks, so the session's
// first shell call does not wait for the whole tree to be read; the fill
// is bounded by the recorder's tree limits and outlives the run.
func (e *Engine) beginTurn(ctx context.Context, prompt string, mode planning.Mode) {
	if e.ckpt == nil {
		return
	}
	e.ckpt.Begin(e.SessionID(), prompt)
	if planning.PolicyFor(mode).Checkpoints {
		e.ckpt.Warm(context.WithoutCancel(ctx))
	}
}

// runChecked runs a call, checkpointing the files it will change first
// when the tool says it changes files. Nothing can change while planning
// (the gate and the read-only kernel sandbox see to it), so Plan-Mode calls
// are not checkpointed.
func (l *turnLoop) runChecked(ctx context.Context, call llm.ToolCall) tool.Result {
	rec := l.e.ckpt
	if rec == nil || !l.policy.Checkpoints {
		return l.e.registry.Execute(ctx, l.gate, call)
	}
	t, ok := l.e.registry.Lookup(call.Name)
	fc, changes := t.(tool.FileChanger)
	if !ok || !changes || l.gate.Check(call.Name, call.Input) != nil {
		return l.e.registry.Execute(ctx, l.gate, call)
	}
	paths, tree := fc.ChangedFiles(call.Input)
	change := rec.Before(ctx, paths, tree)
	res := l.e.registry.Execute(ctx, l.gate, call)
	change.After(detached(ctx))
	return res
}

// Turns lists the session's changing turns with their files, oldest first.
func (e *Engine) Turns(ctx context.Context) ([]checkpoint.Turn, error) {
	cs, id, err := e.checkpoints()
	if err != nil || id == "" {
		return nil, err
	}
	cps, err := cs.Checkpoints(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	return checkpoint.Turns(cps), nil
}

// RewindConflicts lists the files a rewind to turn would find changed since
// the agent left them: what to ask the user about before Rewind.
func (e *Engine) RewindConflicts(ctx context.Context, turn int) ([]string, error) {
	cs, id, err := e.checkpoints()
	if err != nil || id == "" {
		return nil, err
	}
	cps, err := cs.Checkpoints(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	return checkpoint.Conflicts(e.ws, cps, turn), nil
}

// Rewind puts the workdir back to before turn (see checkpoint.Rewind);
// overwrite decides about files changed since the agent left them (nil
// skips them). The transcript keeps everything; a note saying what was
// rewound is added to it so the model knows on its next turn.
func (e *Engine) Rewind(ctx context.Context, turn int, overwrite func(path string) bool) (checkpoint.Report, error) {
	if !e.busy.CompareAndSwap(false, true) {
		return checkpoint.Report{}, ErrBusy
	}
	defer e.busy.Store(false)
	cs, id, err := e.checkpoints()
	if err != nil {
		return checkpoint.Report{}, err
	}
	if id == "" {
		return checkpoint.Report{}, nil
	}
	rep, err := checkpoint.Rewind(ctx, e.ws, cs, id, checkpoint.Request{To: turn, Overwrite: overwrite})
	if len(rep.Turns) > 0 {
		if aerr := e.st.Append(ctx, RewindNote(rep)); aerr != nil && err == nil {
			err = aerr
		}
	}
	return rep, err
}

// NotePrefix begins the user messages harness9 adds to a history itself
// (a rewind's note), so a front end drawing the session again shows them
// as notes, not as something the user typed.
const NotePrefix = "[harness9] "

// RewindNote is the message added to a session's history after a rewind,
// so the model does not assume its earlier edits are still there.
func RewindNote(rep checkpoint.Report) llm.Message {
	return llm.Message{Role: llm.RoleUser, Content: NotePrefix + "The user undid file changes; the workdir's files are " +
		"back to an earlier state. Read files again before relying on earlier edits.\n" + rep.Summary()}
}

// LastTurn is the newest changing turn not yet undone, or 0.
func (e *Engine) LastTurn(ctx context.Context) (int, error) {
	turns, err := e.Turns(ctx)
	if err != nil {
		return 0, err
	}
	return checkpoint.LastLive(turns), nil
}

func (e *Engine) checkpoints() (session.CheckpointStore, string, error) {
	if e.ckpt == nil {
		return nil, "", ErrNoCheckpoints
	}
	cs := e.cfg.store.(session.CheckpointStore)
	return cs, e.SessionID(), nil
}
